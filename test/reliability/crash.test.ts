/**
 * Crashes: the crash pipeline runs in a child process that is SIGKILLed at a seeded random moment, then run again
 * (the same pipeline and day resumes), possibly killed again, and finished by a plain `seo-etl resume`; two more
 * trials kill it during the Parquet export and during publishing (pause points), then `resume`. After each trial:
 *   - no tag was accepted twice by the sandbox (nothing posted twice) and every planned task_post task was
 *     accepted exactly once,
 *   - every posted task is loaded, and its rows are there exactly once,
 *   - the tables equal those of an uninterrupted run (ids and clock columns aside),
 *   - the ledger's cost equals what the sandbox billed.
 * 14 seeded trials by default (with the two pause-point trials, 16 kills at least), 2 at a time; SEO_ETL_CRASH_TRIALS=200 for more, SEO_ETL_CRASH_SEED to start elsewhere.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import path from 'node:path';
import { startProject, type TestProject } from '../helpers/project.js';
import { SANDBOX_EXTRA, archivedTaskIds, childEnv, ledgerDiff, ledgerOf, referenceRun, resumeInProcess, runCrashPipeline, seeded, snapshotOf, tagsPostedTwice, withDb, type Reference, closeProject } from './helpers.js';
import { PAUSE_MARKER } from '../../src/run/test-pause.js';

const TRIALS = Number(process.env.SEO_ETL_CRASH_TRIALS ?? 14);
const FIRST_SEED = Number(process.env.SEO_ETL_CRASH_SEED ?? 1);
const PARALLEL = 2;
/**
 * Kills land up to this long after the child logs 'starting run' (pipeline checked, lock taken, warehouse open):
 * an undisturbed run of the crash pipeline posts, collects, loads, exports and publishes in about that time.
 */
const KILL_SPAN_MS = 2000;
const STARTED = '"msg":"starting run"';

let reference: Reference;

beforeAll(async () => {
  reference = await referenceRun();
});

let inFlightReasks = 0;

interface TrialOutcome {
  seed: number;
  kills: number[];
  attempts: number;
  /** Wall time of each attempt, ms. */
  times: number[];
}

async function trial(seed: number): Promise<TrialOutcome & { p: TestProject }> {
  const rng = seeded(seed);
  const p = await startProject(SANDBOX_EXTRA);
  const env = childEnv(p);
  const planned = rng() < 0.75 ? 1 : 2; // kills before the run may finish
  const kills: number[] = [];
  const times: number[] = [];
  let attempts = 0;
  try {
    while (kills.length < planned) {
      attempts++;
      const killAfterMs = Math.round(rng() * KILL_SPAN_MS);
      const t0 = Date.now();
      const r = await runCrashPipeline({ env, killAfterMarker: { text: STARTED, ms: killAfterMs } });
      times.push(Date.now() - t0);
      if (!r.killed) {
        // Finished before the kill was due: that attempt is the last one.
        expect(r.code, `seed ${seed}, kills at ${kills.join(', ')} ms, attempt ${attempts}:\n${r.stderr.slice(-3000)}`).toBe(0);
        return { seed, kills, attempts, times, p };
      }
      kills.push(killAfterMs);
    }
    // The last attempt is a plain `seo-etl resume` (no pipeline, no day), not killed: it runs in this process (no
    // process start-up to pay). A kill that came after the run had published leaves nothing to resume.
    attempts++;
    const t0 = Date.now();
    const r = await resumeInProcess(p);
    times.push(Date.now() - t0);
    if (!('nothing' in r)) expect(r.exitCode, `seed ${seed}, kills at ${kills.join(', ')} ms, resumed:\n${r.out}\n${r.log.slice(-3000)}`).toBe(0);
    return { seed, kills, attempts, times, p };
  } catch (err) {
    await closeProject(p);
    throw err;
  }
}

