/**
 * Publishing the local Parquet export and raw archive to the lake (docs/parquet.md, "The lake").
 *
 * The bucket mirrors the local tree, `<prefix>parquet/<table>/snapshot_date=<day>/` and `<prefix>raw/<day>/`,
 * with three rules that keep readers whole:
 *   1. a data file goes up under a name no other content has: `part-<run>-<first 16 hex of its SHA-256>.parquet`.
 *      The same bytes always get the same name (a resumed upload overwrites its own object, never adds a twin);
 *      different bytes (a re-collected task's rows) never overwrite what a reader may be reading;
 *   2. after every data file of the publish is up, each changed partition gets its `_manifest.json` (the files it
 *      holds, their rows and hashes) and a `_SUCCESS` marker: a reader that goes by manifests sees a partition's
 *      previous state until its new manifest is written, and the new one whole after;
 *   3. only then are the files no manifest names any more removed (a superseded part, a killed upload's strays).
 * Raw archive files are immutable once closed (`*.ndjson.gz`), so they keep their names; open `.partial` files wait
 * for the run that closes them. Nothing local is removed, and a day removed locally stays in the lake.
 *
 * What has been published is remembered in `<data>/lake-state.json` (a cache: without it every partition is
 * hashed and each object looked up, and nothing is sent twice), so a night's publish reads only what changed.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateMultipartUploadCommand, DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, UploadPartCommand, type S3Client } from '@aws-sdk/client-s3';
import type { DuckDBConnection } from '@duckdb/node-api';
import PQueue from 'p-queue';
import type { LakeLocation } from '../../config/lake.js';
import { createDuckdb } from '../../load/threads.js';
import { lit } from '../../catalog/quote.js';

export const MANIFEST = '_manifest.json';
export const SUCCESS = '_SUCCESS';
/** Parts of a multipart upload (the protocol's smallest is 5 MiB); files up to this size go in one PUT. */
export const PART_BYTES = 8 * 2 ** 20;

export interface ManifestFile {
  /** The object's name in the partition folder. */
  name: string;
  /** The local file it was published from (`part-<run>.parquet`): the run whose rows it holds. */
  source: string;
  rows: number;
  bytes: number;
  sha256: string;
}

export interface Manifest {
  format: 'seo-etl-lake-manifest/1';
  table: string;
  snapshot_date: string;
  rows: number;
  files: ManifestFile[];
}

interface LocalFile { name: string; file: string; size: number; mtimeMs: number }
interface StateFile { size: number; mtimeMs: number; sha256: string; rows: number }
/**
 * A multipart upload under way: the parts the storage has acknowledged, with their ETags. Kept in the state file
 * after each part, so a killed or cut-off publish resumes the same upload where it stopped, without asking the
 * storage which parts it holds (ListParts, which not every S3-protocol server has).
 */
interface UploadState { uploadId: string; size: number; mtimeMs: number; partBytes: number; parts: Record<string, string> }
interface LakeState { version: 1; target: string; partitions: Record<string, Record<string, StateFile>>; raw: Record<string, number>; uploads?: Record<string, UploadState> }

export interface LakeSyncOptions {
  client: S3Client;
  location: LakeLocation;
  parquetDir: string;
  rawDir: string;
  stateFile: string;
  /**
   * Test seam (the `lake` pause point): `file` after the first data file is up, `part` after the first part of a
   * multipart upload, `manifests` before the first manifest.
   */
  pause?: (step: 'file' | 'part' | 'manifests') => Promise<void>;
  /** Uploads in flight at once. */
  concurrency?: number;
}

export interface LakeSyncResult {
  partitions: number;
  uploaded: { files: number; bytes: number };
  /** Data and raw files the bucket held already (a resumed publish). */
  present: number;
  raw: { files: number; bytes: number };
  removed: number;
  manifests: number;
  /** Parts of multipart uploads sent, and parts an earlier, interrupted publish had sent already. */
  parts: { sent: number; resumed: number };
}

