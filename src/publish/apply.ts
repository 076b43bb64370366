/**
 * Publishing a run by applying its changes to the published file in place, so that a night's publish costs what
 * the night changed, not the years behind it (a copy of the whole working file did).
 *
 * In ONE transaction on the published file, for the run and any run whose ledger row the published file does not
 * have as the working file has it (a crashed run never published, a resumed one): the rows its tasks replace are
 * deleted exactly as the load deleted them in the working file (a re-collected task's tables, by `_task_id`), its
 * rows are inserted from the working file (attached read-only), its ledger rows replaced; then each table's row
 * count is checked against the working file's before COMMIT. A crash before COMMIT leaves the published file as
 * it was; `resume` applies the run again.
 *
 * DuckDB lets one process hold a file open for writing and no one else meanwhile, so this needs the published
 * file to itself: while it is applied (seconds), a reader opening the file gets DuckDB's lock error and tries
 * again; a reader that holds it open when the publish starts makes the apply impossible, and the publish falls back
 * to the copy and rename (src/publish/index.ts), the reader keeping its snapshot. So do a schema the working file
 * has and the published one lacks, a table without a run column, a rebuild (reprocess) and rows the count check
 * finds out of step: `applyRun` says why and changes nothing.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { openDatabase, WAREHOUSE_CATALOG, type StorageOptions } from '../load/database.js';
import { tablesOfTask } from '../normalize/extract.js';
import { AVAILABLE_TABLES } from '../normalize/catalog.js';
import { heldTables } from './held-tables.js';
import type { TableDef } from '../catalog/table.js';
import { lit, q, tablesWithRows } from '../load/ddl.js';
import { appendRows } from '../load/append.js';
import { missingColumnComments } from './views.js';

/** Runs applied one statement each; more go in one statement a table. */
const MANY_RUNS = 4;

/** The working file's catalog name while it is attached beside the published one. */
const SOURCE = 'work_src';

export type ApplyResult =
  | { applied: true; runs: string[]; rows: number; replaced: boolean; /** The statements given, counted. */ statements: number }
  | { applied: false; reason: string };

export interface ApplyOptions extends Pick<StorageOptions, 'rowGroupSize'> {
  workPath: string;
  publishedPath: string;
  runId: string;
  /** SQL run in the published file after the rows (curated views, comments), for the catalog tables the working file holds. */
  statements?: (tables: readonly TableDef[]) => readonly string[];
  /** Called with the transaction open, just before COMMIT (tests pause here). */
  beforeCommit?: () => Promise<void>;
}

/** A table's columns with their types; `derived`: its generated columns (computed by DuckDB, never inserted). */
interface TableShape { name: string; columns: Map<string, string>; derived: Set<string> }

