/**
 * A large file goes up in parts, and a publish killed between two parts resumes the same upload: the parts the
 * storage acknowledged are recorded with their ETags in the data folder's lake state (s3rver, like other S3-protocol
 * servers, has no ListParts to ask), so the next publish (what `seo-etl resume` runs for the lake) sends only the
 * rest, completes the upload, and leaves the bucket as an uninterrupted publish does, with no stray object or
 * unfinished upload.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { lakeClient } from '../../src/publish/lake/s3.js';
import { publishToLake, lakeStateFile } from '../../src/publish/lake/index.js';
import { PART_BYTES } from '../../src/publish/lake/sync.js';
import { warehousePaths } from '../../src/config/data-paths.js';
import { startS3, type S3Server } from '../helpers/s3.js';
import { lakeAt, lakeKeys, objectBytes, sha256, unreferenced } from './helpers.js';

let s3: S3Server;
beforeAll(async () => { s3 = await startS3(); });
afterAll(async () => { await s3?.close(); });

const DAY = '2026-01-15';
const MARKER = 'PAUSED-AT-PART';

/** A data folder whose Parquet export holds one file of about 2.5 parts (random strings do not compress). */
async function dataFolder(): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-multipart-'));
  const part = path.join(dir, 'parquet', 'keyword_data', `snapshot_date=${DAY}`);
  mkdirSync(part, { recursive: true });
  mkdirSync(path.join(dir, 'raw'), { recursive: true });
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  const rows = Math.ceil((2.5 * PART_BYTES) / 128);
  await c.run(`COPY (SELECT md5(i::VARCHAR) || md5((i * 7)::VARCHAR) || md5((i * 13)::VARCHAR) || md5((i * 31)::VARCHAR) AS s FROM range(${rows}) t(i))
    TO '${path.join(part, 'part-run1.parquet')}' (FORMAT parquet, COMPRESSION uncompressed)`);
  c.closeSync();
  db.closeSync();
  return dir;
}

/** Unfinished multipart uploads the server holds (s3rver keeps each in a folder of its own). */
function uploadsUnderWay(): string[] {
  const out: string[] = [];
  for (const e of readdirSync(s3.directory, { withFileTypes: true, recursive: true })) {
    if (e.isDirectory() && /uploads$/.test(e.name)) out.push(...readdirSync(path.join(e.parentPath, e.name)));
  }
  return out;
}

/** Runs the lake publish of `dir` in a child process that stops at the first part sent; kills it there. */
function killedAtFirstPart(dir: string, url: string): Promise<void> {
  const dist = (f: string) => JSON.stringify(path.resolve('dist', f));
  const script = `
    const { publishToLake } = await import(${dist('publish/lake/index.js')});
    const { warehousePaths } = await import(${dist('config/data-paths.js')});
    await publishToLake({ url: ${JSON.stringify(url)}, paths: warehousePaths(${JSON.stringify(dir)}), env: process.env,
      pause: async (step) => { if (step === 'part') { process.stdout.write('${MARKER}\\n'); await new Promise(() => {}); } } });
    process.stdout.write('FINISHED\\n');`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, ...s3.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => { err += String(d); });
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += String(d);
      if (out.includes(MARKER)) child.kill('SIGKILL');
    });
    child.on('exit', () => (out.includes(MARKER) ? resolve() : reject(new Error(`the child never reached the first part:\n${out}\n${err}`))));
  });
}

test('a publish killed between two parts of a large file resumes that upload and sends only the parts missing', async () => {
  const client = lakeClient({ ...s3.env });
  try {
    const dir = await dataFolder();
    const refDir = mkdtempSync(path.join(tmpdir(), 'seo-etl-multipart-ref-'));
    cpSync(dir, refDir, { recursive: true, preserveTimestamps: true });
    const local = readFileSync(path.join(dir, 'parquet', 'keyword_data', `snapshot_date=${DAY}`, 'part-run1.parquet'));
    const parts = Math.ceil(local.length / PART_BYTES);
    expect(parts).toBe(3);

    const reference = await publishToLake({ url: 's3://seo-lake/mp-reference', paths: warehousePaths(refDir), env: s3.env });
    expect(reference).toMatchObject({ status: 'published', parts: { sent: parts, resumed: 0 } });

    const url = 's3://seo-lake/mp-killed';
    const lake = lakeAt(url);
    await killedAtFirstPart(dir, url);
    expect((await lakeKeys(client, lake)).filter((k) => k.startsWith('parquet/')), 'nothing visible before the upload completes').toEqual([]);
    const state = JSON.parse(readFileSync(lakeStateFile(warehousePaths(dir)), 'utf8'));
    const recorded = Object.values(state.uploads as Record<string, { parts: Record<string, string> }>);
    expect(recorded.length, 'the upload under way is recorded').toBe(1);
    const before = Object.keys(recorded[0].parts).length;
    expect(before).toBeGreaterThanOrEqual(1);
    expect(uploadsUnderWay().length, 'the server holds the unfinished upload').toBe(1);

    // What `seo-etl resume` runs for the lake.
    const resumed = await publishToLake({ url, paths: warehousePaths(dir), env: s3.env });
    expect(resumed.status, JSON.stringify(resumed)).toBe('published');
    if (resumed.status !== 'published') return;
    expect(resumed.parts).toEqual({ sent: parts - before, resumed: before });

    expect(await lakeKeys(client, lake)).toEqual(await lakeKeys(client, lakeAt('s3://seo-lake/mp-reference')));
    expect(await unreferenced(client, lake)).toEqual([]);
    const [key] = (await lakeKeys(client, lake)).filter((k) => k.endsWith('.parquet'));
    expect(sha256(await objectBytes(client, lake.bucket, `${lake.prefix}${key}`))).toBe(sha256(local));
    expect(uploadsUnderWay(), 'no unfinished upload left on the server').toEqual([]);
    expect(JSON.parse(readFileSync(lakeStateFile(warehousePaths(dir)), 'utf8')).uploads).toEqual({});
    expect(existsSync(path.join(dir, 'parquet'))).toBe(true);
  } finally {
    client.destroy();
  }
});
