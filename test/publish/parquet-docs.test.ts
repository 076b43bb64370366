/** docs/parquet.md and the external-table DDL: generated from the catalog, and the doc shows what the generator gives. */
import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DOC_EXAMPLE, ENGINES, PARQUET_TYPES, externalTableDdl, renderTypeTable } from '../../src/publish/parquet-ddl.js';
import { TABLES } from '../../src/normalize/catalog.js';
import { allColumns } from '../../src/catalog/table.js';
import { ROOT } from '../helpers/project.js';

const doc = readFileSync(path.join(ROOT, 'docs', 'parquet.md'), 'utf8');

describe('docs/parquet.md', () => {
  test('documents the hive layout and links the data dictionary', () => {
    expect(doc).toContain('snapshot_date=YYYY-MM-DD/');
    expect(doc).toContain('part-<run_id>.parquet');
    expect(doc).toContain('(tables.md)');
    expect(doc).toContain('seo-etl tables --ddl');
  });

  test('its type table is the generator\'s, covering every catalog type in use', () => {
    expect(doc).toContain(renderTypeTable());
    const used = new Set(TABLES.flatMap((t) => allColumns(t).map((c) => c.type)));
    for (const ty of used) expect(Object.keys(PARQUET_TYPES)).toContain(ty);
  });

  test.each(ENGINES)('its %s example is exactly what the generator writes for the catalog', (engine) => {
    expect(doc).toContain(externalTableDdl(engine, DOC_EXAMPLE.table, { location: DOC_EXAMPLE.locations[engine] }));
  });
});

describe('externalTableDdl', () => {
  test.each(ENGINES)('%s: every table\'s statement lists the catalog columns in order, then the partition column', (engine) => {
    for (const t of TABLES) {
      const ddl = externalTableDdl(engine, t.name, { location: 's3://b/p/', schema: 'analytics' });
      const names = [...ddl.matchAll(/^ {2}[`"]([^`"]+)[`"] /gm)].map((m) => m[1]);
      const expected = allColumns(t).map((c) => c.name);
      // BigQuery, Athena and ClickHouse take the partition column from the path, not the column list.
      expect(names, `${engine} ${t.name}`).toEqual(['bigquery', 'athena', 'clickhouse'].includes(engine) ? expected : [...expected, 'snapshot_date']);
      const where = { snowflake: `@analytics.seo_etl_parquet/${t.name}/`, clickhouse: `https://b.s3.us-east-1.amazonaws.com/p/${t.name}/` }[engine as string] ?? `s3://b/p/${t.name}`;
      expect(ddl).toContain(where);
      expect(ddl).not.toContain('p//');
    }
  });

  test('identifiers that are keywords are quoted (group, limit, offset, function)', () => {
    expect(externalTableDdl('spark', 'domain_technologies__items__technologies', { location: 'x' })).toContain('`group` STRING');
    expect(externalTableDdl('trino', 'tasks', { location: 'x' })).toContain('"limit" bigint');
    expect(externalTableDdl('bigquery', 'tasks', { location: 'x' })).toContain('`offset` INT64');
  });

  test('an unknown table is refused by name', () => {
    expect(() => externalTableDdl('spark', 'no_such_table', { location: 'x' })).toThrow(/unknown table 'no_such_table'/);
  });
});