const PARTITION = /^snapshot_date=\d{4}-\d{2}-\d{2}$/;
const SOURCE = /^part-([A-Za-z0-9._-]+)\.parquet$/;

/** The object name of a local part: its run and its content. Pure. */
export function objectName(source: string, sha256: string): string {
  const m = SOURCE.exec(source);
  return `part-${m ? m[1] : source.replace(/\.parquet$/, '')}-${sha256.slice(0, 16)}.parquet`;
}

export async function syncLake(opts: LakeSyncOptions): Promise<LakeSyncResult> {
  const { location } = opts;
  const state = readState(opts.stateFile, location.url);
  const result: LakeSyncResult = { partitions: 0, uploaded: { files: 0, bytes: 0 }, present: 0, raw: { files: 0, bytes: 0 }, removed: 0, manifests: 0, parts: { sent: 0, resumed: 0 } };
  const ctx: SyncContext = { opts, state, result, uploads: new Uploads(opts, state, result), key: (rel) => `${location.prefix}${rel}` };

  // Which partitions differ from what was last published: by name, size and modification time, no reading. A day
  // no longer on the local disk stays in the lake: local copies of days the bucket holds may be cleaned away.
  const local = scanParquet(opts.parquetDir);
  const changed = [...local.keys()].filter((p) => !samePartition(local.get(p), state.partitions[p])).sort();
  result.partitions = changed.length;

  // 1. Data files, and the raw archive's closed files.
  const manifests = await queuePartitions(changed, local, ctx);
  queueRawFiles(ctx);
  const settled = await ctx.uploads.settle();
  writeState(opts.stateFile, state); // the raw files that went up count even if a data file failed
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  await ctx.uploads.abortUnstarted();
  writeState(opts.stateFile, state);
  await opts.pause?.('manifests');

  // 2. Manifests, then markers: a partition's new state becomes visible at once.
  try {
    await commitPartitions(manifests, ctx);
  } finally {
    writeState(opts.stateFile, state);
  }
  return result;
}

/** What one publish to the lake works with. */
interface SyncContext {
  opts: LakeSyncOptions;
  state: LakeState;
  result: LakeSyncResult;
  uploads: Uploads;
  /** The object key of a path below the lake's prefix. */
  key: (rel: string) => string;
}

/** A changed partition's manifest, and the state its files will be remembered by once it is committed. */
interface PartitionCommit { manifest: Manifest; state: Record<string, StateFile> }

/** The bucket's uploads: a few in flight at once, a large file in parts resumed across publishes. */
class Uploads {
  private readonly queue: PQueue;
  private readonly queued: Promise<void>[] = [];
  /** Objects this publish began or resumed a multipart upload for. */
  private readonly started = new Set<string>();
  private readonly uploads: Record<string, UploadState>;
  private readonly bucket: string;

  constructor(private readonly opts: LakeSyncOptions, private readonly state: LakeState, private readonly result: LakeSyncResult) {
    this.queue = new PQueue({ concurrency: opts.concurrency ?? 4 });
    this.uploads = (state.uploads ??= {});
    this.bucket = opts.location.bucket;
  }

  enqueue(fn: () => Promise<void>): void {
    this.queued.push(this.queue.add(fn));
  }

  /** Waits for every upload queued so far, failed or not. */
  settle(): Promise<PromiseSettledResult<void>[]> {
    return Promise.allSettled(this.queued);
  }

