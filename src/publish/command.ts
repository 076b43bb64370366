/**
 * `seo-etl tables`: what readers can query in the published warehouse, with row counts.
 *
 * It opens only the published file, read-only, like any other reader: it never waits for a run and never blocks
 * one (the job works on data/work/ and renames a finished copy over the published file).
 */
import path from 'node:path';
import { existsSync, readdirSync, statSync } from 'node:fs';
import type { DuckDBInstance } from '@duckdb/node-api';
import { describeService, otherDataFolder, serviceOfRun, type Service } from '../config/service.js';
import { loadConfig } from '../config/index.js';
import { AVAILABLE_TABLES, familyOf, heldOf } from '../normalize/catalog.js';
import { CATALOG } from '../families/index.js';
import { ENDPOINTS } from '../api/catalog.js';
import { STEP_KINDS } from '../catalog/endpoint.js';
import { lit, q } from '../load/ddl.js';
import { EXIT, UserError } from '../exit.js';
import { warehousePaths } from '../config/data-paths.js';
import { ENGINES, ddlPreamble, externalTableDdl, type Engine } from './parquet-ddl.js';
import { lakeEndpoint } from '../config/lake.js';
import { createDuckdb } from '../load/threads.js';
import { pgName } from '../normalize/pg-name.js';

export interface PublishedTable { name: string; rows: number; description: string | null }
export interface PublishedView { name: string; description: string | null }

export interface PublishedListing {
  warehouse: string;
  published: boolean;
  bytes?: number;
  /** When the file was last replaced (ISO, UTC). */
  publishedAt?: string;
  lastRun?: { runId: string; status: string; runDate: string; finishedAt: string | null } | null;
  tables: PublishedTable[];
  views: PublishedView[];
}

export class WarehouseLockedError extends Error {
  readonly exitCode = EXIT.locked;
  constructor(file: string, cause: string) {
    super(`cannot open ${file} read-only: another process holds it open for writing (${cause}). ` +
      'A run applying its changes holds it for a few seconds at its end: try again then. Readers must open the published warehouse read-only (Python: duckdb.connect(path, read_only=True)); close any other writing session and try again.');
    this.name = 'LockedError';
  }
}