async function check(o: TrialOutcome & { p: TestProject }): Promise<void> {
  const { p } = o;
  const where = `seed ${o.seed} (kills at ${o.kills.join(', ') || 'none'} ms after 'starting run', ${o.attempts} attempts)`;
  try {
    expect(tagsPostedTwice(p), `${where}: tags accepted twice`).toEqual([]);
    expect(p.sandbox.controls.postings().length, `${where}: postings`).toBe(reference.postings);
    const published = path.join(p.dataDir, 'warehouse.duckdb');
    // Every read-out below from one open of the published file (opening it is most of the cost of a query).
    const { ledger, loaded, taskRows, tables, heldRows } = await withDb(published, async (query) => ({
      ledger: await ledgerOf(query),
      loaded: await query(`SELECT service_id FROM _tasks WHERE state = 'loaded' AND service_id IS NOT NULL`),
      taskRows: await query(`SELECT _task_id AS id, count(*)::INT AS n FROM tasks GROUP BY ALL HAVING count(*) <> 1`),
      tables: await snapshotOf(query),
      heldRows: await query(`SELECT service_id FROM _tasks WHERE service_id IS NOT NULL`),
    }));
    expect(ledgerDiff(ledger, reference.ledger), `${where}: ledger`).toEqual([]);
    // Every posting is a loaded task of the ledger, with its one row in `tasks`.
    const ids = p.sandbox.controls.postings().map((x) => x.id);
    const loadedIds = new Set(loaded.map((r) => String(r.service_id)));
    expect(ids.filter((id) => !loadedIds.has(id)), `${where}: posted but not loaded`).toEqual([]);
    expect(taskRows, `${where}: tasks loaded more than once`).toEqual([]);
    for (const t of Object.keys(reference.tables)) expect(tables[t], `${where}: table ${t}`).toEqual(reference.tables[t]);
    expect(Object.keys(tables).sort()).toEqual(Object.keys(reference.tables).sort());
    // Paid once for everything received: a charge the ledger does not hold is a live call whose answer never
    // arrived (the kill came while it was in flight), asked again; an answer that was received is never paid twice.
    const held = new Set(heldRows.map((r) => String(r.service_id)));
    const received = archivedTaskIds(p.dataDir);
    const extra = p.sandbox.controls.charges().filter((c) => !held.has(c.taskId));
    for (const c of extra) {
      expect(c.endpointId, `${where}: extra charge`).toBe('content_generation.paraphrase.live');
      expect(received.has(c.taskId), `${where}: an answer that was received (${c.taskId}) was paid for again`).toBe(false);
    }
    expect(p.sandbox.controls.billed() - extra.reduce((s, c) => s + c.cost, 0), `${where}: billed`).toBeCloseTo(reference.billed, 6);
    inFlightReasks += extra.length;
  } finally {
    await closeProject(p);
  }
}

/** A kill at an exact moment (a pause point: src/pause.ts), then a plain `resume`. */
async function killedAt(point: string): Promise<TrialOutcome & { p: TestProject }> {
  const p = await startProject(SANDBOX_EXTRA);
  try {
    const killed = await runCrashPipeline({ env: childEnv(p, { SEO_ETL_TEST_PAUSE_AT: point }), killOnMarker: `${PAUSE_MARKER} ${point}` });
    expect(killed.killed, `never reached ${point}:\n${killed.stderr.slice(-3000)}`).toBe(true);
    const r = await resumeInProcess(p);
    if ('nothing' in r) throw new Error(`after a kill at ${point}, resume found nothing to resume: ${r.nothing}`);
    expect(r.exitCode, `resume after a kill at ${point}:\n${r.out}\n${r.log.slice(-3000)}`).toBe(0);
    return { seed: 0, kills: [0], attempts: 2, times: [], p };
  } catch (err) {
    await closeProject(p);
    throw err;
  }
}

describe('SIGKILL during the Parquet export and during publishing', () => {
  for (const point of ['parquet', 'publish']) {
    test(`${point}: a plain resume brings the published warehouse to the reference`, async () => {
      await check(await killedAt(point));
    });
  }
});

describe(`SIGKILL at seeded random moments (${TRIALS} trials)`, () => {
  test('the reference run posts every task once and loads them all', () => {
    expect(reference.postings).toBeGreaterThanOrEqual(20);
    expect(Object.values(reference.ledger).every((t) => t.state === 'loaded')).toBe(true);
    expect(reference.tables.keyword_data.length).toBeGreaterThan(0);
  });

  test('after every crash and resume: nothing posted twice, every result loaded once, tables equal the uninterrupted run', async () => {
    const seeds = Array.from({ length: TRIALS }, (_, i) => FIRST_SEED + i);
    const outcomes: TrialOutcome[] = [];
    let next = 0;
    const worker = async () => {
      while (next < seeds.length) {
        const seed = seeds[next++];
        const o = await trial(seed);
        await check(o);
        outcomes.push({ seed: o.seed, kills: o.kills, attempts: o.attempts, times: o.times });
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
    expect(outcomes).toHaveLength(TRIALS);
    // The trials did crash: most attempts before the last were killed.
    expect(outcomes.reduce((n, o) => n + o.kills.length, 0)).toBeGreaterThanOrEqual(TRIALS);
    const mean = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length));
    console.log(`${TRIALS} trials, ${outcomes.reduce((n, o) => n + o.kills.length, 0)} kills, ${inFlightReasks} live calls asked again after a kill in flight; `
      + `killed attempt ${mean(outcomes.flatMap((o) => o.times.slice(0, -1)))} ms, resume ${mean(outcomes.map((o) => o.times.at(-1)!))} ms on average`);
  }, 600_000);
});
