/**
 * External-table DDL for the Parquet export, from the table catalog: the same column order and types the files
 * carry (lineage, declared columns, `extra`), each column's description as its comment, plus the hive partition
 * column `snapshot_date`.
 *
 * The files hold exactly the catalog's columns in the catalog's order (src/load/warehouse.ts exportParquet), so a
 * table declared once here reads every partition, old and new; a column the catalog adds later is missing from
 * older files and reads as null. The same statements read the local export and the lake (docs/parquet.md): only
 * the location differs.
 */
import { allColumns, type DuckType } from '../catalog/table.js';
import { table as tableDef } from '../normalize/catalog.js';

export const ENGINES = ['spark', 'trino', 'bigquery', 'athena', 'snowflake', 'clickhouse'] as const;
export type Engine = (typeof ENGINES)[number];

/** How each catalog type is written to Parquet by DuckDB, and read by each engine. */
export const PARQUET_TYPES: Record<DuckType, { parquet: string } & Record<Engine, string>> = {
  VARCHAR: { parquet: 'BYTE_ARRAY (STRING)', spark: 'STRING', trino: 'varchar', bigquery: 'STRING', athena: 'string', snowflake: 'VARCHAR', clickhouse: 'String' },
  BIGINT: { parquet: 'INT64', spark: 'BIGINT', trino: 'bigint', bigquery: 'INT64', athena: 'bigint', snowflake: 'NUMBER(19,0)', clickhouse: 'Int64' },
  INTEGER: { parquet: 'INT32', spark: 'INT', trino: 'integer', bigquery: 'INT64', athena: 'int', snowflake: 'NUMBER(10,0)', clickhouse: 'Int32' },
  DOUBLE: { parquet: 'DOUBLE', spark: 'DOUBLE', trino: 'double', bigquery: 'FLOAT64', athena: 'double', snowflake: 'DOUBLE', clickhouse: 'Float64' },
  BOOLEAN: { parquet: 'BOOLEAN', spark: 'BOOLEAN', trino: 'boolean', bigquery: 'BOOL', athena: 'boolean', snowflake: 'BOOLEAN', clickhouse: 'Bool' },
  TIMESTAMPTZ: { parquet: 'INT64 TIMESTAMP(MICROS, isAdjustedToUTC=true)', spark: 'TIMESTAMP', trino: 'timestamp(3)', bigquery: 'TIMESTAMP', athena: 'timestamp', snowflake: 'TIMESTAMP_TZ', clickhouse: "DateTime64(6, 'UTC')" },
  JSON: { parquet: 'BYTE_ARRAY (JSON)', spark: 'STRING', trino: 'varchar', bigquery: 'STRING', athena: 'string', snowflake: 'VARCHAR', clickhouse: 'String' },
};

const quote: Record<Engine, (n: string) => string> = {
  spark: (n) => `\`${n.replace(/`/g, '``')}\``,
  athena: (n) => `\`${n.replace(/`/g, '``')}\``,
  trino: (n) => `"${n.replace(/"/g, '""')}"`,
  snowflake: (n) => `"${n.replace(/"/g, '""')}"`,
  bigquery: (n) => `\`${n.replace(/`/g, '\\`')}\``,
  clickhouse: (n) => `\`${n.replace(/`/g, '\\`')}\``,
};

/** A string literal: Trino knows only '' for a quote; the Hive family and BigQuery read backslash escapes. */
const literal: Record<Engine, (s: string) => string> = {
  spark: (s) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`,
  athena: (s) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`,
  bigquery: (s) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`,
  clickhouse: (s) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`,
  trino: (s) => `'${s.replace(/'/g, "''")}'`,
  snowflake: (s) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`,
};

/** The name of the Snowflake stage the statements read from (created by the script's preamble). */
export const SNOWFLAKE_STAGE = 'seo_etl_parquet';

export interface DdlOptions {
  /**
   * Folder that holds the table's `snapshot_date=...` folders, e.g. `s3://bucket/seo-etl/parquet` (the table name
   * is appended). ClickHouse reads it over HTTP(S): an `s3://` location is turned into the endpoint's address.
   */
  location: string;
  /** Schema (Spark database, Trino `catalog.schema`, BigQuery dataset) the table is created in. */
  schema?: string;
  /** ClickHouse: the S3 endpoint (path-style) an `s3://bucket/prefix` location is read through; AWS's own by default. */
  endpoint?: string;
  /** ClickHouse: the region of AWS's endpoint. */
  region?: string;
}

