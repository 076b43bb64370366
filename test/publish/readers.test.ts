/**
 * The readers' side end to end, on two nightly runs against a sandbox the test owns (built once, in beforeAll):
 * a reader in another process holds the published warehouse through the whole second run and keeps its snapshot;
 * the Parquet export has one schema per table, the catalog's, in both partitions; every example query and the
 * curated views answer with rows; `seo-etl tables` (the compiled CLI) lists what a new reader sees.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { spawn, execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { runJob, type RunJobResult } from '../../src/run/job.js';
import { TABLES } from '../../src/normalize/catalog.js';
import { allColumns, type DuckType } from '../../src/catalog/table.js';
import { VIEWS } from '../../src/publish/views.js';
import { clockOnDay, DAY_MS } from '../../src/sandbox/clock.js';
import { NIGHTLY, ROOT, collectStream, queryFile, startProject, type TestProject } from '../helpers/project.js';

const DAY1 = '2026-01-10';
const DAY2 = '2026-01-11';

/** What the reader counts each time: several tables and views in one statement, so one answer is one snapshot. */
const READER_SQL = `SELECT
  (SELECT count(*) FROM keyword_data)::INT AS keyword_data,
  (SELECT count(*) FROM merchant_shopping__items)::INT AS merchant_items,
  (SELECT count(*) FROM _tasks)::INT AS ledger_tasks,
  (SELECT count(*) FROM _runs)::INT AS runs,
  (SELECT count(*) FROM v_keyword_trends)::INT AS trend_rows,
  (SELECT max(run_date)::VARCHAR FROM v_runs) AS last_run_date`;

interface Answer { at: number; counts?: Record<string, unknown>; error?: string }

/**
 * A reader in its own process: opens the published file read-only once and queries it every 50 ms until told to
 * stop, printing each answer with its own clock.
 */
function startReader(file: string) {
  const script = `
    const { DuckDBInstance } = await import(${JSON.stringify(path.join(ROOT, 'node_modules/@duckdb/node-api/lib/index.js'))});
    const i = await DuckDBInstance.create(${JSON.stringify(file)}, { access_mode: 'READ_ONLY' });
    const c = await i.connect();
    let stop = false;
    process.stdin.on('data', () => { stop = true; });
    while (!stop) {
      try {
        const r = await c.runAndReadAll(${JSON.stringify(READER_SQL)});
        process.stdout.write(JSON.stringify({ at: Date.now(), counts: r.getRowObjectsJson()[0] }) + '\\n');
      } catch (err) {
        process.stdout.write(JSON.stringify({ at: Date.now(), error: String(err && err.message || err) }) + '\\n');
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    c.closeSync();
    i.closeSync();
    process.exit(0);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const answers: Answer[] = [];
  let buf = '';
  child.stdout.on('data', (d) => {
    buf += String(d);
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      answers.push(JSON.parse(buf.slice(0, nl)) as Answer);
      buf = buf.slice(nl + 1);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return {
    answers,
    /** Resolves once the reader has answered `n` times in all. */
    async answered(n: number): Promise<void> {
      while (answers.length < n) {
        if (child.exitCode !== null) throw new Error(`reader exited early: ${JSON.stringify(answers.at(-1))}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    async stop(): Promise<number | null> {
      child.stdin.write('stop\n');
      return exited;
    },
  };
}

let p: TestProject;
let first: RunJobResult;
let second: RunJobResult;
let firstSnapshot: Record<string, unknown>;
let reader: ReturnType<typeof startReader>;
let secondStartedAt = 0;
let secondEndedAt = 0;
let readerExit: number | null = null;
/** One read-only connection to the published warehouse after both runs, for every query check. */
let db: DuckDBInstance;
let conn: DuckDBConnection;
const q = async (sql: string) => (await conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];

const run = (runDate: string) => runJob({ root: ROOT, pipelineFile: NIGHTLY, runDate, env: p.env, configOverrides: p.overrides, progress: false, out: collectStream(), logDestination: collectStream() });

beforeAll(async () => {
  // The sandbox takes each run's pages on its run date, as a nightly would see them a day apart.
  const clock = clockOnDay(DAY1);
  p = await startProject({}, { clock });
  first = await run(DAY1);
  [firstSnapshot] = await queryFile(first.publishedPath, READER_SQL);
  reader = startReader(first.publishedPath);
  await reader.answered(1);
  clock.advance(DAY_MS);
  secondStartedAt = Date.now();
  second = await run(DAY2);
  secondEndedAt = Date.now();
  // The reader goes on after the new file is in place: it must still see its own snapshot.
  // Counted by the reader's own clock: answers taken before the run ended may still be in its pipe.
  while (reader.answers.filter((a) => a.at > secondEndedAt).length < 3) await reader.answered(reader.answers.length + 1);
  readerExit = await reader.stop();
  db = await DuckDBInstance.create(second.publishedPath, { access_mode: 'READ_ONLY' });
  conn = await db.connect();
});
afterAll(async () => {
  conn?.closeSync();
  db?.closeSync();
  await p?.close();
  if (p) rmSync(p.dataDir, { recursive: true, force: true });
});