export async function applyRun(opts: ApplyOptions): Promise<ApplyResult> {
  if (!existsSync(opts.publishedPath)) return { applied: false, reason: 'nothing published yet' };
  let opened;
  try {
    // DuckDB merges under-full row groups at the checkpoint here, whatever the working file does: a night's rows
    // land in a row group of their own in every table they touch, each on a block of its own, and unmerged they
    // made the file grow by a block per table a night (docs/journal/performance-2026-11-22-to-2026-11-27.md, "publish_year"). The merge rewrites
    // only the under-full groups at the end of each table, in the publisher's own step after the night's load.
    opened = await openDatabase(opts.publishedPath, { rowGroupSize: opts.rowGroupSize, mergeRowGroups: true });
  } catch (err) {
    const msg = String((err as Error).message);
    if (/lock/i.test(msg)) return { applied: false, reason: 'another process holds the published file open' };
    throw err;
  }
  const { instance, connection: conn } = opened;
  try {
    await conn.run(`ATTACH ${lit(opts.workPath)} AS ${SOURCE} (READ_ONLY)`);
    const src = await shapes(conn, SOURCE);
    const held = await heldTables(conn, SOURCE);
    const pub = await shapes(conn, WAREHOUSE_CATALOG);
    const catalog: TableShape[] = [];
    const ledger: TableShape[] = [];
    for (const t of src.values()) {
      const there = pub.get(t.name);
      if (!there) return { applied: false, reason: `table ${t.name} is not in the published file yet` };
      for (const [c, ty] of t.columns) if (there.columns.get(c) !== ty) return { applied: false, reason: `column ${t.name}.${c} differs from the published file's` };
      // By its lineage columns: a generated family's table is in the catalog only once this process meets its tasks.
      if (t.columns.has('_run_id') && t.columns.has('_task_id')) catalog.push(t);
      else if (t.columns.has('run_id')) ledger.push(t);
      else return { applied: false, reason: `table ${t.name} has no run column to apply changes by` };
    }
    const runs = await runsToApply(conn, opts.runId, src.get('_runs'));

    await conn.run('BEGIN TRANSACTION');
    try {
      const replaced = await deleteReplaced(conn, runs, catalog);
      let rows = 0;
      // Only the tables holding rows of these runs: one statement finds them.
      const holding = await tablesHolding(conn, catalog, runs);
      // A run at a time by equality, which DuckDB's zone maps narrow to that run's row groups; many runs at once (a
      // month the published file missed) in one statement a table.
      const filters = runs.length <= MANY_RUNS ? runs.map((run) => ({ sql: '= $1', values: [run] })) : [{ sql: 'IN (SELECT r FROM temp._apply_runs)', values: [] }];
      for (const t of catalog.filter((x) => holding.has(x.name))) {
        // The published table's stored columns, read by name: either file may keep `_id` stored (made before ids
        // were derived) or derived; a derived one reads as its value.
        const derived = pub.get(t.name)!.derived;
        const cols = [...t.columns.keys()].filter((c) => !derived.has(c)).map(q).join(', ');
        for (const f of filters) {
          const r = await conn.run(`INSERT INTO ${WAREHOUSE_CATALOG}.main.${q(t.name)} (${cols}) SELECT ${cols} FROM ${SOURCE}.main.${q(t.name)} WHERE _run_id ${f.sql}`, f.values);
          rows += Number(r.rowsChanged);
        }
      }
      for (const t of ledger) {
        const cols = [...t.columns.keys()].map(q).join(', ');
        for (const f of filters) {
          await conn.run(`DELETE FROM ${WAREHOUSE_CATALOG}.main.${q(t.name)} WHERE run_id ${f.sql}`, f.values);
          await conn.run(`INSERT INTO ${WAREHOUSE_CATALOG}.main.${q(t.name)} (${cols}) SELECT ${cols} FROM ${SOURCE}.main.${q(t.name)} WHERE run_id ${f.sql}`, f.values);
        }
      }
      const off = await outOfStep(conn, [...catalog, ...ledger]);
      if (off) {
        await conn.run('ROLLBACK');
        return { applied: false, reason: `after applying ${runs.join(', ')}, ${off}` };
      }
      await opts.beforeCommit?.();
      await conn.run('COMMIT');
      await conn.run(`DETACH ${SOURCE}`);
      // The curated views (their own transaction: a crash between the two leaves new rows under the old views), only
      // when they differ from the ones the file has: re-creating them and their comments was half the publish.
      const statements = opts.statements?.(held) ?? [];
      if (statements.length && (await fingerprintOf(conn)) !== statementsFingerprint(statements)) {
        for (const sql of statements) await conn.run(sql);
        await conn.run(fingerprintSql(statements));
      }
      if (statements.length) await addColumnComments(conn);
      await conn.run(`CHECKPOINT ${WAREHOUSE_CATALOG}`);
      return { applied: true, runs, rows, replaced, statements: statements.length };
    } catch (err) {
      await conn.run('ROLLBACK').catch(() => undefined);
      throw err;
    }
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** The column descriptions of tables that hold rows and lack them, in one transaction (none: nothing is run). */
export async function addColumnComments(conn: DuckDBConnection): Promise<void> {
  const sql = await missingColumnComments(conn);
  if (sql) await conn.run(`BEGIN TRANSACTION;\n${sql};\nCOMMIT`);
}

/**
 * The statements a published file was given, as a hash kept in a macro of the file (a macro shows in no listing of
 * tables or views), so a publish runs them only when they changed (a new release of the views).
 */
const FINGERPRINT = 'seo_etl_views_fingerprint';

export function statementsFingerprint(statements: readonly string[]): string {
  return createHash('sha256').update(statements.join('\n;\n')).digest('hex');
}

/** The statement that records `statements`' fingerprint in the file (run after them). */
export function fingerprintSql(statements: readonly string[]): string {
  return `CREATE OR REPLACE MACRO ${WAREHOUSE_CATALOG}.main.${FINGERPRINT}() AS ${lit(statementsFingerprint(statements))}`;
}

async function fingerprintOf(conn: DuckDBConnection): Promise<string | undefined> {
  const r = await conn.runAndReadAll(`SELECT count(*) FROM duckdb_functions() WHERE database_name = $1 AND function_name = $2`, [WAREHOUSE_CATALOG, FINGERPRINT]);
  if (Number(r.getRows()[0][0]) === 0) return undefined;
  return String((await conn.runAndReadAll(`SELECT ${WAREHOUSE_CATALOG}.main.${FINGERPRINT}()`)).getRows()[0][0]);
}

/** Tables of the main schema of an attached database, with their column types. */
async function shapes(conn: DuckDBConnection, database: string): Promise<Map<string, TableShape>> {
  const r = await conn.runAndReadAll(`SELECT table_name, column_name, data_type, column_default IS NOT NULL FROM duckdb_columns() WHERE database_name = $1 AND schema_name = 'main' AND NOT internal
    AND table_name IN (SELECT table_name FROM duckdb_tables() WHERE database_name = $1 AND schema_name = 'main' AND NOT temporary) ORDER BY table_name, column_index`, [database]);
  const out = new Map<string, TableShape>();
  for (const [t, c, ty, derived] of r.getRows() as [string, string, string, boolean][]) {
    if (!out.has(t)) out.set(t, { name: t, columns: new Map(), derived: new Set() });
    out.get(t)!.columns.set(c, ty);
    if (derived) out.get(t)!.derived.add(c);
  }
  return out;
}

/** The run, and every run whose ledger row differs between the two files (not published, or changed since). */
async function runsToApply(conn: DuckDBConnection, runId: string, runsTable: TableShape | undefined): Promise<string[]> {
  const runs = new Set([runId]);
  if (runsTable) {
    const cols = [...runsTable.columns.keys()].map(q).join(', ');
    const r = await conn.runAndReadAll(`SELECT run_id FROM (SELECT ${cols} FROM ${SOURCE}.main._runs EXCEPT SELECT ${cols} FROM ${WAREHOUSE_CATALOG}.main._runs) ORDER BY run_id`);
    for (const [id] of r.getRows()) runs.add(String(id));
  }
  return [...runs];
}

/**
 * Deletes from the published file what the loads of `runs` replaced in the working file: the rows of their tasks in
 * the tables each task's endpoint writes (a re-collected task), and any row of theirs already published (a run
 * published again). Nothing to delete in the usual night of new tasks: one look at the `tasks` table says so.
 */
async function deleteReplaced(conn: DuckDBConnection, runs: readonly string[], catalog: readonly TableShape[]): Promise<boolean> {
  await conn.run('CREATE OR REPLACE TEMP TABLE _apply_keys (tbl VARCHAR, k VARCHAR)');
  await conn.run('CREATE OR REPLACE TEMP TABLE _apply_runs (r VARCHAR)');
  for (const run of runs) await conn.run('INSERT INTO temp._apply_runs VALUES ($1)', [run]);
  if (!catalog.some((t) => t.name === 'tasks')) return false;
  const ids = (await conn.runAndReadAll(`SELECT _id, _task_id FROM ${SOURCE}.main.tasks WHERE _run_id IN (SELECT r FROM temp._apply_runs)`)).getRows();
  const keys: [string, string][] = [];
  for (const [id, taskId] of ids as [string, string][]) {
    keys.push(['tasks', id]);
    const endpoint = id.slice(id.indexOf('@') + 1);
    for (const name of tablesOfTask(endpoint)) if (name !== 'tasks' && !name.startsWith('tasks__')) keys.push([name, taskId]);
  }
  await appendRows(conn, '_apply_keys', ['tbl', 'k'], keys.map(([tbl, k]) => ({ tbl, k })));
  const pub = (name: string) => `${WAREHOUSE_CATALOG}.main.${q(name)}`;
  const seen = await conn.runAndReadAll(`SELECT count(*) FROM ${pub('tasks')} WHERE _task_id IN (SELECT k FROM temp._apply_keys WHERE tbl <> 'tasks')
    OR _id IN (SELECT k FROM temp._apply_keys WHERE tbl = 'tasks') OR _run_id IN (SELECT r FROM temp._apply_runs)`);
  if (Number(seen.getRows()[0][0]) === 0) return false;
  const present = new Set(catalog.map((t) => t.name));
  await conn.run(`DELETE FROM ${pub('tasks')} WHERE _id IN (SELECT k FROM temp._apply_keys WHERE tbl = 'tasks')`);
  for (const t of AVAILABLE_TABLES.filter((x) => x.parent === 'tasks' && present.has(x.name))) {
    await conn.run(`DELETE FROM ${pub(t.name)} WHERE _parent_id IN (SELECT k FROM temp._apply_keys WHERE tbl = 'tasks')`);
  }
  for (const t of catalog) {
    await conn.run(`DELETE FROM ${pub(t.name)} WHERE _task_id IN (SELECT k FROM temp._apply_keys WHERE tbl = $1) OR _run_id IN (SELECT r FROM temp._apply_runs)`, [t.name]);
  }
  return true;
}

/** The tables of `catalog` holding rows of `runs` in the working file. */
async function tablesHolding(conn: DuckDBConnection, all: readonly TableShape[], runs: readonly string[]): Promise<Set<string>> {
  const filled = await tablesWithRows(conn, SOURCE);
  const catalog = all.filter((t) => filled.has(t.name));
  if (!catalog.length) return new Set();
  const sql = catalog.map((t) => `SELECT ${lit(t.name)} AS t FROM (SELECT 1 FROM ${SOURCE}.main.${q(t.name)} WHERE _run_id IN (SELECT r FROM temp._apply_runs) LIMIT 1)`).join(' UNION ALL ');
  return new Set((await conn.runAndReadAll(sql)).getRows().map((r) => String(r[0])));
}

/** The first table whose row count differs between the two files, described; undefined when all agree. */
async function outOfStep(conn: DuckDBConnection, tables: readonly TableShape[]): Promise<string | undefined> {
  if (!tables.length) return undefined;
  const sql = tables.map((t) => `SELECT ${lit(t.name)} AS t, (SELECT count(*) FROM ${SOURCE}.main.${q(t.name)}) AS w, (SELECT count(*) FROM ${WAREHOUSE_CATALOG}.main.${q(t.name)}) AS p`).join(' UNION ALL ');
  for (const [t, w, p] of (await conn.runAndReadAll(sql)).getRows() as [string, bigint, bigint][]) {
    if (w !== p) return `${t} has ${p} rows in the published file and ${w} in the working file`;
  }
  return undefined;
}