/** A comment without line breaks (one line of DDL each). */
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** ClickHouse's URL of an `s3://bucket/key` location: path-style at a custom endpoint, virtual-hosted at AWS. Pure. */
export function httpLocation(location: string, endpoint?: string, region?: string): string {
  const m = /^s3a?:\/\/([^/]+)(\/.*)?$/.exec(location);
  if (!m) return location;
  const rest = (m[2] ?? '').replace(/\/+$/, '');
  if (endpoint) return `${endpoint.replace(/\/+$/, '')}/${m[1]}${rest}`;
  return `https://${m[1]}.s3.${region || 'us-east-1'}.amazonaws.com${rest}`;
}

/** CREATE statement (and the partition discovery that goes with it) for one catalog table on one engine. */
export function externalTableDdl(engine: Engine, tableName: string, opts: DdlOptions): string {
  const t = tableDef(tableName);
  const qn = quote[engine];
  const lit = literal[engine];
  const schema = opts.schema ?? 'seo';
  const where = `${opts.location.replace(/\/+$/, '')}/${t.name}`;
  const columns = allColumns(t);
  const cols = columns.map((c) => `  ${qn(c.name)} ${PARQUET_TYPES[c.type][engine]}`);
  const commented = (suffix: (d: string) => string) => columns.map((c, i) => `${cols[i]}${suffix(oneLine(c.description))}`);
  const about = oneLine(t.description);
  switch (engine) {
    case 'spark':
      return [
        `CREATE TABLE IF NOT EXISTS ${schema}.${qn(t.name)} (`,
        [...commented((d) => ` COMMENT ${lit(d)}`), `  ${qn('snapshot_date')} DATE`].join(',\n'),
        ')',
        'USING PARQUET',
        `PARTITIONED BY (${qn('snapshot_date')})`,
        `LOCATION ${lit(where)}`,
        `COMMENT ${lit(about)};`,
        `MSCK REPAIR TABLE ${schema}.${qn(t.name)};`,
      ].join('\n');
    case 'trino': {
      const [catalog, sch] = schema.includes('.') ? schema.split('.', 2) : ['hive', schema];
      return [
        `CREATE TABLE IF NOT EXISTS ${catalog}.${sch}.${qn(t.name)} (`,
        [...commented((d) => ` COMMENT ${lit(d)}`), `  ${qn('snapshot_date')} date`].join(',\n'),
        ')',
        `COMMENT ${lit(about)}`,
        `WITH (external_location = ${lit(where)}, format = 'PARQUET', partitioned_by = ARRAY['snapshot_date']);`,
        `CALL ${catalog}.system.sync_partition_metadata(${lit(sch)}, ${lit(t.name)}, 'ADD');`,
      ].join('\n');
    }
    case 'bigquery':
      return [
        `CREATE OR REPLACE EXTERNAL TABLE ${schema}.${qn(t.name)} (`,
        commented((d) => ` OPTIONS (description = ${lit(d)})`).join(',\n'),
        ')',
        'WITH PARTITION COLUMNS (snapshot_date DATE)',
        // *.parquet: the partition folders also hold the lake's _manifest.json and _SUCCESS (docs/parquet.md).
        `OPTIONS (format = 'PARQUET', uris = [${lit(`${where}/*.parquet`)}], hive_partition_uri_prefix = ${lit(where)}, description = ${lit(about)});`,
      ].join('\n');
    case 'athena':
      // Partition projection: a new day's folder is read without MSCK REPAIR or a crawler.
      return [
        `CREATE EXTERNAL TABLE IF NOT EXISTS ${qn(schema)}.${qn(t.name)} (`,
        commented((d) => ` COMMENT ${lit(d)}`).join(',\n'),
        ')',
        `COMMENT ${lit(about)}`,
        `PARTITIONED BY (${qn('snapshot_date')} string)`,
        'STORED AS PARQUET',
        `LOCATION ${lit(`${where}/`)}`,
        'TBLPROPERTIES (',
        `  'projection.enabled' = 'true', 'projection.snapshot_date.type' = 'date', 'projection.snapshot_date.format' = 'yyyy-MM-dd',`,
        `  'projection.snapshot_date.range' = '2020-01-01,NOW', 'projection.snapshot_date.interval' = '1', 'projection.snapshot_date.interval.unit' = 'DAYS',`,
        `  'storage.location.template' = ${lit(`${where}/snapshot_date=\${snapshot_date}/`)}`,
        ');',
      ].join('\n');
    case 'snowflake': {
      // An external table reads each row as VALUE (a variant); the partition column comes from the file's path.
      const typed = columns.map((c) => `  ${qn(c.name)} ${PARQUET_TYPES[c.type].snowflake} AS (VALUE:${qn(c.name)}::${PARQUET_TYPES[c.type].snowflake}) COMMENT ${lit(oneLine(c.description))}`);
      return [
        `CREATE OR REPLACE EXTERNAL TABLE ${schema}.${qn(t.name)} (`,
        [...typed, `  ${qn('snapshot_date')} DATE AS (TO_DATE(SPLIT_PART(SPLIT_PART(METADATA$FILENAME, 'snapshot_date=', 2), '/', 1)))`].join(',\n'),
        ')',
        `PARTITION BY (${qn('snapshot_date')})`,
        `LOCATION = @${schema}.${SNOWFLAKE_STAGE}/${t.name}/`,
        `PATTERN = '.*[.]parquet'`,
        'FILE_FORMAT = (TYPE = PARQUET)',
        'AUTO_REFRESH = FALSE',
        `COMMENT = ${lit(about)};`,
      ].join('\n');
    }
    case 'clickhouse':
      // The S3 table engine reads the files where they are; `snapshot_date` comes from the path (hive partitioning).
      return [
        `CREATE TABLE IF NOT EXISTS ${schema}.${qn(t.name)} (`,
        columns.map((c) => `  ${qn(c.name)} Nullable(${PARQUET_TYPES[c.type].clickhouse}) COMMENT ${lit(oneLine(c.description))}`).join(',\n'),
        ')',
        `ENGINE = S3(${lit(`${httpLocation(where, opts.endpoint, opts.region)}/snapshot_date=*/*.parquet`)}, 'Parquet')`,
        `COMMENT ${lit(about)};`,
      ].join('\n');
  }
}

