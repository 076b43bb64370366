/**
 * The lake destination: the Parquet export and the raw archive on S3-protocol object storage (src/publish/lake/sync.ts
 * says how readers are kept whole). DuckDB stays the source of truth: a failed upload is an outcome, not an error,
 * the run says so and exits EXIT.lake, and the next publish sends what this one did not.
 */
import path from 'node:path';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { parseLakeUrl, type LakeLocation } from '../../config/lake.js';
import { holderJson, holderRefusal, parseHolder, type Holder } from '../holder.js';
import type { WarehousePaths } from '../../config/data-paths.js';
import { lakeClient } from './s3.js';
import { syncLake, type LakeSyncResult } from './sync.js';

export type LakeOutcome =
  | ({ status: 'published'; target: string; durationMs: number } & LakeSyncResult)
  | { status: 'failed'; target: string; error: string; durationMs: number }
  | { status: 'refused'; target: string; error: string; durationMs: number };

export interface PublishToLakeOptions {
  url: string;
  paths: WarehousePaths;
  env: NodeJS.ProcessEnv;
  /** The `lake` pause point (src/pause.ts): after the first data file, the first part of a multipart upload, and before the first manifest. */
  pause?: (step: 'file' | 'part' | 'manifests') => Promise<void>;
  logger?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** The data folder publishing (src/publish/holder.ts): recorded in the lake, and another's refused unless `takeOver`. */
  holder?: Holder;
  takeOver?: boolean;
}

/** The object that records which data folder and service kind the lake holds (readers skip `_` names). */
const holderKey = (l: LakeLocation) => `${l.prefix}_seo-etl-holder.json`;

async function readHolderObject(client: S3Client, location: LakeLocation): Promise<Holder | undefined> {
  try {
    const r = await client.send(new GetObjectCommand({ Bucket: location.bucket, Key: holderKey(location) }));
    return parseHolder(await r.Body!.transformToString());
  } catch (err) {
    const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
    if (e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) return undefined;
    throw err;
  }
}

/** What the lake at `url` holds (destination.ts verifies it before anything is posted). */
export async function readLakeHolder(url: string, env: NodeJS.ProcessEnv): Promise<Holder | undefined> {
  const location = parseLakeUrl(url);
  if ('problem' in location) return undefined;
  const client = lakeClient(env);
  try {
    return await readHolderObject(client, location);
  } finally {
    client.destroy();
  }
}

/** Where the lake destination remembers what it has published (a cache; src/publish/lake/sync.ts). */
export const lakeStateFile = (paths: WarehousePaths): string => path.join(paths.dir, 'lake-state.json');

/** Publishes to the lake. Never throws for the storage's refusals or a lost connection: they come back as `failed`. */
export async function publishToLake(opts: PublishToLakeOptions): Promise<LakeOutcome> {
  const started = Date.now();
  const location = parseLakeUrl(opts.url);
  if ('problem' in location) return { status: 'failed', target: opts.url, error: `lake.url ${location.problem}`, durationMs: 0 };
  const target = location.url;
  const client = lakeClient(opts.env);
  try {
    if (opts.holder) {
      const held = await readHolderObject(client, location);
      const why = opts.takeOver ? undefined : holderRefusal(held, opts.holder, `the lake at ${target}`);
      if (why) {
        opts.logger?.warn({ target, error: why }, 'lake publish refused: the lake holds another data folder\'s data');
        return { status: 'refused', target, error: why, durationMs: Date.now() - started };
      }
      if (!held || holderJson(held) !== holderJson(opts.holder)) {
        const body = Buffer.from(holderJson(opts.holder));
        await client.send(new PutObjectCommand({ Bucket: location.bucket, Key: holderKey(location), Body: body, ContentLength: body.length, ContentType: 'application/json' }));
      }
    }
    const r = await syncLake({ client, location, parquetDir: opts.paths.parquet, rawDir: opts.paths.raw, stateFile: lakeStateFile(opts.paths), pause: opts.pause });
    const outcome: LakeOutcome = { status: 'published', target, durationMs: Date.now() - started, ...r };
    opts.logger?.info({ target, partitions: r.partitions, files: r.uploaded.files, bytes: r.uploaded.bytes, raw_files: r.raw.files, removed: r.removed, ms: outcome.durationMs }, 'published to the lake');
    return outcome;
  } catch (err) {
    const error = describe(err);
    opts.logger?.warn({ target, error }, 'lake publish failed; DuckDB and Parquet are complete, the next run catches the lake up');
    return { status: 'failed', target, error, durationMs: Date.now() - started };
  } finally {
    client.destroy();
  }
}

function describe(err: unknown): string {
  const e = err as { name?: string; message?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  const status = e?.$metadata?.httpStatusCode;
  const msg = e?.message || e?.name || String(err);
  return [msg, e?.code && !msg.includes(e.code) ? e.code : undefined, status ? `HTTP ${status}` : undefined].filter(Boolean).join(', ');
}

/** One line for a run's summary. */
export function describeLake(o: LakeOutcome): string {
  if (o.status === 'refused') return `Lake: NOT published: ${o.error}`;
  if (o.status === 'failed') return `Lake: NOT published to ${o.target}: ${o.error}. DuckDB and Parquet are complete; the lake is behind until \`seo-etl resume\` (or the next run, or reprocess) catches it up.`;
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
  return `Lake: published to ${o.target}: ${o.partitions} partition(s) changed, ${o.uploaded.files} Parquet file(s) (${mb(o.uploaded.bytes)}) and ${o.raw.files} raw file(s) (${mb(o.raw.bytes)}) sent, ${o.removed} superseded file(s) removed; ${o.durationMs} ms`;
}

