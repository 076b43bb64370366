/** Reading the lake back in the tests: its keys, its manifests, and each table's rows there against DuckDB's. */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { DuckDBInstance } from '@duckdb/node-api';
import { parseLakeUrl, type LakeLocation } from '../../src/config/lake.js';
import { listKeys, readManifest, MANIFEST, SUCCESS, type Manifest } from '../../src/publish/lake/sync.js';
import { activateTables, table as tableDef, TABLES } from '../../src/normalize/catalog.js';
import { allColumns } from '../../src/catalog/table.js';

export const lakeAt = (url: string): LakeLocation => {
  const l = parseLakeUrl(url);
  if ('problem' in l) throw new Error(l.problem);
  return l;
};

export async function objectBytes(client: S3Client, bucket: string, key: string): Promise<Buffer> {
  const r = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await r.Body!.transformToByteArray());
}

export const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** Every key of the lake, relative to its prefix, sorted. */
export async function lakeKeys(client: S3Client, lake: LakeLocation): Promise<string[]> {
  return (await listKeys(client, lake.bucket, lake.prefix)).map((k) => k.slice(lake.prefix.length)).sort();
}

/** `<table>/snapshot_date=<day>` -> its manifest, for every partition that has one. */
export async function manifests(client: S3Client, lake: LakeLocation): Promise<Map<string, Manifest>> {
  const out = new Map<string, Manifest>();
  for (const k of await lakeKeys(client, lake)) {
    const m = /^parquet\/([^/]+)\/snapshot_date=([\d-]+)\/_manifest\.json$/.exec(k);
    if (m) out.set(`${m[1]}/snapshot_date=${m[2]}`, (await readManifest(client, lake, m[1], m[2]))!);
  }
  return out;
}

/** Objects under parquet/ that no manifest names (strays, superseded parts). */
export async function unreferenced(client: S3Client, lake: LakeLocation): Promise<string[]> {
  const keys = await lakeKeys(client, lake);
  const named = new Set<string>();
  for (const [p, m] of await manifests(client, lake)) {
    named.add(`parquet/${p}/${MANIFEST}`);
    named.add(`parquet/${p}/${SUCCESS}`);
    for (const f of m.files) named.add(`parquet/${p}/${f.name}`);
  }
  return keys.filter((k) => k.startsWith('parquet/') && !named.has(k));
}

/**
 * For each catalog table: its rows in the lake's partition of `day` (read by DuckDB from the files its manifest
 * names, downloaded) and its rows in the warehouse file of the runs filed under that day, both ways EXCEPT ALL.
 */
export async function compareWithWarehouse(client: S3Client, lake: LakeLocation, warehouse: string, day: string): Promise<{ table: string; lake: number; duckdb: number; onlyLake: number; onlyDuck: number }[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-lake-read-'));
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  const out: { table: string; lake: number; duckdb: number; onlyLake: number; onlyDuck: number }[] = [];
  const one = async (sql: string) => Number((await conn.runAndReadAll(sql)).getRows()[0][0]);
  try {
    await conn.run(`ATTACH '${warehouse}' AS wh (READ_ONLY)`);
    const runs = `(SELECT run_id FROM wh._runs WHERE CAST(run_date AS VARCHAR) = '${day}')`;
    // The run (another process) put generated families' tables in use; this process meets them in the warehouse.
    // Tables an earlier test put in use in this process but the run never created hold nothing of it.
    const present = new Set((await conn.runAndReadAll(`SELECT table_name FROM duckdb_tables() WHERE database_name = 'wh'`)).getRows().map((r) => String(r[0])));
    activateTables(present);
    for (const t of TABLES.filter((x) => present.has(x.name))) {
      const cols = allColumns(tableDef(t.name)).map((c) => `CAST("${c.name}" AS VARCHAR) AS "${c.name}"`).join(', ');
      const m = await readManifest(client, lake, t.name, day);
      const files: string[] = [];
      for (const f of m?.files ?? []) {
        const file = path.join(dir, `${t.name}-${f.name}`);
        const bytes = await objectBytes(client, lake.bucket, `${lake.prefix}parquet/${t.name}/snapshot_date=${day}/${f.name}`);
        if (sha256(bytes) !== f.sha256) throw new Error(`${f.name}: the object's bytes do not match its manifest`);
        writeFileSync(file, bytes);
        files.push(`'${file}'`);
      }
      const fromLake = files.length ? `SELECT ${cols} FROM read_parquet([${files.join(', ')}])` : `SELECT ${cols} FROM wh."${t.name}" WHERE false`;
      const fromDuck = `SELECT ${cols} FROM wh."${t.name}" WHERE _run_id IN ${runs}`;
      out.push({
        table: t.name,
        lake: await one(`SELECT count(*) FROM (${fromLake})`),
        duckdb: await one(`SELECT count(*) FROM (${fromDuck})`),
        onlyLake: await one(`SELECT count(*) FROM (${fromLake} EXCEPT ALL ${fromDuck})`),
        onlyDuck: await one(`SELECT count(*) FROM (${fromDuck} EXCEPT ALL ${fromLake})`),
      });
    }
  } finally {
    conn.closeSync();
    db.closeSync();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

/** The raw archive's closed files whose bytes the lake does not hold under the same name. */
export async function rawMissing(client: S3Client, lake: LakeLocation, rawDir: string, files: readonly string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const rel of files) {
    const local = readFileSync(path.join(rawDir, rel));
    const there = await objectBytes(client, lake.bucket, `${lake.prefix}raw/${rel}`).catch(() => undefined);
    if (!there || sha256(there) !== sha256(local)) missing.push(rel);
  }
  return missing;
}