/** What an engine needs once before the tables: a database, or Snowflake's stage over the location. */
export function ddlPreamble(engine: Engine, opts: DdlOptions): string[] {
  const schema = opts.schema ?? 'seo';
  const root = `${opts.location.replace(/\/+$/, '')}/`;
  switch (engine) {
    case 'snowflake':
      return [
        `-- The stage over the Parquet export; the storage integration (AWS role, GCS service account) is the account's: docs/parquet.md.`,
        `CREATE STAGE IF NOT EXISTS ${schema}.${SNOWFLAKE_STAGE} URL = ${literal.snowflake(root)} STORAGE_INTEGRATION = seo_etl_lake FILE_FORMAT = (TYPE = PARQUET);`,
      ];
    case 'clickhouse':
      return [
        `-- The S3 engine signs with the server's configured credentials (a named collection or <s3> settings), or add them as ENGINE arguments.`,
        `CREATE DATABASE IF NOT EXISTS ${schema};`,
      ];
    case 'athena':
      return [`CREATE DATABASE IF NOT EXISTS ${quote.athena(schema)};`];
    default:
      return [];
  }
}

/** The type table of docs/parquet.md: catalog type, Parquet type, and the type each engine declares. */
export function renderTypeTable(): string {
  const rows = (Object.keys(PARQUET_TYPES) as DuckType[]).map((t) => {
    const m = PARQUET_TYPES[t];
    return `| ${t} | ${m.parquet} | ${ENGINES.map((e) => m[e]).join(' | ')} |`;
  });
  return ['| catalog (DuckDB) | Parquet | Spark | Trino (Hive) | BigQuery | Athena | Snowflake | ClickHouse |', '|---|---|---|---|---|---|---|---|', ...rows].join('\n');
}

/** Where the examples in docs/parquet.md point; the test renders the DDL with these. */
export const DOC_EXAMPLE = {
  table: 'keyword_data__monthly_searches',
  locations: {
    spark: 's3://my-bucket/seo-etl/parquet', trino: 's3://my-bucket/seo-etl/parquet', bigquery: 'gs://my-bucket/seo-etl/parquet',
    athena: 's3://my-bucket/seo-etl/parquet', snowflake: 's3://my-bucket/seo-etl/parquet', clickhouse: 's3://my-bucket/seo-etl/parquet',
  } as Record<Engine, string>,
};
