/**
 * The lake destination against a real S3-protocol server (s3rver on 127.0.0.1): a nightly run publishes every
 * table's Parquet files and the raw archive, each table's rows there equal to DuckDB's for the day; a reader
 * listing the bucket during the next night's upload sees the first night's manifests until the second's are written.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Session } from 'chdb';
import { ddlScript } from '../../src/publish/command.js';
import { pendingPublish } from '../../src/run/resume.js';
import path from 'node:path';
import { runJob } from '../../src/run/job.js';
import { lakeClient } from '../../src/publish/lake/s3.js';
import { EXIT } from '../../src/exit.js';
import type { PausePoint } from '../../src/pause.js';
import { NIGHTLY, ROOT, collectStream, startProject, type TestProject } from '../helpers/project.js';
import { startS3, type S3Server } from '../helpers/s3.js';
import { CRASH_PIPELINE, SANDBOX_EXTRA, runCli } from '../reliability/helpers.js';
import { compareWithWarehouse, lakeAt, lakeKeys, manifests, rawMissing, unreferenced } from './helpers.js';

let s3: S3Server;
const projects: TestProject[] = [];
beforeAll(async () => { s3 = await startS3(); });
afterAll(async () => {
  for (const p of projects) await p.close();
  await s3?.close();
});

async function night(p: TestProject, url: string, runDate: string, pause?: (point: PausePoint, step?: string) => Promise<void>, pipelineFile = NIGHTLY, endpoint = s3.endpoint) {
  const out = collectStream();
  const log = collectStream();
  const env = { ...p.env, ...s3.env, AWS_ENDPOINT_URL_S3: endpoint, SEO_ETL_LAKE_URL: url };
  const r = await runJob({ root: ROOT, pipelineFile, runDate, env, configOverrides: p.overrides, progress: false, out, logDestination: log, stderrLog: false, pause });
  return { ...r, out: out.text(), log: log.text() };
}

/** Runs a ClickHouse DDL script in chdb and counts each table's rows with snapshot_date from the path. */
async function clickhouseCounts(script: string, tables: readonly string[]): Promise<Record<string, number>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-chdb-'));
  const session = new Session(dir);
  try {
    // Asynchronous queries: the S3 server answering them lives on this process's event loop.
    for (const sql of script.split(/;\s*\n/).map((s) => s.replace(/^--.*$/gm, '').trim()).filter(Boolean)) await session.queryAsync(sql);
    const out: Record<string, number> = {};
    for (const t of tables) {
      const r = await session.queryAsync(`SELECT snapshot_date, count() FROM seo.\`${t}\` GROUP BY ALL SETTINGS use_hive_partitioning = 1`, { format: 'CSV' });
      const [day, n] = r.text().trim().split(',');
      expect(day, t).toBe('"2025-03-04"');
      out[t] = Number(n);
    }
    return out;
  } finally {
    session.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

const rawFiles = (dir: string) => readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ndjson.gz')).sort();

describe('the lake destination', () => {
  test('`make run` (the nightly against the embedded sandbox) publishes every table and the raw archive; the lake holds DuckDB\'s rows of the day', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'seo-etl-lake-run-'));
    const p = { dataDir, close: async () => rmSync(dataDir, { recursive: true, force: true }) } as TestProject;
    projects.push(p);
    const url = 's3://seo-lake/nightly';
    const lake = lakeAt(url);
    // What `make run` runs, with the data folder and the lake in the environment.
    const r = await runCli(['run', NIGHTLY, '--sandbox', '--run-date', '2025-03-04', '--no-progress'], {
      env: { ...process.env, ...s3.env, SEO_ETL_LAKE_URL: url, SEO_ETL_WAREHOUSE_DIR: dataDir }, timeoutMs: 180_000,
    });
    expect(r.code, `${r.stdout}\n${r.stderr.slice(-3000)}`).toBe(EXIT.ok);
    expect(r.stdout).toMatch(/Lake: published to s3:\/\/seo-lake\/nightly: \d+ partition/);

    const client = lakeClient({ ...s3.env });
    try {
      const tables = await compareWithWarehouse(client, lake, path.join(p.dataDir, 'warehouse.duckdb'), '2025-03-04');
      const withRows = tables.filter((t) => t.duckdb > 0);
      expect(withRows.length, 'tables the nightly fills').toBeGreaterThan(10);
      for (const t of tables) expect({ ...t, lake: t.lake }, t.table).toEqual({ ...t, lake: t.duckdb, onlyLake: 0, onlyDuck: 0 });
      const m = await manifests(client, lake);
      expect([...m.keys()].sort()).toEqual(withRows.map((t) => `${t.table}/snapshot_date=2025-03-04`).sort());
      const keys = await lakeKeys(client, lake);
      for (const part of m.keys()) expect(keys, part).toContain(`parquet/${part}/_SUCCESS`);
      expect(await unreferenced(client, lake)).toEqual([]);
      // Data files are named by their run and content: one per run and partition.
      for (const [part, man] of m) for (const f of man.files) expect(f.name, part).toMatch(/^part-nightly-2025-03-04-[0-9a-f]{16}\.parquet$/);

      const raw = rawFiles(path.join(p.dataDir, 'raw'));
      expect(raw.length).toBeGreaterThan(0);
      expect(await rawMissing(client, lake, path.join(p.dataDir, 'raw'), raw)).toEqual([]);
      expect(keys.filter((k) => k.startsWith('raw/')).sort()).toEqual(raw.map((f) => `raw/${f}`));

      // ClickHouse (chdb, in-process) runs `tables --ddl clickhouse` as printed and reads the lake over S3.
      const counts = await clickhouseCounts(ddlScript({ ddl: 'clickhouse' }, path.join(p.dataDir, 'parquet'), { url, env: s3.env }), withRows.map((t) => t.table));
      expect(counts).toEqual(Object.fromEntries(withRows.map((t) => [t.table, t.duckdb])));
    } finally {
      client.destroy();
    }
  });

  test('a reader listing the bucket during the second night\'s upload sees the first night\'s manifests until the second\'s are written', async () => {
    // The crash pipeline (smaller), and no re-parses: a re-collected task of the first night would change its manifests.
    const p = await startProject(SANDBOX_EXTRA);
    projects.push(p);
    const url = 's3://seo-lake/two-nights';
    const lake = lakeAt(url);
    const client = lakeClient({ ...s3.env });
    try {
      const first = await night(p, url, '2025-03-04', undefined, CRASH_PIPELINE);
      expect(first.exitCode, first.log.slice(-2000)).toBe(EXIT.ok);
      const afterFirst = await manifests(client, lake);
      expect(afterFirst.size).toBeGreaterThan(5);

      let during: { manifests: Map<string, unknown>; keys: string[] } | undefined;
      const second = await night(p, url, '2025-03-05', async (point, step) => {
        if (point !== 'lake' || step !== 'manifests') return;
        during = { manifests: await manifests(client, lake), keys: await lakeKeys(client, lake) };
      }, CRASH_PIPELINE);
      expect(second.exitCode, second.log.slice(-2000)).toBe(EXIT.ok);
      expect(during, 'the upload reached its manifests').toBeDefined();
      // Mid-upload: the second night's data files are there, its manifests are not, the first night's are unchanged.
      expect(during!.keys.some((k) => k.includes('snapshot_date=2025-03-05/part-'))).toBe(true);
      expect(during!.manifests).toEqual(afterFirst);
      expect(during!.keys.filter((k) => k.includes('snapshot_date=2025-03-05/_'))).toEqual([]);

      const after = await manifests(client, lake);
      const secondParts = [...after.keys()].filter((k) => k.endsWith('2025-03-05'));
      expect(secondParts.length).toBe(afterFirst.size);
      for (const [k, m] of afterFirst) expect(after.get(k), k).toEqual(m);
      const tables = await compareWithWarehouse(client, lake, path.join(p.dataDir, 'warehouse.duckdb'), '2025-03-05');
      for (const t of tables) expect(t, t.table).toEqual({ ...t, lake: t.duckdb, onlyLake: 0, onlyDuck: 0 });
    } finally {
      client.destroy();
    }
  });

  test('a failed upload completes into DuckDB, says so and exits 8; the next run catches the lake up', async () => {
    const p = await startProject(SANDBOX_EXTRA);
    projects.push(p);
    const url = 's3://seo-lake/caught-up';
    const lake = lakeAt(url);
    const closed = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const { port } = srv.address() as AddressInfo;
        srv.close(() => resolve(port));
      });
    });
    const failed = await night(p, url, '2025-03-04', undefined, CRASH_PIPELINE, `http://127.0.0.1:${closed}`);
    expect(failed.exitCode, failed.log.slice(-2000)).toBe(EXIT.lake);
    expect(failed.lake?.status).toBe('failed');
    expect(failed.out).toContain(`Lake: NOT published to ${url}`);
    expect(failed.out).toContain('DuckDB and Parquet are complete');
    expect(pendingPublish(p.dataDir)?.behind, 'the publish marker names the lake for resume').toEqual(['lake']);
    const client = lakeClient({ ...s3.env });
    try {
      expect(await lakeKeys(client, lake)).toEqual([]);
      const again = await night(p, url, '2025-03-04', undefined, CRASH_PIPELINE);
      expect(again.exitCode, again.log.slice(-2000)).toBe(EXIT.ok);
      expect(again.lake?.status).toBe('published');
      expect(pendingPublish(p.dataDir)).toBeUndefined();
      const tables = await compareWithWarehouse(client, lake, path.join(p.dataDir, 'warehouse.duckdb'), '2025-03-04');
      expect(tables.filter((t) => t.duckdb > 0).length).toBeGreaterThan(5);
      for (const t of tables) expect(t, t.table).toEqual({ ...t, lake: t.duckdb, onlyLake: 0, onlyDuck: 0 });
      expect(await unreferenced(client, lake)).toEqual([]);
    } finally {
      client.destroy();
    }
  });
});
