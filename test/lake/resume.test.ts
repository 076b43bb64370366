/**
 * A run killed during its lake upload (SIGKILL at the `lake@file` pause point: one data file up, others in
 * flight, no manifest), then a plain `seo-etl resume`: the bucket ends equal to an uninterrupted run's, every
 * data file named by a manifest, none twice, and the rows those manifests name are DuckDB's.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { lakeClient } from '../../src/publish/lake/s3.js';
import { PAUSE_MARKER } from '../../src/run/test-pause.js';
import { EXIT } from '../../src/exit.js';
import { startProject, type TestProject } from '../helpers/project.js';
import { startS3, type S3Server } from '../helpers/s3.js';
import { SANDBOX_EXTRA, childEnv, closeProject, resumeInProcess, runCrashPipeline, runInProcess } from '../reliability/helpers.js';
import { compareWithWarehouse, lakeAt, lakeKeys, manifests, rawMissing, unreferenced } from './helpers.js';
import { RUN_DATE } from '../reliability/helpers.js';

let s3: S3Server;
const projects: TestProject[] = [];
beforeAll(async () => { s3 = await startS3(); });
afterAll(async () => {
  for (const p of projects) await closeProject(p);
  await s3?.close();
});

async function projectWithLake(url: string): Promise<TestProject> {
  const p = await startProject(SANDBOX_EXTRA);
  projects.push(p);
  p.env = { ...p.env, ...s3.env, SEO_ETL_LAKE_URL: url };
  return p;
}

/** Per partition: the local parts it was published from and its rows, the shape two runs of one pipeline share. */
const shape = (m: Awaited<ReturnType<typeof manifests>>) => Object.fromEntries([...m].map(([k, v]) => [k, { rows: v.rows, sources: v.files.map((f) => f.source) }]));

test('killed during the lake upload, then resume: the bucket equals an uninterrupted run\'s, no stray or duplicate file', async () => {
  const client = lakeClient({ ...s3.env });
  try {
    const ref = await projectWithLake('s3://seo-lake/reference');
    const reference = await runInProcess(ref);
    expect(reference.exitCode, reference.log.slice(-2000)).toBe(EXIT.ok);
    const refLake = lakeAt('s3://seo-lake/reference');
    const refManifests = await manifests(client, refLake);
    expect(refManifests.size).toBeGreaterThan(5);

    const url = 's3://seo-lake/killed';
    const lake = lakeAt(url);
    const p = await projectWithLake(url);
    const r = await runCrashPipeline({ env: childEnv(p, { SEO_ETL_TEST_PAUSE_AT: 'lake@file' }), killOnMarker: `${PAUSE_MARKER} lake@file`, timeoutMs: 120_000 });
    expect(r.killed, `never reached the lake upload:\n${r.stderr.slice(-3000)}`).toBe(true);
    const killed = await lakeKeys(client, lake);
    expect(killed.some((k) => /^parquet\/.+\/part-.+\.parquet$/.test(k)), 'a data file went up before the kill').toBe(true);
    expect(killed.filter((k) => k.endsWith('_manifest.json') || k.endsWith('_SUCCESS')), 'no manifest before every file is up').toEqual([]);
    expect(existsSync(path.join(p.dataDir, 'publishing.json')), 'the run is left for resume to publish').toBe(true);

    const resumed = await resumeInProcess(p);
    if ('nothing' in resumed) throw new Error(resumed.nothing);
    expect(resumed.exitCode, `${resumed.out}\n${resumed.log.slice(-2000)}`).toBe(EXIT.ok);
    expect(resumed.lake?.status).toBe('published');

    const got = await manifests(client, lake);
    expect(shape(got)).toEqual(shape(refManifests));
    expect(await unreferenced(client, lake), 'data files no manifest names').toEqual([]);
    const dataFiles = (await lakeKeys(client, lake)).filter((k) => k.endsWith('.parquet'));
    const refFiles = (await lakeKeys(client, refLake)).filter((k) => k.endsWith('.parquet'));
    expect(dataFiles.length).toBe(refFiles.length);
    const strip = (k: string) => k.replace(/-[0-9a-f]{16}\.parquet$/, '');
    expect(new Set(dataFiles.map(strip)).size, 'one file per run and partition').toBe(dataFiles.length);
    expect(dataFiles.map(strip).sort()).toEqual(refFiles.map(strip).sort());
    for (const t of await compareWithWarehouse(client, lake, path.join(p.dataDir, 'warehouse.duckdb'), RUN_DATE)) {
      expect(t, t.table).toEqual({ ...t, lake: t.duckdb, onlyLake: 0, onlyDuck: 0 });
    }
    const raw = readdirSync(path.join(p.dataDir, 'raw'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ndjson.gz'));
    expect(await rawMissing(client, lake, path.join(p.dataDir, 'raw'), raw)).toEqual([]);
  } finally {
    client.destroy();
  }
});
