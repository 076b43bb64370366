/**
 * External-table DDL for the Parquet export, from the table catalog: the same column order and types the files
 * carry (lineage, declared columns, `extra`), plus the hive partition column `snapshot_date`.
 *
 * The files hold exactly the catalog's columns in the catalog's order (src/load/warehouse.ts exportParquet), so a
 * table declared once here reads every partition, old and new; a column the catalog adds later is missing from
 * older files and reads as null.
 */
import { allColumns, table as tableDef, type DuckType } from '../normalize/catalog.js';

export const ENGINES = ['spark', 'trino', 'bigquery'] as const;
export type Engine = (typeof ENGINES)[number];

/** How each catalog type is written to Parquet by DuckDB, and read by each engine. */
export const PARQUET_TYPES: Record<DuckType, { parquet: string; spark: string; trino: string; bigquery: string }> = {
  VARCHAR: { parquet: 'BYTE_ARRAY (STRING)', spark: 'STRING', trino: 'varchar', bigquery: 'STRING' },
  BIGINT: { parquet: 'INT64', spark: 'BIGINT', trino: 'bigint', bigquery: 'INT64' },
  INTEGER: { parquet: 'INT32', spark: 'INT', trino: 'integer', bigquery: 'INT64' },
  DOUBLE: { parquet: 'DOUBLE', spark: 'DOUBLE', trino: 'double', bigquery: 'FLOAT64' },
  BOOLEAN: { parquet: 'BOOLEAN', spark: 'BOOLEAN', trino: 'boolean', bigquery: 'BOOL' },
  TIMESTAMPTZ: { parquet: 'INT64 TIMESTAMP(MICROS, isAdjustedToUTC=true)', spark: 'TIMESTAMP', trino: 'timestamp(3)', bigquery: 'TIMESTAMP' },
  JSON: { parquet: 'BYTE_ARRAY (JSON)', spark: 'STRING', trino: 'varchar', bigquery: 'STRING' },
};

const quote: Record<Engine, (n: string) => string> = {
  spark: (n) => `\`${n.replace(/`/g, '``')}\``,
  trino: (n) => `"${n.replace(/"/g, '""')}"`,
  bigquery: (n) => `\`${n.replace(/`/g, '\\`')}\``,
};

export interface DdlOptions {
  /** Folder that holds the table's `snapshot_date=...` folders, e.g. `s3://bucket/seo-etl/parquet` (the table name is appended). */
  location: string;
  /** Schema (Spark database, Trino `catalog.schema`, BigQuery dataset) the table is created in. */
  schema?: string;
}

/** CREATE statement (and the partition discovery that goes with it) for one catalog table on one engine. */
export function externalTableDdl(engine: Engine, tableName: string, opts: DdlOptions): string {
  const t = tableDef(tableName);
  const qn = quote[engine];
  const schema = opts.schema ?? 'seo';
  const where = `${opts.location.replace(/\/+$/, '')}/${t.name}`;
  const cols = allColumns(t).map((c) => `  ${qn(c.name)} ${PARQUET_TYPES[c.type][engine]}`);
  const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
  switch (engine) {
    case 'spark':
      return [
        `CREATE TABLE IF NOT EXISTS ${schema}.${qn(t.name)} (`,
        [...cols, `  ${qn('snapshot_date')} DATE`].join(',\n'),
        ')',
        'USING PARQUET',
        `PARTITIONED BY (${qn('snapshot_date')})`,
        `LOCATION ${lit(where)};`,
        `MSCK REPAIR TABLE ${schema}.${qn(t.name)};`,
      ].join('\n');
    case 'trino': {
      const [catalog, sch] = schema.includes('.') ? schema.split('.', 2) : ['hive', schema];
      return [
        `CREATE TABLE IF NOT EXISTS ${catalog}.${sch}.${qn(t.name)} (`,
        [...cols, `  ${qn('snapshot_date')} date`].join(',\n'),
        ')',
        `WITH (external_location = ${lit(where)}, format = 'PARQUET', partitioned_by = ARRAY['snapshot_date']);`,
        `CALL ${catalog}.system.sync_partition_metadata(${lit(sch)}, ${lit(t.name)}, 'ADD');`,
      ].join('\n');
    }
    case 'bigquery':
      return [
        `CREATE OR REPLACE EXTERNAL TABLE ${schema}.${qn(t.name)} (`,
        cols.join(',\n'),
        ')',
        'WITH PARTITION COLUMNS (snapshot_date DATE)',
        `OPTIONS (format = 'PARQUET', uris = [${lit(`${where}/*`)}], hive_partition_uri_prefix = ${lit(where)});`,
      ].join('\n');
  }
}

/** The type table of docs/parquet.md: catalog type, Parquet type, and the type each engine declares. */
export function renderTypeTable(): string {
  const rows = (Object.keys(PARQUET_TYPES) as DuckType[]).map((t) => {
    const m = PARQUET_TYPES[t];
    return `| ${t} | ${m.parquet} | ${m.spark} | ${m.trino} | ${m.bigquery} |`;
  });
  return ['| catalog (DuckDB) | Parquet | Spark | Trino (Hive) | BigQuery |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** Where the examples in docs/parquet.md point; the test renders the DDL with these. */
export const DOC_EXAMPLE = {
  table: 'keyword_data__monthly_searches',
  locations: { spark: 's3://my-bucket/seo-etl/parquet', trino: 's3://my-bucket/seo-etl/parquet', bigquery: 'gs://my-bucket/seo-etl/parquet' } as Record<Engine, string>,
};
