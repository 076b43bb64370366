/**
 * syncLake on a local tree written by DuckDB, against s3rver: a replaced part (a re-collected task's rows) gets a
 * new name and the old object goes once the manifest names the new one; a lost cache sends nothing twice; a
 * day cleaned from the local disk stays in the lake; a file over the part size goes up in parts and reads back whole.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { lakeClient } from '../../src/publish/lake/s3.js';
import { PART_BYTES, syncLake } from '../../src/publish/lake/sync.js';
import { startS3, type S3Server } from '../helpers/s3.js';
import { lakeAt, lakeKeys, manifests, objectBytes, sha256, unreferenced } from './helpers.js';

let s3: S3Server;
let db: DuckDBInstance;
let conn: DuckDBConnection;
const dirs: string[] = [];
beforeAll(async () => {
  s3 = await startS3();
  db = await DuckDBInstance.create(':memory:');
  conn = await db.connect();
});
afterAll(async () => {
  conn?.closeSync();
  db?.closeSync();
  await s3?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tree(): { dir: string; parquet: string; raw: string; state: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-lake-sync-'));
  dirs.push(dir);
  return { dir, parquet: path.join(dir, 'parquet'), raw: path.join(dir, 'raw'), state: path.join(dir, 'lake-state.json') };
}

/** `rows` rows into `<parquet>/<table>/snapshot_date=<day>/part-<run>.parquet`. */
async function part(parquet: string, table: string, day: string, run: string, rows: number, seed = 0): Promise<void> {
  const dir = path.join(parquet, table, `snapshot_date=${day}`);
  mkdirSync(dir, { recursive: true });
  await conn.run(`COPY (SELECT range + ${seed} AS n, md5(CAST(range + ${seed} AS VARCHAR)) AS s FROM range(${rows})) TO '${path.join(dir, `part-${run}.parquet`)}' (FORMAT parquet)`);
}

describe('syncLake', () => {
  test('a replaced part gets a new name; the old object goes once the manifest names the new one', async () => {
    const t = tree();
    const lake = lakeAt('s3://seo-lake/replace');
    const client = lakeClient(s3.env);
    try {
      await part(t.parquet, 'tasks', '2025-01-01', 'night-1', 10);
      await part(t.parquet, 'tasks', '2025-01-02', 'night-2', 20);
      await part(t.parquet, 'keyword_data', '2025-01-01', 'night-1', 5);
      const sync = () => syncLake({ client, location: lake, parquetDir: t.parquet, rawDir: t.raw, stateFile: t.state });
      const first = await sync();
      expect(first).toMatchObject({ partitions: 3, manifests: 3, removed: 0, uploaded: { files: 3 } });
      const before = await manifests(client, lake);
      const old = before.get('tasks/snapshot_date=2025-01-01')!.files[0].name;

      // A later run re-collected some of night 1's tasks: its part is written again with other rows.
      await part(t.parquet, 'tasks', '2025-01-01', 'night-1', 12, 100);
      const second = await sync();
      expect(second).toMatchObject({ partitions: 1, manifests: 1, removed: 1, uploaded: { files: 1 } });
      const after = await manifests(client, lake);
      const now = after.get('tasks/snapshot_date=2025-01-01')!;
      expect(now.rows).toBe(12);
      expect(now.files.map((f) => f.source)).toEqual(['part-night-1.parquet']);
      expect(now.files[0].name).not.toBe(old);
      expect(await lakeKeys(client, lake)).not.toContain(`parquet/tasks/snapshot_date=2025-01-01/${old}`);
      expect(after.get('tasks/snapshot_date=2025-01-02')).toEqual(before.get('tasks/snapshot_date=2025-01-02'));
      expect(await unreferenced(client, lake)).toEqual([]);

      // Nothing changed: nothing read, nothing sent.
      expect(await sync()).toMatchObject({ partitions: 0, manifests: 0, uploaded: { files: 0 }, present: 0 });

      // The cache lost: every partition is checked against the bucket, nothing is sent again.
      rmSync(t.state);
      const relearn = await sync();
      expect(relearn).toMatchObject({ partitions: 3, uploaded: { files: 0 }, present: 3, removed: 0 });
      expect(await manifests(client, lake)).toEqual(after);

      // Days cleaned from the local disk once the bucket holds them stay in the lake.
      rmSync(path.join(t.parquet, 'keyword_data'), { recursive: true });
      expect(await sync()).toMatchObject({ partitions: 0, removed: 0 });
      expect(await manifests(client, lake)).toEqual(after);
    } finally {
      client.destroy();
    }
  });

  test('a stray a killed upload left in a partition is removed when that partition is published', async () => {
    const t = tree();
    const lake = lakeAt('s3://seo-lake/stray');
    const client = lakeClient(s3.env);
    try {
      await part(t.parquet, 'tasks', '2025-01-01', 'night-1', 10);
      const { PutObjectCommand } = await import('@aws-sdk/client-s3');
      await client.send(new PutObjectCommand({ Bucket: 'seo-lake', Key: 'stray/parquet/tasks/snapshot_date=2025-01-01/part-night-1-0123456789abcdef.parquet', Body: Buffer.from('torn'), ContentLength: 4 }));
      const r = await syncLake({ client, location: lake, parquetDir: t.parquet, rawDir: t.raw, stateFile: t.state });
      expect(r.removed).toBe(1);
      expect(await unreferenced(client, lake)).toEqual([]);
    } finally {
      client.destroy();
    }
  });

  test('a file over the part size goes up in parts and reads back byte for byte; open raw files wait', async () => {
    const t = tree();
    const lake = lakeAt('s3://seo-lake/big');
    const client = lakeClient(s3.env);
    try {
      const big = Buffer.alloc(PART_BYTES + 3 * 2 ** 20);
      for (let i = 0; i < big.length; i += 4) big.writeUInt32LE((i * 2654435761) >>> 0, i);
      mkdirSync(path.join(t.raw, '2025-01-01'), { recursive: true });
      writeFileSync(path.join(t.raw, '2025-01-01', 'night-1-1.ndjson.gz'), big);
      writeFileSync(path.join(t.raw, '2025-01-01', 'night-1-2.ndjson.gz.partial'), 'open');
      const r = await syncLake({ client, location: lake, parquetDir: t.parquet, rawDir: t.raw, stateFile: t.state });
      expect(r.raw).toEqual({ files: 1, bytes: big.length });
      expect(sha256(await objectBytes(client, 'seo-lake', 'big/raw/2025-01-01/night-1-1.ndjson.gz'))).toBe(sha256(big));
      expect(await lakeKeys(client, lake)).toEqual(['raw/2025-01-01/night-1-1.ndjson.gz']);
    } finally {
      client.destroy();
    }
  });
});