  /** Uploads a file unless the bucket holds an object of that name and size (names carry content or are immutable). */
  async put(objectKey: string, file: string, size: number): Promise<boolean> {
    const { client } = this.opts;
    const head = await client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: objectKey })).catch((err: { name?: string; $metadata?: { httpStatusCode?: number } }) => {
      if (err?.name === 'NotFound' || err?.$metadata?.httpStatusCode === 404) return undefined;
      throw err;
    });
    if (head && head.ContentLength === size) { this.result.present++; return false; }
    if (size <= PART_BYTES) await client.send(new PutObjectCommand({ Bucket: this.bucket, Key: objectKey, Body: readFileSync(file), ContentLength: size }));
    else await this.putInParts(objectKey, file, size);
    return true;
  }

  /**
   * A large file in parts, resuming the upload an earlier publish recorded for the same key and the same file (size
   * and modification time); one the storage no longer knows (aborted, expired) is started again, once.
   */
  private async putInParts(objectKey: string, file: string, size: number, again = false): Promise<void> {
    const { client } = this.opts;
    const partBytes = PART_BYTES;
    this.started.add(objectKey);
    const rec = await this.uploadFor(objectKey, file, size);
    const count = Math.ceil(size / partBytes);
    const fh = await open(file, 'r');
    try {
      for (let n = 1; n <= count; n++) {
        if (rec.parts[n]) { this.result.parts.resumed++; continue; }
        const length = Math.min(partBytes, size - (n - 1) * partBytes);
        const body = Buffer.alloc(length);
        await fh.read(body, 0, length, (n - 1) * partBytes);
        const r = await client.send(new UploadPartCommand({ Bucket: this.bucket, Key: objectKey, UploadId: rec.uploadId, PartNumber: n, Body: body, ContentLength: length }));
        rec.parts[n] = r.ETag!;
        writeState(this.opts.stateFile, this.state);
        this.result.parts.sent++;
        if (this.result.parts.sent === 1) await this.opts.pause?.('part');
      }
      const parts = Array.from({ length: count }, (_, i) => ({ PartNumber: i + 1, ETag: rec.parts[i + 1] }));
      await client.send(new CompleteMultipartUploadCommand({ Bucket: this.bucket, Key: objectKey, UploadId: rec.uploadId, MultipartUpload: { Parts: parts } }));
    } catch (err) {
      if (!again && (err as { name?: string }).name === 'NoSuchUpload') {
        delete this.uploads[objectKey];
        return this.putInParts(objectKey, file, size, true);
      }
      throw err; // the recorded parts stay for the next publish
    } finally {
      await fh.close();
    }
    delete this.uploads[objectKey];
    writeState(this.opts.stateFile, this.state);
  }

  /** The recorded upload of this key for this very file, or a new one (recorded before any part is sent). */
  private async uploadFor(objectKey: string, file: string, size: number): Promise<UploadState> {
    const { mtimeMs } = statSync(file);
    let rec: UploadState | undefined = this.uploads[objectKey];
    if (rec && (rec.size !== size || rec.mtimeMs !== mtimeMs || rec.partBytes !== PART_BYTES)) {
      await this.abortUpload(objectKey, rec.uploadId);
      rec = undefined;
    }
    if (!rec) {
      const created = await this.opts.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: objectKey }));
      rec = this.uploads[objectKey] = { uploadId: created.UploadId!, size, mtimeMs, partBytes: PART_BYTES, parts: {} };
      writeState(this.opts.stateFile, this.state);
    }
    return rec;
  }

  /** Gives up an upload nothing will complete (its file changed or is gone); storage without the call keeps it. */
  private async abortUpload(objectKey: string, uploadId: string): Promise<void> {
    await this.opts.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: objectKey, UploadId: uploadId })).catch(() => undefined);
    delete this.uploads[objectKey];
  }

  /** Uploads an earlier publish began for objects this one no longer sends (their file was superseded). */
  async abortUnstarted(): Promise<void> {
    for (const [objectKey, rec] of Object.entries(this.uploads)) if (!this.started.has(objectKey)) await this.abortUpload(objectKey, rec.uploadId);
  }
}

/** Hashes and counts each changed partition's files, queues their uploads, and returns the manifests they make. */
async function queuePartitions(changed: readonly string[], local: ReadonlyMap<string, LocalFile[]>, ctx: SyncContext): Promise<Map<string, PartitionCommit>> {
  const db = changed.length ? await createDuckdb(':memory:') : undefined;
  const conn = await db?.connect();
  const manifests = new Map<string, PartitionCommit>();
  try {
    for (const p of changed) manifests.set(p, await queuePartition(p, local.get(p) ?? [], conn!, ctx));
  } catch (err) {
    await ctx.uploads.settle(); // the uploads already queued end before the error is reported
    throw err;
  } finally {
    conn?.closeSync();
    db?.closeSync();
  }
  return manifests;
}