/** Lists the published warehouse's tables (with exact row counts) and views, read-only. */
export async function listPublished(file: string): Promise<PublishedListing> {
  if (!existsSync(file)) return { warehouse: file, published: false, tables: [], views: [] };
  const st = statSync(file);
  let instance: DuckDBInstance;
  try {
    instance = await createDuckdb(file, { access_mode: 'READ_ONLY' });
  } catch (err) {
    const msg = (err as Error).message ?? String(err);
    if (/lock/i.test(msg)) throw new WarehouseLockedError(file, msg.split('\n')[0]);
    throw err;
  }
  const conn = await instance.connect();
  try {
    const rowsOf = async (sql: string) => (await conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
    const tables = (await rowsOf(`SELECT table_name AS name, comment FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' AND NOT temporary`))
      .map((r) => ({ name: String(r.name), description: (r.comment as string | null) || null }));
    const counts = new Map<string, number>();
    if (tables.length) {
      const sql = tables.map((t) => `SELECT ${lit(t.name)} AS name, count(*) AS n FROM ${q(t.name)}`).join(' UNION ALL ');
      for (const r of await rowsOf(sql)) counts.set(String(r.name), Number(r.n));
    }
    const views = (await rowsOf(`SELECT view_name AS name, comment FROM duckdb_views() WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal AND NOT temporary ORDER BY view_name`))
      .map((r) => ({ name: String(r.name), description: (r.comment as string | null) || null }));
    let lastRun: PublishedListing['lastRun'] = null;
    if (tables.some((t) => t.name === '_runs')) {
      const [r] = await rowsOf(`SELECT run_id, status, run_date, strftime(finished_at, '%Y-%m-%dT%H:%M:%SZ') AS finished_at FROM _runs ORDER BY updated_at DESC, run_id DESC LIMIT 1`);
      if (r) lastRun = { runId: String(r.run_id), status: String(r.status), runDate: String(r.run_date), finishedAt: (r.finished_at as string | null) ?? null };
    }
    return {
      warehouse: file,
      published: true,
      bytes: st.size,
      publishedAt: st.mtime.toISOString(),
      lastRun,
      tables: tables.map((t) => ({ ...t, rows: counts.get(t.name) ?? 0 })).sort(byReadingOrder),
      views,
    };
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** Catalog tables in catalog order, then any other table, then the ledger (`_`-prefixed). */
function byReadingOrder(a: { name: string }, b: { name: string }): number {
  const rank = (n: string) => CATALOG.position(n) ?? (n.startsWith('_') ? 1e6 : 1e5);
  return rank(a.name) - rank(b.name) || a.name.localeCompare(b.name);
}

export function formatListing(l: PublishedListing, cwd = process.cwd(), service?: Service): string {
  const rel = path.relative(cwd, l.warehouse);
  const shown = rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : l.warehouse;
  if (!l.published) {
    return [
      `no published warehouse yet: ${shown} does not exist.`,
      'It is written when a run finishes: seo-etl run pipelines/nightly.yaml (or resume an unfinished run with seo-etl resume).',
      '',
    ].join('\n');
  }
  const lines: string[] = [];
  const run = l.lastRun ? `; last run ${l.lastRun.runId} ${l.lastRun.status}` : '';
  lines.push(`published warehouse: ${shown} (${formatBytes(l.bytes ?? 0)}, published ${l.publishedAt!.replace('T', ' ').replace(/\.\d+Z$/, ' UTC')}${run})`);
  if (service) lines.push(`data from: ${describeService(service)}`);
  lines.push('');
  const width = Math.max(5, ...l.tables.map((t) => t.name.length));
  const rowsWidth = Math.max(4, ...l.tables.map((t) => t.rows.toLocaleString('en-US').length));
  lines.push(`${'table'.padEnd(width)}  ${'rows'.padStart(rowsWidth)}  description`);
  for (const t of l.tables) lines.push(`${t.name.padEnd(width)}  ${t.rows.toLocaleString('en-US').padStart(rowsWidth)}  ${firstSentence(t.description)}${inPostgres(t.name)}`);
  if (!l.tables.length) lines.push('(no tables)');
  if (l.views.length) {
    lines.push('');
    const vw = Math.max(4, ...l.views.map((v) => v.name.length));
    lines.push(`${'view'.padEnd(vw)}  question it answers (docs/analysis.md)`);
    for (const v of l.views) lines.push(`${v.name.padEnd(vw)}  ${firstSentence(v.description)}`);
  }
  lines.push('');
  lines.push('Every column is explained in docs/tables.md (the data dictionary); the views and how to connect notebooks and BI tools in docs/analysis.md.');
  lines.push('');
  return lines.join('\n');
}

/** Where PostgreSQL keeps a table under a shorter name (63 bytes at most): that name, to find it there. */
const inPostgres = (name: string) => (pgName(name) === name ? '' : ` (PostgreSQL: ${pgName(name)})`);

function firstSentence(s: string | null, max = 100): string {
  if (!s) return '';
  const m = /^(.+?[.?!])(\s|$)/.exec(s);
  const one = m ? m[1] : s;
  return one.length > max ? `${one.slice(0, max - 3)}...` : one;
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return `${v.toFixed(1)} ${units[i]}`;
}

export interface TablesCommandOptions {
  root: string;
  json?: boolean;
  /** Print external-table DDL over the Parquet export for this engine instead of the listing. */
  ddl?: string;
  location?: string;
  schema?: string;
  /** Instead: every result kind the registry's families declare, with the tables its results land in. */
  available?: boolean;
  env?: NodeJS.ProcessEnv;
  out?: NodeJS.WritableStream;
}

/** `tables --available`: each result kind, the endpoints answering it, those a pipeline step names, and its tables (root first). */
type AvailableKind = { kind: string; family: string; endpoints: string[]; steps: string[]; tables: string[]; postgres: Record<string, string> };
export function availableListing(): AvailableKind[] {
  const out: AvailableKind[] = [];
  for (const root of AVAILABLE_TABLES.filter((t) => t.parent === null && t.resultKind)) {
    const kinds = [root.resultKind!, ...(root.alsoResultKinds ?? [])];
    const endpoints = ENDPOINTS.filter((e) => kinds.includes(e.result));
    const tables = familyOf(root.name).map((t) => t.name);
    for (const kind of kinds) {
      const answering = endpoints.filter((e) => e.result === kind);
      // A task's results come from its getter; the step names the endpoint that posts it.
      const steps = [...new Set(answering.flatMap((e) => (STEP_KINDS.has(e.kind) ? [e.id] : e.kind === 'task_get' && e.postId ? [e.postId] : [])))];
      // The tables PostgreSQL keeps under a shorter name, by their full name.
      const postgres = Object.fromEntries(tables.filter((t) => pgName(t) !== t).map((t) => [t, pgName(t)]));
      out.push({ kind, family: endpoints[0]?.api ?? '', endpoints: answering.map((e) => e.id), steps, tables, postgres });
    }
  }
  return out;
}

/** Step endpoints shown on a line of `tables --available` at most (--json lists them all). */
const STEPS_SHOWN = 4;

/** One result kind of `tables --available`: what a pipeline step names for it, and the tables it lands in. Pure. */
export function availableLine(k: ReturnType<typeof availableListing>[number]): string {
  const more = k.steps.length > STEPS_SHOWN ? `, and ${k.steps.length - STEPS_SHOWN} more (--json)` : '';
  const steps = k.steps.length ? `step endpoint${k.steps.length === 1 ? '' : 's'}: ${k.steps.slice(0, STEPS_SHOWN).join(', ')}${more}` : 'read by the run itself, not a step';
  return `${k.kind} (${k.family}; ${steps})\n  tables: ${k.tables.map((t) => `${t}${inPostgres(t)}`).join(', ')}`;
}

export async function tablesCommand(opts: TablesCommandOptions): Promise<number> {
  const config = loadConfig({ root: opts.root, env: opts.env ?? process.env });
  const dataDir = path.resolve(opts.root, config.warehouse.dir);
  const out = opts.out ?? process.stdout;
  if (opts.available) {
    const list = availableListing();
    if (opts.json) out.write(`${JSON.stringify(list, null, 2)}\n`);
    else for (const k of list) out.write(`${availableLine(k)}\n`);
    return EXIT.ok;
  }
  if (opts.ddl !== undefined || opts.location !== undefined || opts.schema !== undefined) {
    out.write(ddlScript(opts, path.join(dataDir, 'parquet'), config.lake.url ? { url: config.lake.url, env: opts.env ?? process.env } : undefined));
    return EXIT.ok;
  }
  const listing = await listPublished(warehousePaths(dataDir).published);
  const service = listing.lastRun ? serviceOfRun(dataDir, listing.lastRun.runId) : undefined;
  if (opts.json) {
    const tables = listing.tables.map((t) => ({ ...t, ...(pgName(t.name) !== t.name ? { postgres: pgName(t.name) } : {}) }));
    out.write(`${JSON.stringify({ ...listing, tables, service: service ?? null, dictionary: 'docs/tables.md', analysis: 'docs/analysis.md' }, null, 2)}\n`);
  } else {
    out.write(formatListing(listing, process.cwd(), service));
    const other = otherDataFolder(opts.root, config);
    if (other) out.write(`${other.kind === 'sandbox' ? 'Sandbox' : "The live service's"} data is in ${other.dir}: ${other.how.replace('status', 'tables')}\n`);
  }
  return EXIT.ok;
}

/** `tables --ddl <engine>`: one statement per catalog table over the Parquet export (docs/parquet.md). */
export function ddlScript(opts: Pick<TablesCommandOptions, 'ddl' | 'location' | 'schema'>, localParquet: string, lake?: { url: string; env: NodeJS.ProcessEnv }): string {
  if (!opts.ddl) throw new UserError(`--ddl: give the engine (${ENGINES.join(', ')}); --location and --schema go with it`);
  const engine = opts.ddl.toLowerCase();
  if (!(ENGINES as readonly string[]).includes(engine)) throw new UserError(`--ddl: must be one of ${ENGINES.join(', ')}, got '${opts.ddl}'`);
  if (opts.schema !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/.test(opts.schema)) {
    throw new UserError(`--schema: letters, digits and '_' (a Trino schema may be written catalog.schema), got '${opts.schema}'`);
  }
  const endpoint = lake ? lakeEndpoint(lake.env)?.value : undefined;
  const location = opts.location ?? (lake ? lakeParquetLocation(engine as Engine, lake.url, endpoint) : localParquet);
  const ddlOpts = { location, schema: opts.schema, endpoint, region: lake?.env.AWS_REGION || lake?.env.AWS_DEFAULT_REGION };
  const head = `-- External tables over the seo-etl Parquet export at ${location} (${engine}); generated from the table catalog.\n-- Layout and types: docs/parquet.md. Columns: docs/tables.md.\n`;
  const preamble = ddlPreamble(engine as Engine, ddlOpts);
  return `${head}\n${preamble.length ? `${preamble.join('\n')}\n\n` : ''}${exportedTables(localParquet).map((t) => externalTableDdl(engine as Engine, t.name, ddlOpts)).join('\n\n')}\n`;
}

/** The tables every warehouse has and those the local Parquet export holds a folder of, in catalog order. */
function exportedTables(parquetDir: string) {
  const folders = existsSync(parquetDir) ? readdirSync(parquetDir) : [];
  return heldOf(folders);
}

/**
 * The lake's Parquet folder as an engine names it: Spark's Hadoop client reads s3a://, BigQuery reads a GCS bucket
 * (the lake is one when its endpoint is GCS's interoperability endpoint) as gs://. Pure.
 */
export function lakeParquetLocation(engine: Engine, url: string, endpoint?: string): string {
  const parquet = `${url.replace(/\/+$/, '')}/parquet`;
  if (engine === 'spark') return parquet.replace(/^s3:/, 's3a:');
  if (engine === 'bigquery' && endpoint && /(^|\.)storage\.googleapis\.com$/.test(new URL(endpoint).hostname)) return parquet.replace(/^s3:/, 'gs:');
  return parquet;
}
