/**
 * The PostgreSQL destination's configuration and the pure parts of its SQL: bad values are refused naming the
 * variable or file:line and never echo the password; URLs are redacted; DuckDB's try_cast becomes the schema's
 * try_cast_date; the catalog drives the PostgreSQL columns.
 */
import { describe, expect, test } from 'vitest';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/index.js';
import { redactText, redactUrl } from '../../src/publish/postgres/config.js';
import { catalogTable, catalogTables, createTableSql, pgIdent, viewSqlForPostgres } from '../../src/publish/postgres/sql.js';
import { AVAILABLE_TABLES, TABLES } from '../../src/normalize/catalog.js';
import { allColumns } from '../../src/catalog/table.js';
import { ROOT } from '../helpers/project.js';

const configError = (fn: () => unknown): string => {
  try { fn(); } catch (err) { return (err as Error).message; }
  throw new Error('no error');
};

describe('postgres configuration', () => {
  test('off by default, schema seo_etl', () => {
    const c = loadConfig({ root: ROOT, env: {} });
    expect(c.postgres).toEqual({ url: '', schema: 'seo_etl' });
  });

  test('SEO_ETL_POSTGRES_URL sets the url', () => {
    const c = loadConfig({ root: ROOT, env: { SEO_ETL_POSTGRES_URL: 'postgres://u:pw@db.example:5432/bi' } });
    expect(c.postgres.url).toBe('postgres://u:pw@db.example:5432/bi');
  });

  test('a bad URL in the environment is refused naming the variable and the rule, without the password', () => {
    const msg = configError(() => loadConfig({ root: ROOT, env: { SEO_ETL_POSTGRES_URL: 'mysql://u:s3cr3t-pw@db/x' } }));
    expect(msg).toContain('SEO_ETL_POSTGRES_URL');
    expect(msg).toContain('postgres.url');
    expect(msg).toMatch(/must start with postgres:\/\/ or postgresql:\/\//);
    expect(msg).not.toContain('s3cr3t-pw');
    expect(configError(() => loadConfig({ root: ROOT, env: { SEO_ETL_POSTGRES_URL: 'not a url s3cr3t' } }))).not.toContain('s3cr3t');
  });

  test('a bad schema in config/local.yaml is refused with file:line', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'seo-etl-pgconf-'));
    try {
      mkdirSync(path.join(root, 'config'));
      writeFileSync(path.join(root, 'config', 'default.yaml'), readFileSync(path.join(ROOT, 'config', 'default.yaml'), 'utf8'));
      writeFileSync(path.join(root, 'config', 'local.yaml'), 'postgres:\n  url: postgres://bi@localhost/bi\n  schema: Bad-Name\n');
      const msg = configError(() => loadConfig({ root, env: {} }));
      expect(msg).toMatch(/local\.yaml:3:\d+/);
      expect(msg).toContain('postgres.schema');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('redaction', () => {
  test('the password is replaced in the URL and where a credential stands in a text, not in other words', () => {
    const url = 'postgres://bi:p%40ss-word@db.example:5432/bi?sslmode=require';
    expect(redactUrl(url)).toBe('postgres://bi:***@db.example:5432/bi?sslmode=require');
    expect(redactText(`failed for ${url}; password=p@ss-word rejected`, url)).not.toMatch(/p@ss-word|p%40ss-word/);
    // The everyday password "postgres" is also the user, the database and the product.
    const plain = 'postgres://postgres:postgres@127.0.0.1:5432/postgres';
    expect(redactText(`database "postgres" does not exist (postgres://postgres:postgres@127.0.0.1:5432/other)`, plain))
      .toBe('database "postgres" does not exist (postgres://postgres:***@127.0.0.1:5432/other)');
    expect(redactUrl('postgres://h/db?password=abc123')).not.toContain('abc123');
  });
});

describe('PostgreSQL SQL from the one definition', () => {
  test('try_cast(x AS DATE), nested or not, becomes try_cast_date(x)', () => {
    expect(viewSqlForPostgres(`SELECT try_cast(any_value(r.run_date) AS DATE) AS d, coalesce(try_cast(r.run_date AS DATE), x)`))
      .toBe('SELECT try_cast_date(any_value(r.run_date)) AS d, coalesce(try_cast_date(r.run_date), x)');
    expect(() => viewSqlForPostgres('SELECT try_cast(x AS INTEGER)')).toThrow(/only DATE/);
  });

  test('every catalog table has its catalog columns in order, typed for PostgreSQL, keyed on _id', () => {
    for (const t of TABLES) {
      const pg = catalogTables().find((x) => x.source === t.name)!;
      expect(pg.columns.map((c) => c.source)).toEqual(allColumns(t).map((c) => c.name));
    }
    const [create, key, index] = createTableSql('s', catalogTables().find((x) => x.name === 'keyword_data')!);
    expect(create).toMatch(/^CREATE TABLE "s"\."keyword_data" \("_id" text, "_task_id" text, "_run_id" text, "_loaded_at" timestamptz, /);
    expect(create).toContain('"cpc" double precision');
    expect(create).toContain('"extra" json');
    expect(key).toBe('ALTER TABLE "s"."keyword_data" ADD PRIMARY KEY ("_id")');
    expect(index).toBe('CREATE INDEX ON "s"."keyword_data" ("_task_id")');
  });
});

test('every table any family can write, and every column, has a PostgreSQL name of at most 63 bytes, none shared', () => {
  const tables = AVAILABLE_TABLES.map(catalogTable);
  expect(tables.some((t) => t.name !== t.source)).toBe(true); // generated families do pass the limit
  const names = new Set<string>();
  for (const t of tables) {
    expect(Buffer.byteLength(t.name), t.source).toBeLessThanOrEqual(63);
    expect(names.has(t.name), `${t.source} meets another table as ${t.name}`).toBe(false);
    names.add(t.name);
    const cols = new Set(t.columns.map((c) => c.name));
    expect(cols.size, t.source).toBe(t.columns.length);
    for (const c of t.columns) expect(Buffer.byteLength(c.name), `${t.source}.${c.source}`).toBeLessThanOrEqual(63);
  }
  expect(pgIdent('keyword_data')).toBe('keyword_data');
  const long = 'x'.repeat(70);
  expect(pgIdent(long)).toBe(pgIdent(long));
  expect(pgIdent(long)).not.toBe(pgIdent(`${long}y`));
});