/** One partition's files: hashed and counted (or known from the state), their uploads queued. */
async function queuePartition(p: string, files: readonly LocalFile[], conn: DuckDBConnection, ctx: SyncContext): Promise<PartitionCommit> {
  const { state, result, opts } = ctx;
  const [table, part] = p.split('/');
  const entries: ManifestFile[] = [];
  const next: Record<string, StateFile> = {};
  for (const f of files) {
    const known = state.partitions[p]?.[f.name];
    const same = known && known.size === f.size && known.mtimeMs === f.mtimeMs;
    const sha256 = same ? known.sha256 : await sha256Of(f.file);
    const rows = same ? known.rows : Number((await conn.runAndReadAll(`SELECT num_rows FROM parquet_file_metadata(${lit(f.file)})`)).getRows()[0][0]);
    next[f.name] = { size: f.size, mtimeMs: f.mtimeMs, sha256, rows };
    const entry = { name: objectName(f.name, sha256), source: f.name, rows, bytes: f.size, sha256 };
    entries.push(entry);
    ctx.uploads.enqueue(async () => {
      if (await ctx.uploads.put(ctx.key(`parquet/${p}/${entry.name}`), f.file, f.size)) {
        result.uploaded.files++;
        result.uploaded.bytes += f.size;
        if (result.uploaded.files === 1) await opts.pause?.('file');
      }
    });
  }
  return {
    manifest: { format: 'seo-etl-lake-manifest/1', table, snapshot_date: part.slice('snapshot_date='.length), rows: entries.reduce((a, e) => a + e.rows, 0), files: entries },
    state: next,
  };
}

/** The raw archive's closed files the lake lacks, queued. */
function queueRawFiles(ctx: SyncContext): void {
  const { state, result } = ctx;
  for (const r of scanRaw(ctx.opts.rawDir)) {
    if (state.raw[r.rel] === r.size) continue;
    ctx.uploads.enqueue(async () => {
      if (await ctx.uploads.put(ctx.key(`raw/${r.rel}`), r.file, r.size)) { result.raw.files++; result.raw.bytes += r.size; }
      state.raw[r.rel] = r.size;
    });
  }
}

/** Each changed partition's manifest and marker, then what no manifest names any more removed. */
async function commitPartitions(manifests: ReadonlyMap<string, PartitionCommit>, ctx: SyncContext): Promise<void> {
  const { client, location: { bucket } } = ctx.opts;
  for (const [p, { manifest }] of manifests) {
    const dir = `parquet/${p}`;
    const body = Buffer.from(`${JSON.stringify(manifest, null, 1)}\n`);
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: ctx.key(`${dir}/${MANIFEST}`), Body: body, ContentLength: body.length, ContentType: 'application/json' }));
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: ctx.key(`${dir}/${SUCCESS}`), Body: Buffer.alloc(0), ContentLength: 0 }));
    ctx.result.manifests++;
  }
  // 3. What no manifest names any more.
  for (const [p, { manifest, state: next }] of manifests) {
    const dir = ctx.key(`parquet/${p}/`);
    const keep = new Set([MANIFEST, SUCCESS, ...manifest.files.map((f) => f.name)]);
    ctx.result.removed += await deleteKeys(client, bucket, (await listKeys(client, bucket, dir)).filter((k) => !keep.has(k.slice(dir.length))));
    ctx.state.partitions[p] = next;
  }
}

