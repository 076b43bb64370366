/**
 * After `reprocess` or `ingest`, the Parquet export is rewritten from the warehouse, so every load path leaves
 * DuckDB and Parquet alike: each run's rows go to `<table>/snapshot_date=<its day>/part-<run>.parquet`, as the
 * nightly writes them. The new tree is written beside the old one and swapped in table by table.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Warehouse } from './warehouse.js';
import { dayOfRunId, isCalendarDay } from '../pipeline/key.js';

/** The day a run's rows are filed under: its ledger day, else the day in its id (`ingest-20260105T...`), else today. Pure. */
export function snapshotDateOf(runId: string, ledgerDays: ReadonlyMap<string, string>, today: string): string {
  const day = ledgerDays.get(runId);
  if (day && isCalendarDay(day)) return day;
  return dayOfRunId(runId) ?? today;
}

export async function rewriteParquet(wh: Warehouse, parquetDir: string): Promise<{ table: string; file: string; rows: number }[]> {
  const conn = wh.connection;
  const union = wh.inUse.tables.map((t) => `SELECT DISTINCT _run_id FROM "${t.name}"`).join(' UNION ');
  const runs = (await conn.runAndReadAll(`SELECT DISTINCT _run_id FROM (${union}) WHERE _run_id IS NOT NULL ORDER BY 1`)).getRows().map((r) => String(r[0]));
  const hasLedger = Number((await conn.runAndReadAll(`SELECT count(*) FROM duckdb_tables() WHERE table_name = '_runs'`)).getRows()[0][0]) > 0;
  const days = new Map<string, string>(hasLedger ? (await conn.runAndReadAll(`SELECT run_id, run_date FROM _runs`)).getRows().map((r) => [String(r[0]), String(r[1])]) : []);
  const today = new Date().toISOString().slice(0, 10);
  const side = `${parquetDir}.rewrite-${process.pid}`;
  rmSync(side, { recursive: true, force: true });
  mkdirSync(side, { recursive: true });
  const out: { table: string; file: string; rows: number }[] = [];
  try {
    for (const run of runs) {
      if (!/^[A-Za-z0-9._-]+$/.test(run)) continue; // not a name a file can carry (never written by this project)
      out.push(...(await wh.exportParquet(side, snapshotDateOf(run, days, today), run)));
    }
    mkdirSync(parquetDir, { recursive: true });
    for (const t of wh.inUse.tables) {
      const target = path.join(parquetDir, t.name);
      rmSync(target, { recursive: true, force: true });
      if (existsSync(path.join(side, t.name))) renameSync(path.join(side, t.name), target);
    }
  } finally {
    rmSync(side, { recursive: true, force: true });
  }
  return out.map((f) => ({ ...f, file: path.join(parquetDir, path.relative(side, f.file)) }));
}

/** Tables that have fewer rows after than before, as `table before -> after`. Pure. */
export function shrunk(before: Record<string, number>, after: Record<string, number>): string[] {
  return Object.entries(before).filter(([t, n]) => (after[t] ?? 0) < n).map(([t, n]) => `${t} ${n} -> ${after[t] ?? 0}`);
}

/**
 * Runs whose Parquet files still hold rows this run replaced in DuckDB (a re-parsed task collected again by a later
 * run, tasks_fixed): their parts are written again from the warehouse, and a part left with no rows is removed,
 * so a table reads the same in Parquet as in DuckDB. Returns the runs rewritten.
 */
export async function reexportMovedRuns(wh: Warehouse, parquetDir: string, runId: string): Promise<string[]> {
  const conn = wh.connection;
  const moved = (await conn.runAndReadAll(
    `SELECT DISTINCT t.run_id, r.run_date FROM _tasks t LEFT JOIN _runs r ON r.run_id = t.run_id
     WHERE t.run_id <> $1 AND t.service_id IN (SELECT _task_id FROM "tasks" WHERE _run_id = $1) ORDER BY 1`,
    [runId],
  )).getRows().map((r) => ({ run: String(r[0]), day: String(r[1]) }));
  const today = new Date().toISOString().slice(0, 10);
  for (const { run, day } of moved) {
    if (!/^[A-Za-z0-9._-]+$/.test(run)) continue;
    const date = snapshotDateOf(run, new Map([[run, day]]), today);
    const written = new Set((await wh.exportParquet(parquetDir, date, run)).map((f) => f.table));
    for (const t of wh.inUse.tables) if (!written.has(t.name)) rmSync(path.join(parquetDir, t.name, `snapshot_date=${date}`, `part-${run}.parquet`), { force: true });
  }
  return moved.map((m) => m.run);
}
