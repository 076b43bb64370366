/** `run`, `resume`, `plan` and `status`: flags in, one entry point each, an exit code out. */
import path from 'node:path';
import { accountLines } from '../check/index.js';
import { existsSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';
import { loadConfig } from '../config/index.js';
import { Ledger, readRunLock } from '../ledger/index.js';
import { pidAlive } from '../ledger/lock.js';
import { estimatePlan, formatPlan, formatPlanJson, loadPipeline, planPipeline, runIdFor, utcDate } from '../pipeline/index.js';
import { warehousePaths } from '../publish/index.js';
import { EXIT } from '../exit.js';
import { runJob } from './job.js';

export async function runCommand(o: { root: string; pipeline: string; runDate?: string; progress?: boolean }): Promise<number> {
  const r = await runJob({ root: o.root, pipelineFile: o.pipeline, runDate: o.runDate, progress: o.progress });
  return r.exitCode;
}

export async function resumeCommand(o: { root: string; pipeline?: string; progress?: boolean }): Promise<number> {
  const r = await runJob({ root: o.root, pipelineFile: o.pipeline, resume: true, progress: o.progress });
  return r.exitCode;
}

/** Opens a warehouse file read-only, if it exists and no writer holds it. */
async function openReadOnly(file: string): Promise<{ instance: DuckDBInstance; close(): void } | undefined> {
  if (!existsSync(file)) return undefined;
  try {
    const instance = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
    return { instance, close: () => instance.closeSync() };
  } catch {
    return undefined;
  }
}

export async function planCommand(o: { root: string; pipeline: string; json: boolean }): Promise<number> {
  const config = loadConfig({ root: o.root });
  const pipeline = loadPipeline(path.resolve(o.root, o.pipeline), config);
  const dataDir = path.resolve(o.root, config.warehouse.dir);
  // SQL-fed steps are counted from the published warehouse as it is now (the plan never touches the job's files).
  const db = await openReadOnly(warehousePaths(dataDir).published);
  try {
    const conn = db ? await db.instance.connect() : undefined;
    const plan = await planPipeline(pipeline, {
      runId: runIdFor(pipeline.name, utcDate(new Date())),
      ...(conn ? { query: async (sql: string) => (await conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[] } : {}),
    });
    const estimate = estimatePlan(plan, config);
    process.stdout.write(o.json ? `${formatPlanJson(estimate)}\n` : `${formatPlan(estimate)}\n`);
    // The account's balance beside the estimate, when a real service answers (never fails the plan).
    if (!o.json) for (const line of await accountLines(config, estimate.totals.costUsd)) process.stdout.write(`${line}\n`);
    return EXIT.ok;
  } finally {
    db?.close();
  }
}

export async function statusCommand(o: { root: string; json: boolean }): Promise<number> {
  const config = loadConfig({ root: o.root });
  const dataDir = path.resolve(o.root, config.warehouse.dir);
  const lock = readRunLock(dataDir);
  const running = lock && pidAlive(lock.pid) ? lock : undefined;
  const paths = warehousePaths(dataDir);
  // While a run holds the working file, the last published snapshot is what can be read.
  const db = (running ? undefined : await openReadOnly(paths.work)) ?? (await openReadOnly(paths.published));
  const out: { running: typeof running; runs: unknown[] } = { running, runs: [] };
  if (db) {
    try {
      const conn = await db.instance.connect();
      const hasLedger = (await conn.runAndReadAll(`SELECT count(*) FROM duckdb_tables() WHERE table_name = '_runs'`)).getRows()[0][0];
      if (Number(hasLedger) > 0) {
        const ledger = await Ledger.open(conn, { readOnly: true });
        for (const run of await ledger.runs({ limit: 10 })) out.runs.push(await ledger.summary(run.runId));
      }
    } finally {
      db.close();
    }
  }
  if (o.json) {
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return EXIT.ok;
  }
  const lines: string[] = [];
  if (running) lines.push(`a run is in progress: pid ${running.pid}, started ${running.started_at}${running.run_id ? `, run ${running.run_id}` : ''} (showing the last published state)`);
  if (!out.runs.length) lines.push('no runs yet');
  for (const s of out.runs as Awaited<ReturnType<Ledger['summary']>>[]) {
    if (!s) continue;
    const states = Object.entries(s.byState).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(', ');
    lines.push(`${s.run.runId}  ${s.run.status}  tasks ${s.tasks} (${states || 'none'})  $${s.costUsd.toFixed(4)}  started ${s.run.startedAt}${s.run.note ? `  - ${s.run.note}` : ''}`);
    for (const f of s.failures) lines.push(`    failed: ${f.count} x ${f.code ?? '-'} ${f.message ?? ''} (step ${f.step})`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}