describe('a reader holding the published warehouse through a whole run', () => {
  test('the run succeeds with the reader connected', () => {
    expect(first.exitCode).toBe(0);
    expect(second.exitCode).toBe(0);
    expect(second.status).toBe('completed');
    expect(second.resumed).toBe(false);
    expect(second.summary!.tasks).toBeGreaterThan(0);
  });

  test('the reader kept querying before, during and after the run, and always saw the first snapshot whole', () => {
    const { answers } = reader;
    expect(answers.filter((a) => a.error)).toEqual([]);
    expect(answers.some((a) => a.at < secondStartedAt)).toBe(true);
    expect(answers.filter((a) => a.at > secondStartedAt && a.at < secondEndedAt).length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.at > secondEndedAt).length).toBeGreaterThanOrEqual(3);
    for (const a of answers) expect(a.counts).toEqual(firstSnapshot);
    expect(firstSnapshot).toMatchObject({ runs: 1, last_run_date: DAY1 });
    expect(readerExit).toBe(0);
  });

  test('a reader opening the file afterwards sees the second run, with the first one kept', async () => {
    const [now] = await q(READER_SQL);
    expect(now).toMatchObject({ runs: 2, last_run_date: DAY2 });
    expect(now.keyword_data as number).toBeGreaterThan(firstSnapshot.keyword_data as number);
    expect(now.ledger_tasks as number).toBeGreaterThan(firstSnapshot.ledger_tasks as number);
    const runs = await q(`SELECT run_id, spent_usd, tasks_failed::INT AS failed FROM v_runs ORDER BY run_id`);
    expect(runs.map((r) => r.run_id)).toEqual([first.runId, second.runId]);
    expect(runs[0].spent_usd).toBeCloseTo(first.summary!.costUsd, 6);
    expect(runs[1].spent_usd).toBeCloseTo(second.summary!.costUsd, 6);
  });

  test('the job never leaves a side file next to the published one', () => {
    expect(readdirSync(p.dataDir).filter((f) => f.includes('.publishing-'))).toEqual([]);
  });
});

/** Every Parquet file's columns as `name physical logical`, in file order, by file. */
async function parquetColumns(dir: string): Promise<Map<string, string[]>> {
  const rows = await q(`SELECT file_name AS f, name, type, coalesce(logical_type, converted_type, '') AS logical
    FROM parquet_schema('${dir.replace(/'/g, "''")}/*/*/*.parquet') WHERE name <> 'duckdb_schema'`);
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const f = path.resolve(String(r.f));
    if (!out.has(f)) out.set(f, []);
    out.get(f)!.push(`${r.name} ${r.type} ${r.logical}`);
  }
  return out;
}

/** What the catalog type must look like in the file. */
const EXPECTED: Record<DuckType, RegExp> = {
  VARCHAR: /^BYTE_ARRAY (StringType\(\)|UTF8)$/,
  BIGINT: /^INT64 (INT_64|IntType.*bitWidth=64.*)?$/,
  INTEGER: /^INT32 (INT_32|IntType.*bitWidth=32.*)?$/,
  DOUBLE: /^DOUBLE $/,
  BOOLEAN: /^BOOLEAN $/,
  TIMESTAMPTZ: /^INT64 TimestampType\(isAdjustedToUTC=1, unit=TimeUnit\(MILLIS=<null>, MICROS=MicroSeconds\(\), NANOS=<null>\)\)$/,
  JSON: /^BYTE_ARRAY JsonType\(\)$/,
};