/** Reads a manifest from the bucket (undefined when the partition has none). */
export async function readManifest(client: S3Client, location: LakeLocation, table: string, snapshotDate: string): Promise<Manifest | undefined> {
  try {
    const r = await client.send(new GetObjectCommand({ Bucket: location.bucket, Key: `${location.prefix}parquet/${table}/snapshot_date=${snapshotDate}/${MANIFEST}` }));
    return JSON.parse(await r.Body!.transformToString()) as Manifest;
  } catch (err) {
    if ((err as { name?: string }).name === 'NoSuchKey' || (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return undefined;
    throw err;
  }
}

/** Every key under a prefix. */
export async function listKeys(client: S3Client, bucket: string, prefix: string): Promise<string[]> {
  const out: string[] = [];
  let token: string | undefined;
  do {
    const r = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    for (const o of r.Contents ?? []) if (o.Key) out.push(o.Key);
    token = r.IsTruncated ? r.NextContinuationToken : undefined;
  } while (token);
  return out;
}

async function deleteKeys(client: S3Client, bucket: string, keys: readonly string[]): Promise<number> {
  for (let i = 0; i < keys.length; i += 1000) {
    const batch = keys.slice(i, i + 1000);
    const r = await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }));
    if (r.Errors?.length) throw new Error(`could not remove ${r.Errors.length} object(s) from the lake, first ${r.Errors[0].Key}: ${r.Errors[0].Message}`);
  }
  return keys.length;
}

/** `<table>/snapshot_date=<day>` -> its Parquet files (final names only; `.part-*.tmp-*` files are being written). */
function scanParquet(dir: string): Map<string, LocalFile[]> {
  const out = new Map<string, LocalFile[]>();
  if (!existsSync(dir)) return out;
  for (const table of readdirSync(dir, { withFileTypes: true })) {
    if (!table.isDirectory()) continue;
    for (const part of readdirSync(path.join(dir, table.name), { withFileTypes: true })) {
      if (!part.isDirectory() || !PARTITION.test(part.name)) continue;
      const files: LocalFile[] = [];
      for (const f of readdirSync(path.join(dir, table.name, part.name))) {
        if (!SOURCE.test(f)) continue;
        const file = path.join(dir, table.name, part.name, f);
        const st = statSync(file);
        files.push({ name: f, file, size: st.size, mtimeMs: st.mtimeMs });
      }
      if (files.length) out.set(`${table.name}/${part.name}`, files.sort((a, b) => a.name.localeCompare(b.name)));
    }
  }
  return out;
}

/** The raw archive's closed files, as `<day>/<file>`. */
function scanRaw(dir: string): { rel: string; file: string; size: number }[] {
  const out: { rel: string; file: string; size: number }[] = [];
  if (!existsSync(dir)) return out;
  for (const day of readdirSync(dir, { withFileTypes: true })) {
    if (!day.isDirectory()) continue;
    for (const f of readdirSync(path.join(dir, day.name))) {
      if (!f.endsWith('.ndjson.gz')) continue;
      const file = path.join(dir, day.name, f);
      out.push({ rel: `${day.name}/${f}`, file, size: statSync(file).size });
    }
  }
  return out.sort((a, b) => a.rel.localeCompare(b.rel));
}

function samePartition(files: LocalFile[] | undefined, known: Record<string, StateFile> | undefined): boolean {
  if (!files || !known) return !files && !known;
  return files.length === Object.keys(known).length && files.every((f) => known[f.name]?.size === f.size && known[f.name]?.mtimeMs === f.mtimeMs);
}

function sha256Of(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(file).on('data', (c) => h.update(c)).on('error', reject).on('end', () => resolve(h.digest('hex')));
  });
}

function readState(file: string, target: string): LakeState {
  const empty: LakeState = { version: 1, target, partitions: {}, raw: {} };
  if (!existsSync(file)) return empty;
  try {
    const s = JSON.parse(readFileSync(file, 'utf8')) as LakeState;
    return s.version === 1 && s.target === target ? s : empty; // another lake: everything is checked against it anew
  } catch {
    return empty;
  }
}

function writeState(file: string, state: LakeState): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(state));
  renameSync(tmp, file);
}
