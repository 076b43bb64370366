/**
 * `seo-etl tables --ddl <engine>` for every engine: each statement parses with a parser of that dialect that
 * installs from npm (dt-sql-parser's Spark, Trino and Hive grammars, Hive's being Athena's DDL; sql-parser-cst's
 * BigQuery dialect; ClickHouse's own engine, chdb, runs its statements in test/lake/lake.test.ts). No parser of
 * Snowflake's DDL installs here: its statements are checked for their parts. With a lake configured, the DDL
 * points at the lake; a parser's refusal of a broken statement shows the check can fail.
 */
import { describe, expect, test } from 'vitest';
import { SparkSQL } from 'dt-sql-parser/dist/parser/spark/index.js';
import { TrinoSQL } from 'dt-sql-parser/dist/parser/trino/index.js';
import { HiveSQL } from 'dt-sql-parser/dist/parser/hive/index.js';
import { parse as parseCst } from 'sql-parser-cst';
import { ddlScript, lakeParquetLocation, tablesCommand } from '../../src/publish/command.js';
import { ENGINES, externalTableDdl, httpLocation, type Engine } from '../../src/publish/parquet-ddl.js';
import { TABLES } from '../../src/normalize/catalog.js';
import { allColumns } from '../../src/catalog/table.js';
import { ROOT, collectStream } from '../helpers/project.js';

const spark = new SparkSQL();
const trino = new TrinoSQL();
const hive = new HiveSQL();

/** The parser's complaints about one engine's script (empty: it parses). */
function problems(engine: Engine, sql: string): string[] {
  switch (engine) {
    case 'spark': return spark.validate(sql).map((e) => `${e.startLine}:${e.startColumn} ${e.message}`);
    case 'trino': return trino.validate(sql).map((e) => `${e.startLine}:${e.startColumn} ${e.message}`);
    case 'athena': return hive.validate(sql).map((e) => `${e.startLine}:${e.startColumn} ${e.message}`);
    case 'bigquery':
      try { parseCst(sql, { dialect: 'bigquery' }); return []; } catch (err) { return [(err as Error).message.split('\n')[0]]; }
    default: throw new Error(`no parser of ${engine} here`);
  }
}

const LAKE = { url: 's3://seo-lake/nightly', env: { AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9000', AWS_REGION: 'eu-west-1' } };

describe('external-table DDL parses in its dialect', () => {
  test.each(['spark', 'trino', 'athena', 'bigquery'] as const)('%s: the whole script over the lake, every table', (engine) => {
    const script = ddlScript({ ddl: engine }, '/data/parquet', LAKE);
    expect(problems(engine, script)).toEqual([]);
    expect(script.match(/^CREATE (OR REPLACE )?(EXTERNAL )?TABLE/gm)).toHaveLength(TABLES.length);
  });

  test.each(['spark', 'trino', 'athena', 'bigquery'] as const)('%s: a statement missing its closing parenthesis is refused', (engine) => {
    const broken = externalTableDdl(engine, 'tasks', { location: 's3://b/p' }).replace(/\n\)\n/, '\n');
    expect(problems(engine, broken).length).toBeGreaterThan(0);
  });

  test('comments with quotes and backslashes stay one literal in every dialect', () => {
    for (const engine of ['spark', 'trino', 'athena', 'bigquery'] as const) {
      const ddl = externalTableDdl(engine, 'tasks', { location: 's3://b/p' });
      expect(problems(engine, ddl), engine).toEqual([]);
      for (const c of allColumns(TABLES.find((t) => t.name === 'tasks')!)) expect(ddl, `${engine} ${c.name}`).toContain(c.name);
    }
  });

  test('snowflake: a stage over the lake, then per table its typed columns, the partition from the path, comments', () => {
    const script = ddlScript({ ddl: 'snowflake', schema: 'seo' }, '/data/parquet', LAKE);
    expect(script).toContain("CREATE STAGE IF NOT EXISTS seo.seo_etl_parquet URL = 's3://seo-lake/nightly/parquet/'");
    const t = TABLES.find((x) => x.name === 'keyword_data')!;
    const ddl = externalTableDdl('snowflake', t.name, { location: 's3://seo-lake/nightly/parquet', schema: 'seo' });
    for (const c of allColumns(t)) expect(ddl).toMatch(new RegExp(`^ {2}"${c.name}" [A-Z_0-9(),]+ AS \\(VALUE:"${c.name}"::`, 'm'));
    expect(ddl).toContain('PARTITION BY ("snapshot_date")');
    expect(ddl).toContain(`LOCATION = @seo.seo_etl_parquet/keyword_data/`);
    expect((ddl.match(/\(/g) ?? []).length).toBe((ddl.match(/\)/g) ?? []).length);
  });
});

describe('where the DDL points', () => {
  test('each engine names the lake as it reads it', () => {
    expect(lakeParquetLocation('athena', 's3://seo-lake/nightly')).toBe('s3://seo-lake/nightly/parquet');
    expect(lakeParquetLocation('spark', 's3://seo-lake/nightly')).toBe('s3a://seo-lake/nightly/parquet');
    expect(lakeParquetLocation('bigquery', 's3://seo-lake/nightly', 'https://storage.googleapis.com')).toBe('gs://seo-lake/nightly/parquet');
    expect(lakeParquetLocation('bigquery', 's3://seo-lake/nightly')).toBe('s3://seo-lake/nightly/parquet');
    expect(httpLocation('s3://seo-lake/nightly/parquet/t', 'http://127.0.0.1:9000/')).toBe('http://127.0.0.1:9000/seo-lake/nightly/parquet/t');
    expect(httpLocation('s3://seo-lake/nightly/parquet/t', undefined, 'eu-west-1')).toBe('https://seo-lake.s3.eu-west-1.amazonaws.com/nightly/parquet/t');
  });

  test('`tables --ddl athena` with SEO_ETL_LAKE_URL set points at the lake; --location still wins', async () => {
    const run = async (extra: Record<string, string>, location?: string) => {
      const out = collectStream();
      await tablesCommand({ root: ROOT, ddl: 'athena', location, env: { SEO_ETL_WAREHOUSE_DIR: '/tmp/seo-etl-ddl-test', ...extra }, out });
      return out.text();
    };
    const lake = await run({ SEO_ETL_LAKE_URL: 's3://seo-lake/nightly' });
    expect(lake).toContain("LOCATION 's3://seo-lake/nightly/parquet/keyword_data/'");
    expect(lake).toContain("'storage.location.template' = 's3://seo-lake/nightly/parquet/keyword_data/snapshot_date=${snapshot_date}/'");
    expect(await run({})).toContain("LOCATION '/tmp/seo-etl-ddl-test/parquet/keyword_data/'");
    expect(await run({ SEO_ETL_LAKE_URL: 's3://seo-lake/nightly' }, 's3://elsewhere/x')).toContain("LOCATION 's3://elsewhere/x/keyword_data/'");
  });

  test('every engine is offered', () => {
    expect([...ENGINES].sort()).toEqual(['athena', 'bigquery', 'clickhouse', 'snowflake', 'spark', 'trino']);
  });
});