describe('the Parquet export across two runs', () => {
  const dir = () => path.join(p.dataDir, 'parquet');
  const part = (t: string, day: string) => path.join(dir(), t, `snapshot_date=${day}`, `part-nightly-${day}.parquet`);

  test('each table\'s files in both partitions have the same schema: the catalog\'s columns, order and types', async () => {
    const both = TABLES.filter((t) => existsSync(part(t.name, DAY1)) && existsSync(part(t.name, DAY2)));
    for (const must of ['tasks', 'keyword_data', 'keyword_data__monthly_searches', 'merchant_shopping__items', 'events_serp__items', 'onpage_resources__items', 'domain_technologies__items__technologies']) {
      expect(both.map((t) => t.name), must).toContain(must);
    }
    const schemas = await parquetColumns(dir());
    for (const t of both) {
      const a = schemas.get(part(t.name, DAY1))!;
      const b = schemas.get(part(t.name, DAY2))!;
      expect(b, t.name).toEqual(a);
      const cols = allColumns(t);
      expect(a.map((c) => c.split(' ')[0]), t.name).toEqual(cols.map((c) => c.name));
      cols.forEach((c, i) => expect(a[i].slice(c.name.length + 1), `${t.name}.${c.name}`).toMatch(EXPECTED[c.type]));
    }
  });

  test('the partitioned folder reads as one table with snapshot_date from the path, rows equal to the warehouse\'s per run', async () => {
    for (const t of ['keyword_data', 'merchant_shopping__items', 'events_serp__items']) {
      const fromFiles = await q(
        `SELECT snapshot_date::VARCHAR AS d, typeof(snapshot_date) AS ty, count(*)::INT AS n FROM read_parquet('${dir()}/${t}/*/*.parquet', hive_partitioning = true) GROUP BY ALL ORDER BY d`);
      const fromWarehouse = await q(`SELECT right(_run_id, 10) AS d, 'DATE' AS ty, count(*)::INT AS n FROM ${t} GROUP BY ALL ORDER BY d`);
      expect(fromFiles, t).toEqual(fromWarehouse);
      expect(fromFiles.map((r) => r.d), t).toEqual([DAY1, DAY2]);
    }
  });
  test('the DuckDB snippet of docs/parquet.md runs as written on the export: one row per snapshot day', async () => {
    const doc = readFileSync(path.join(ROOT, 'docs', 'parquet.md'), 'utf8');
    const sql = /```sql\n(SELECT snapshot_date[\s\S]+?)```/.exec(doc)![1].replace('data/parquet', dir());
    const rows = await q(sql);
    expect(rows.map((r) => String(r.snapshot_date))).toHaveLength(2);
    expect(rows.every((r) => Number(r.keywords) > 0)).toBe(true);
  });
});

describe('what analysts run', () => {
  const queries = readdirSync(path.join(ROOT, 'docs', 'queries')).filter((f) => f.endsWith('.sql')).sort();

  test('there are example queries, each opening with a comment that says what it answers', () => {
    expect(queries.length).toBeGreaterThanOrEqual(8);
    for (const f of queries) expect(readFileSync(path.join(ROOT, 'docs', 'queries', f), 'utf8'), f).toMatch(/^-- \S.+\n/);
  });

  test('every example query in docs/queries returns rows on the nightly warehouse', async () => {
    for (const f of queries) {
      const sql = readFileSync(path.join(ROOT, 'docs', 'queries', f), 'utf8');
      const rows = await q(sql);
      expect(rows.length, f).toBeGreaterThan(0);
    }
  });

  test('every curated view but the failures returns rows; keyword months appear once each', async () => {
    for (const v of VIEWS) {
      const [{ n }] = await q(`SELECT count(*)::INT AS n FROM ${v.name}`);
      if (v.name === 'v_failed_tasks') expect(n, v.name).toBe(second.summary!.byState.failed + first.summary!.byState.failed);
      // Every item type the sandbox serves is one the client's models know.
      else if (v.name === 'v_serp_unknown_item_types') expect(n, v.name).toBe(0);
      // What the nightly does not collect (no LLM mentions; one domain's ranked keywords): test/families/overlap-mentions-views.test.ts.
      else if (v.name === 'v_ai_llm_brand_mentions' || v.name === 'v_labs_keyword_overlap') expect(n, v.name).toBe(0);
      else expect(n, v.name).toBeGreaterThan(0);
    }
    const [dups] = await q(`SELECT count(*)::INT AS n FROM (SELECT keyword, location_code, language_code, month FROM v_keyword_trends GROUP BY ALL HAVING count(*) > 1)`);
    expect(dups.n).toBe(0);
    const days = await q(`SELECT DISTINCT snapshot_date::VARCHAR AS d FROM v_merchant_prices ORDER BY d`);
    expect(days.map((r) => r.d)).toEqual([DAY1, DAY2]);
  });

  test('seo-etl tables (the compiled CLI) lists the published tables with the counts a new reader sees', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['bin/seo-etl.js', '-C', ROOT, 'tables', '--json'], { cwd: ROOT, env: p.env });
    const listing = JSON.parse(stdout) as { published: boolean; tables: { name: string; rows: number }[]; views: { name: string }[]; lastRun: { runId: string } };
    expect(listing.published).toBe(true);
    expect(listing.lastRun.runId).toBe(second.runId);
    const counts = await q(TABLES.map((t) => `SELECT '${t.name}' AS name, count(*)::INT AS rows FROM "${t.name}"`).join(' UNION ALL '));
    const listed = new Map(listing.tables.map((t) => [t.name, t.rows]));
    for (const c of counts) expect(listed.get(String(c.name)), String(c.name)).toBe(c.rows);
    expect(listed.get('_runs')).toBe(2);
    expect(listing.views.map((v) => v.name)).toEqual(VIEWS.map((v) => v.name).sort());
  });
});
