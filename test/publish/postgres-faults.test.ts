/**
 * The PostgreSQL destination after a fault (issue 31, points 4 and 5), against a real server started here:
 * a run killed inside its PostgreSQL publish used to leave `work/postgres-stage-<pid>/` for good; and after a run
 * that could not reach PostgreSQL (exit 6), `resume` said every finished run was published while PostgreSQL was
 * behind. The next start now removes a killed publish's staging folder, and `resume` publishes the run again to
 * the destination that failed.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { EXIT } from '../../src/exit.js';
import { STAGE_PREFIX, staleStages } from '../../src/publish/postgres/index.js';
import { warehousePaths } from '../../src/config/data-paths.js';
import { ROOT, queryFile, startProject, type TestProject } from '../helpers/project.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { SANDBOX_EXTRA, childEnv, closeProject, resumeInProcess, runCli, runInProcess } from '../reliability/helpers.js';

const STORM = path.join(ROOT, 'test', 'reliability', 'pipelines', 'storm.yaml');
const SCHEMA = 'seo_etl';
const TABLES = ['serp_endpoints', 'events_locations', 'paraphrases', '_runs', '_tasks'];

let pgs: TestPostgres;
const opened: TestProject[] = [];

beforeAll(async () => {
  pgs = await startPostgres();
});
afterAll(async () => {
  for (const p of opened) await closeProject(p);
  pgs?.close();
});

async function project(schema: string): Promise<TestProject> {
  const p = await startProject(SANDBOX_EXTRA);
  opened.push(p);
  p.env = { ...p.env, SEO_ETL_POSTGRES_URL: pgs.url, SEO_ETL_POSTGRES_SCHEMA: schema };
  return p;
}

/** Row counts of the published DuckDB file and of the PostgreSQL schema, table by table. */
async function counts(p: TestProject, schema: string): Promise<{ duck: Record<string, number>; pg: Record<string, number> }> {
  const duck: Record<string, number> = {};
  const pg: Record<string, number> = {};
  for (const t of TABLES) {
    duck[t] = Number((await queryFile(path.join(p.dataDir, 'warehouse.duckdb'), `SELECT count(*) AS n FROM "${t}"`))[0].n);
    const rows = await pgs.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}."${t}"`).catch(() => [{ n: '-1' }]);
    pg[t] = Number(rows[0].n);
  }
  return { duck, pg };
}

test('the staging folders of publishes whose process is gone are stale; others and other names are not', () => {
  const alive = (pid: number) => pid === 42;
  expect(staleStages([`${STAGE_PREFIX}41`, `${STAGE_PREFIX}42`, `${STAGE_PREFIX}x`, 'warehouse.duckdb', `${STAGE_PREFIX}`, `${STAGE_PREFIX}-3`], alive)).toEqual([`${STAGE_PREFIX}41`]);
});

describe('a run killed inside its PostgreSQL publish', () => {
  test('leaves work/postgres-stage-<pid>/; the next start removes it, and resume catches PostgreSQL up', async () => {
    const schema = 'killed_publish';
    const p = await project(schema);
    const work = path.dirname(warehousePaths(p.dataDir).work);
    const stages = () => readdirSync(work).filter((f) => f.startsWith(STAGE_PREFIX));
    let staged: string[] = [];
    const killed = await runCli(['run', STORM, '--run-date', '2024-05-01', '--no-progress'], {
      env: childEnv(p, { SEO_ETL_TEST_PAUSE_AT: 'postgres' }),
      killOnMarker: 'seo-etl test pause: postgres',
      beforeKill: async () => { staged = stages(); },
      timeoutMs: 60_000,
    });
    expect(killed.killed, killed.stderr.slice(-3000)).toBe(true);
    expect(staged).toHaveLength(1);
    expect(stages(), 'left by the kill').toEqual(staged);
    // Another process's folder, still publishing, is left alone.
    const sleeper = spawnSync(process.execPath, ['-e', 'console.log(process.pid)']);
    const gonePid = Number(String(sleeper.stdout).trim());
    mkdirSync(path.join(work, `${STAGE_PREFIX}${gonePid}`));
    writeFileSync(path.join(work, `${STAGE_PREFIX}${gonePid}`, 'x.csv'), 'x');
    const live = `${STAGE_PREFIX}${process.pid}`;
    mkdirSync(path.join(work, live));

    const resumed = await runCli(['resume', '--no-progress'], { env: childEnv(p), timeoutMs: 60_000 });
    expect(resumed.code, resumed.stderr.slice(-3000)).toBe(EXIT.ok);
    expect(stages(), 'the staging folders of killed publishes').toEqual([live]);
    expect(resumed.stderr).toMatch(/removed the PostgreSQL staging folder of a killed publish/);
    const c = await counts(p, schema);
    expect(c.pg).toEqual(c.duck);
    expect(c.duck.serp_endpoints).toBeGreaterThan(0);
  });
});

describe('a run that could not reach PostgreSQL (exit 6)', () => {
  test('resume publishes the run to PostgreSQL once it is back, instead of saying everything is published', async () => {
    const schema = 'down_then_resumed';
    const p = await project(schema);
    pgs.stop();
    let down: Awaited<ReturnType<typeof runInProcess>>;
    try {
      down = await runInProcess(p, {}, STORM);
    } finally {
      pgs.start();
    }
    expect(down.exitCode, down.log.slice(-3000)).toBe(EXIT.postgres);
    expect(down.status).toBe('completed');
    expect(down.out).toMatch(/PostgreSQL is behind until `seo-etl resume`/);
    const status = await runCli(['status'], { env: childEnv(p), timeoutMs: 60_000 });
    expect(status.stdout).toMatch(/PostgreSQL is behind: run storm-\S+ was not published to it; 'seo-etl resume' publishes it/);
    const before = p.sandbox.controls.calls().length;
    const billed = p.sandbox.controls.billed();

    const r = await resumeInProcess(p);
    if ('nothing' in r) throw new Error(`resume found nothing to do: ${r.nothing}`);
    expect(r.exitCode, r.log.slice(-3000)).toBe(EXIT.ok);
    expect(r.runId).toBe(down.runId);
    // Nothing posted or called that costs: only the free tasks_fixed list is asked again as collection finishes.
    expect(p.sandbox.controls.calls().slice(before).filter((c) => !c.path.endsWith('/tasks_fixed')), 'calls made by the resume').toEqual([]);
    expect(p.sandbox.controls.billed()).toBe(billed);
    const c = await counts(p, schema);
    expect(c.pg).toEqual(c.duck);
    expect(c.pg._runs).toBe(1);
    // Caught up: nothing left to resume.
    const again = await resumeInProcess(p);
    expect(again).toHaveProperty('nothing');
    expect(existsSync(path.join(p.dataDir, 'publishing.json'))).toBe(false);
  });
});
