/**
 * The PostgreSQL destination: publishes the warehouse's catalog tables, the run history (`_runs`, `_tasks`), the
 * curated views and the data dictionary (comments) into one schema, for BI tools that cannot open a DuckDB file.
 * DuckDB stays the source of truth; this is a copy that a failed publish never corrupts and the next one catches up.
 *
 * How readers are kept whole: rows are first COPYed into temporary tables of this session (invisible to anyone
 * else, and no lock on the published tables), then ONE short transaction deletes the rows being replaced,
 * inserts the staged ones and records how far each table is published. Readers see the previous state until the
 * commit and the new one after; deletes and inserts take row locks only, so a reader is never made to wait.
 *
 * What is sent: per table, `_publish_state` records the newest `_loaded_at` (ledger: `updated_at`) published.
 * The tasks with a row loaded since then, in any table (a re-collected task rewrites its `tasks` row), are
 * replaced as a unit: their rows are deleted in PostgreSQL and DuckDB's current rows of those tasks inserted,
 * which also removes rows a re-collection no longer has. A table PostgreSQL lacks, or whose row count would not
 * come out equal to DuckDB's (a reprocess, a copy changed by hand), is sent whole.
 */
import { createReadStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { TableDef } from '../../catalog/table.js';
import { catalogTables, PG_VIEWS, STATE_TABLE, compatFunctions, createTableSql, keySql, materializedName, lit, q, relationObjects, stateTableSql, tableComments, viewDdl, viewRelations, type PgTable } from './sql.js';
import { DuckSource, ledgerTables } from './duck.js';
import { redactText, redactUrl } from './config.js';
import { STAGE_PREFIX } from './stages.js';
import { EXIT } from '../../exit.js';
import { DestinationHeldError, holderJson, holderRefusal, parseHolder, type Holder } from '../holder.js';

export { redactUrl } from './config.js';
export { STAGE_PREFIX, staleStages, removeStaleStages } from './stages.js';

export interface PublishToPostgresOptions {
  /** postgres:// URL (its password is never logged). */
  url: string;
  schema: string;
  /** The DuckDB warehouse file to publish from; it is opened read-only and must not be open for writing. */
  warehouse: string;
  /** The run being published, recorded beside each table's state. */
  runId?: string;
  /** Where CSV files are staged for COPY (removed afterwards); beside the warehouse by default. */
  stageDir?: string;
  logger?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; debug?(obj: object, msg: string): void };
  connectTimeoutMs?: number;
  /** The data folder publishing (src/publish/holder.ts): recorded, and another's refused unless `takeOver`. */
  holder?: Holder;
  takeOver?: boolean;
  /** Test seam: called after staging, before the publishing transaction. */
  beforeCommit?: () => Promise<void>;
}

export type TableMode = 'new' | 'full' | 'incremental' | 'unchanged';

export interface TableOutcome { table: string; mode: TableMode; inserted: number; deleted: number }

export type PostgresOutcome =
  | {
    status: 'published'; target: string; schema: string;
    tables: TableOutcome[]; inserted: number; deleted: number; csvBytes: number;
    views: number; viewsFailed: { view: string; error: string }[]; addedColumns: string[];
    /** Columns the catalog renamed, renamed in place (`<table>.<old> -> <new>`). */
    renamedColumns: string[];
    /** Foreign keys and join indexes added by this publish, and those PostgreSQL refused (rows without their parent). */
    relationsAdded: number; relationsFailed: { name: string; error: string }[];
    /** Columns converted from json to jsonb (a schema published before jsonb). */
    jsonbColumns: string[];
    /** Whole publish, and the final transaction alone (what readers could notice). */
    durationMs: number; commitMs: number;
    /** Materialized views refreshed (a table they read changed) and the refreshes' time, inside the transaction. */
    refreshed: string[]; refreshMs: number;
    /** Materialized views PostgreSQL did not refresh: they show the previous publish's rows. */
    refreshFailed: { view: string; error: string }[];
  }
  | { status: 'failed'; target: string; schema: string; error: string; durationMs: number }
  /** The schema holds another data folder's or service kind's data: nothing was sent (exit 2). */
  | { status: 'refused'; target: string; schema: string; error: string; durationMs: number };

interface Plan {
  table: PgTable;
  mode: TableMode;
  since: string | null;
  group?: number;
  stage?: string;
  rows?: number;
}


/** Publishes the warehouse to PostgreSQL. Never throws for the database's refusals: they come back as `failed`. */
export async function publishToPostgres(opts: PublishToPostgresOptions): Promise<PostgresOutcome> {
  const started = Date.now();
  const target = redactUrl(opts.url);
  const schema = opts.schema;
  const stageDir = opts.stageDir ?? path.join(path.dirname(opts.warehouse), `${STAGE_PREFIX}${process.pid}`);
  const client = new pg.Client({ connectionString: opts.url, connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000, application_name: 'seo-etl' });
  let connectionError: Error | undefined;
  client.on('error', (err) => { connectionError = err; });
  let duck: DuckSource | undefined;
  try {
    await client.connect();
    await client.query(`SET TimeZone = 'UTC'`);
    const [{ locked }] = (await client.query('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [`seo-etl:${schema}`])).rows;
    if (!locked) throw new Error(`another seo-etl process is publishing to schema ${schema}`);
    // Created only when missing: CREATE SCHEMA needs the database's CREATE privilege even when the schema exists,
    // and a writer may own a schema an administrator made for it.
    const { rowCount } = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (!rowCount) await client.query(`CREATE SCHEMA ${q(schema)}`);
    await client.query(stateTableSql(schema));
    if (opts.holder && !opts.takeOver) {
      const held = await client.query(`SELECT fingerprint FROM ${q(schema)}.${STATE_TABLE} WHERE object = $1`, [HOLDER_ROW]);
      const why = holderRefusal(parseHolder(held.rows[0]?.fingerprint), opts.holder, `PostgreSQL schema ${schema} at ${target}`);
      if (why) throw new DestinationHeldError(why);
    }
    duck = await DuckSource.open(opts.warehouse);
    await mkdir(stageDir, { recursive: true });
    const result = await publish(client, duck, { ...opts, stageDir });
    const outcome: PostgresOutcome = { status: 'published', target, schema, ...result, durationMs: Date.now() - started };
    // A count at info; the list of every table changed (10 KB on a full publish) only at debug.
    const changed = outcome.tables.filter((t) => t.mode !== 'unchanged');
    opts.logger?.info({ target, schema, inserted: outcome.inserted, deleted: outcome.deleted, commit_ms: outcome.commitMs, ms: outcome.durationMs, tables_changed: changed.length, tables_unchanged: outcome.tables.length - changed.length }, 'published to PostgreSQL');
    opts.logger?.debug?.({ schema, tables: changed.map((t) => `${t.table}:${t.mode}`) }, 'PostgreSQL tables published');
    for (const f of outcome.viewsFailed) opts.logger?.warn({ view: f.view, error: f.error }, 'view not created in PostgreSQL');
    for (const f of outcome.refreshFailed) opts.logger?.warn({ view: f.view, error: f.error }, 'materialized view not refreshed in PostgreSQL');
    return outcome;
  } catch (err) {
    const message = redactText(describe(connectionError ?? err), opts.url);
    if (err instanceof DestinationHeldError) {
      opts.logger?.warn({ target, schema, error: message }, 'PostgreSQL publish refused: the schema holds another data folder\'s data');
      return { status: 'refused', target, schema, error: message, durationMs: Date.now() - started };
    }
    opts.logger?.warn({ target, schema, error: message }, 'PostgreSQL publish failed; DuckDB and Parquet are complete, the next run catches PostgreSQL up');
    return { status: 'failed', target, schema, error: message, durationMs: Date.now() - started };
  } finally {
    duck?.close();
    await client.end().catch(() => undefined);
    await rm(stageDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** The `_publish_state` row recording which data folder the schema holds (its JSON in `fingerprint`). */
export const HOLDER_ROW = '(holder)';

/** Which data folder a schema holds: undefined when it holds nothing yet. Throws when the server cannot be reached. */
export async function readPostgresHolder(url: string, schema: string, connectTimeoutMs = 10_000): Promise<Holder | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs, application_name: 'seo-etl' });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query('SELECT to_regclass($1) IS NOT NULL AS present', [`${q(schema)}.${STATE_TABLE}`]);
    if (!rows[0].present) return undefined;
    const held = await client.query(`SELECT fingerprint FROM ${q(schema)}.${STATE_TABLE} WHERE object = $1`, [HOLDER_ROW]);
    return parseHolder(held.rows[0]?.fingerprint);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function describe(err: unknown): string {
  const e = err as { message?: string; code?: string; errors?: { message?: string }[] };
  const inner = e?.errors?.map((x) => x.message).filter(Boolean).join('; ');
  const msg = e?.message || inner || String(err);
  return e?.code && !msg.includes(e.code) ? `${msg} (${e.code})` : msg;
}

/** `_publish_state`'s rows by object: each table's, the views' fingerprint, the holder's. */
type PublishState = Map<string, Record<string, unknown> & { published_through: unknown; row_count: unknown; fingerprint: unknown }>;

/** Copies a DuckDB query's rows into a PostgreSQL table through a staged CSV file, counting the bytes staged. */
function csvCopier(client: pg.Client, duck: DuckSource, stageDir: string) {
  const copier = {
    bytes: 0,
    async copyIn(select: string, into: string, columns: string, values?: string[]): Promise<number> {
      const file = path.join(stageDir, `${into}.csv`);
      const rows = await duck.toCsv(select, file, values);
      copier.bytes += (await stat(file)).size;
      if (rows) await pipeline(createReadStream(file), client.query(copyFrom(`COPY ${q(into)} (${columns}) FROM STDIN (FORMAT csv)`)));
      await rm(file, { force: true });
      return rows;
    },
  };
  return copier;
}
type CsvCopier = ReturnType<typeof csvCopier>;

async function publish(client: pg.Client, duck: DuckSource, opts: PublishToPostgresOptions & { stageDir: string }) {
  const { schema } = opts;
  const held = duck.heldTables();
  const tables = [...catalogTables(held), ...(await ledgerTables())];
  const existing = await pgColumns(client, schema);
  const state: PublishState = new Map((await client.query(`SELECT object, published_through, row_count, fingerprint FROM ${q(schema)}.${STATE_TABLE}`)).rows.map((r) => [String(r.object), r]));
  const newest = {
    catalog: await duck.newestStamp(tables.filter((t) => t.family === 'catalog')),
    ledger: await duck.newestStamp(tables.filter((t) => t.family === 'ledger')),
  };

  const plans = planTables(tables, existing, state);
  const groups = groupIncremental(plans);
  const copier = csvCopier(client, duck, opts.stageDir);
  await stageChangedKeys(client, duck, tables, groups, copier);
  await settleModes(client, duck, schema, plans, state);
  await stageRows(client, duck, schema, plans, copier);
  const { addedColumns, renamedColumns } = await addNewColumns(client, schema, plans, existing);
  const views = await viewsToRecreate(client, schema, state, plans, [...addedColumns, ...renamedColumns], held);

  await opts.beforeCommit?.();
  const commitStarted = Date.now();
  const jsonColumns = (await client.query(
    `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1 AND data_type = 'json' AND table_name = ANY($2)`,
    [schema, tables.map((t) => t.name)])).rows as { table_name: string; column_name: string }[];
  const done = await inTransaction(client, () => publishTransaction(client, duck, opts, { tables, held, plans, newest, jsonColumns, ...views }));
  const commitMs = Date.now() - commitStarted;
  const { tableOutcomes, viewsFailed } = done;
  return {
    tables: tableOutcomes,
    inserted: tableOutcomes.reduce((a, t) => a + t.inserted, 0),
    deleted: tableOutcomes.reduce((a, t) => a + t.deleted, 0),
    csvBytes: copier.bytes,
    views: PG_VIEWS.length - viewsFailed.length,
    viewsFailed,
    addedColumns,
    renamedColumns,
    relationsAdded: done.relationsAdded,
    relationsFailed: done.relationsFailed,
    jsonbColumns: jsonColumns.map((c) => `${c.table_name}.${c.column_name}`),
    commitMs,
    refreshed: done.refreshed,
    refreshMs: done.refreshMs,
    refreshFailed: done.refreshFailed,
  };
}

/** Which tables go whole and which by changed units. */
function planTables(tables: readonly PgTable[], existing: ReadonlyMap<string, Set<string>>, state: PublishState): Plan[] {
  return tables.map((t) => {
    const st = state.get(t.name);
    const mode: TableMode = !existing.has(t.name) ? 'new' : !st || st.published_through === null || !t.stamp ? 'full' : 'incremental';
    return { table: t, mode, since: mode === 'incremental' ? String(st!.published_through) : null };
  });
}

interface KeyGroup { id: number; family: string; since: string }

/** One key set per family and starting point: each incremental plan learns its group. */
function groupIncremental(plans: Plan[]): Map<string, KeyGroup> {
  const groups = new Map<string, KeyGroup>();
  for (const p of plans.filter((x) => x.mode === 'incremental')) {
    const k = `${p.table.family}\u0000${p.since}`;
    if (!groups.has(k)) groups.set(k, { id: groups.size, family: p.table.family, since: p.since! });
    p.group = groups.get(k)!.id;
  }
  return groups;
}

/** The units (tasks, runs) loaded since each group's start, in DuckDB (`_keys_d`) and in PostgreSQL (`_keys`). */
async function stageChangedKeys(client: pg.Client, duck: DuckSource, tables: readonly PgTable[], groups: Map<string, KeyGroup>, copier: CsvCopier): Promise<void> {
  await duck.conn.run('CREATE OR REPLACE TEMP TABLE _keys (grp INTEGER, k VARCHAR)');
  for (const g of groups.values()) {
    const members = tables.filter((t) => t.family === g.family && t.stamp && duck.has(t.source));
    for (const t of members) {
      const stampType = t.columns.find((c) => c.name === t.stamp)!.duckType;
      await duck.conn.run(`INSERT INTO _keys SELECT DISTINCT ${g.id}, ${q(t.unit)} FROM wh.${q(t.source)} WHERE ${q(t.stamp)} > CAST($1 AS ${stampType})`, [g.since]);
    }
  }
  await duck.conn.run('CREATE OR REPLACE TEMP TABLE _keys_d AS SELECT DISTINCT grp, k FROM _keys');
  await client.query('CREATE TEMP TABLE _keys (grp integer, k text)');
  if (groups.size) {
    await copier.copyIn('SELECT grp, k FROM _keys_d', '_keys', 'grp, k');
    await client.query('CREATE INDEX ON _keys (grp, k)');
    await client.query('ANALYZE _keys');
  }
}

/** An incremental table whose count would not come out equal to DuckDB's is sent whole instead. */
async function settleModes(client: pg.Client, duck: DuckSource, schema: string, plans: Plan[], state: PublishState): Promise<void> {
  for (const p of plans) {
    const duckRows = await duck.count(p.table.source);
    // A table without a stamp (sent whole) is left as it is while its row count stands: its rows only ever grow by run.
    const held = state.get(p.table.name);
    if (!p.table.stamp && p.mode === 'full' && held && held.published_through !== null && Number(held.row_count) === duckRows) p.mode = 'unchanged';
    if (p.mode !== 'incremental') continue;
    const st = state.get(p.table.name)!;
    const unit = q(p.table.unit);
    const changedDuck = duck.has(p.table.source)
      ? Number((await duck.rows(`SELECT count(*) FROM wh.${q(p.table.source)} WHERE ${unit} IN (SELECT k FROM _keys_d WHERE grp = ${p.group})`))[0][0]) : 0;
    const { rows: [{ n }] } = await client.query(`SELECT count(*)::bigint AS n FROM ${q(schema)}.${q(p.table.name)} WHERE ${unit} IN (SELECT k FROM _keys WHERE grp = $1)`, [p.group]);
    if (Number(st.row_count) - Number(n) + changedDuck !== duckRows) p.mode = 'full';
    else if (!changedDuck && !Number(n)) p.mode = 'unchanged';
  }
}

/** Staging: COPY into temporary tables, outside any transaction that readers could notice. */
async function stageRows(client: pg.Client, duck: DuckSource, schema: string, plans: Plan[], copier: CsvCopier): Promise<void> {
  let i = 0;
  for (const p of plans) {
    if (p.mode === 'unchanged') continue;
    p.stage = `_stage_${i++}`;
    await client.query(createTableSql(schema, p.table, { name: p.stage, temp: true })[0]);
    if (!duck.has(p.table.source)) { p.rows = 0; continue; }
    const cols = p.table.columns.map((c) => `CAST(${q(c.source)} AS ${c.duckType}) AS ${q(c.name)}`).join(', ');
    const where = p.mode === 'incremental' ? ` WHERE ${q(p.table.unit)} IN (SELECT k FROM _keys_d WHERE grp = ${p.group})` : '';
    p.rows = await copier.copyIn(`SELECT ${cols} FROM wh.${q(p.table.source)}${where}`, p.stage, p.table.columns.map((c) => q(c.name)).join(', '));
  }
}

/**
 * A column the catalog gained: added (nullable, so existing rows keep theirs) in a short transaction of its own;
 * one it renamed (`table` -> `table_json`) is renamed, its rows keeping their values.
 */
async function addNewColumns(client: pg.Client, schema: string, plans: readonly Plan[], existing: ReadonlyMap<string, Set<string>>): Promise<{ addedColumns: string[]; renamedColumns: string[] }> {
  const addedColumns: string[] = [];
  const renamedColumns: string[] = [];
  for (const p of plans) {
    const have = existing.get(p.table.name);
    if (!have) continue;
    for (const c of p.table.columns.filter((x) => !have.has(x.name))) {
      await client.query(`SET lock_timeout = '30s'`);
      if (c.formerly && have.has(c.formerly)) {
        await client.query(`ALTER TABLE ${q(schema)}.${q(p.table.name)} RENAME COLUMN ${q(c.formerly)} TO ${q(c.name)}`);
        renamedColumns.push(`${p.table.name}.${c.formerly} -> ${c.name}`);
      } else {
        await client.query(`ALTER TABLE ${q(schema)}.${q(p.table.name)} ADD COLUMN IF NOT EXISTS ${q(c.name)} ${c.pgType}`);
        addedColumns.push(`${p.table.name}.${c.name}`);
      }
      await client.query(`RESET lock_timeout`);
    }
  }
  return { addedColumns, renamedColumns };
}

/** The views' DDL fingerprint, and whether this publish recreates them (their DDL or the tables under them changed). */
async function viewsToRecreate(client: pg.Client, schema: string, state: PublishState, plans: readonly Plan[], addedColumns: readonly string[], held: readonly TableDef[]): Promise<{ fingerprint: string; refreshDdl: boolean }> {
  const ddl = [...compatFunctions(schema), ...PG_VIEWS.flatMap((v) => viewDdl(schema, v, held)), ...tableComments(held)];
  const fingerprint = createHash('sha256').update(ddl.join(';\n')).digest('hex');
  // Each view and its materialized rows, of their kinds: one missing (a schema from before them) recreates them.
  const relations = PG_VIEWS.flatMap(viewRelations);
  const viewsPresent = await client.query(`SELECT count(*)::int AS n FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN unnest($2::text[], $3::text[]) AS v(name, kind) ON v.name = c.relname AND v.kind = c.relkind::text WHERE n.nspname = $1`,
  [schema, relations.map((r) => r.name), relations.map((r) => r.kind)]);
  const refreshDdl = state.get('(views)')?.fingerprint !== fingerprint || viewsPresent.rows[0].n !== relations.length || plans.some((p) => p.mode === 'new') || addedColumns.length > 0;
  return { fingerprint, refreshDdl };
}

/** Runs `work` in one transaction: committed when it returns, rolled back when it throws. */
async function inTransaction<T>(client: pg.Client, work: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const out = await work();
    await client.query('COMMIT');
    return out;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

interface TransactionInput {
  tables: readonly PgTable[];
  /** The catalog tables the DuckDB file holds: what the views and the comments are made for. */
  held: readonly TableDef[];
  plans: readonly Plan[];
  newest: Record<PgTable['family'], string | null>;
  jsonColumns: readonly { table_name: string; column_name: string }[];
  fingerprint: string;
  refreshDdl: boolean;
}

/** The one transaction readers notice: the tables' rows replaced, keys added, views refreshed or recreated. */
async function publishTransaction(client: pg.Client, duck: DuckSource, opts: PublishToPostgresOptions, input: TransactionInput) {
  const { schema } = opts;
  let { refreshDdl } = input;
  await client.query(`SET LOCAL search_path TO ${q(schema)}, public`);
  // A schema from before jsonb: its json columns become jsonb once (the views on them are dropped and recreated).
  if (input.jsonColumns.length) {
    await convertJsonColumns(client, schema, input.jsonColumns);
    refreshDdl = true;
  }
  const tableOutcomes = await replaceTables(client, duck, opts, input.plans, input.newest);
  const relations = await addRelations(client, schema, input.tables);
  // Planner statistics of what changed, before the views are computed from it (materialized views, below) and
  // rather than whenever autovacuum comes: the views' joins ran for minutes on tables the planner believed empty.
  // ANALYZE counts this transaction's rows, and blocks no reader.
  const changed = tableOutcomes.filter((x) => x.mode !== 'unchanged').map((x) => x.table);
  for (const t of changed) await client.query(`ANALYZE ${q(schema)}.${q(t)}`);
  const refreshStarted = Date.now();
  let refreshed: string[] = [];
  let refreshFailed: { view: string; error: string }[] = [];
  let viewsFailed: { view: string; error: string }[] = [];
  if (!refreshDdl && changed.length) ({ refreshed, refreshFailed } = await refreshMaterializedViews(client, schema, changed));
  if (refreshDdl) {
    viewsFailed = await recreateViews(client, schema, input.fingerprint, opts.runId, input.held);
    refreshed = PG_VIEWS.filter((v) => v.pgMaterializedKey).map((v) => materializedName(v.name))
      .filter((n) => !viewsFailed.some((f) => materializedName(f.view) === n));
  }
  const refreshMs = Date.now() - refreshStarted;
  if (opts.holder) {
    await client.query(
      `INSERT INTO ${q(schema)}.${STATE_TABLE} (object, fingerprint, run_id, published_at) VALUES ($1, $2, $3, now())
       ON CONFLICT (object) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, run_id = EXCLUDED.run_id, published_at = EXCLUDED.published_at`,
      [HOLDER_ROW, holderJson(opts.holder), opts.runId ?? null]);
  }
  return { tableOutcomes, viewsFailed, relationsAdded: relations.added, relationsFailed: relations.failed, refreshed, refreshMs, refreshFailed };
}

/** json columns to jsonb, the views on them dropped first (recreated later in the transaction). */
async function convertJsonColumns(client: pg.Client, schema: string, jsonColumns: readonly { table_name: string; column_name: string }[]): Promise<void> {
  for (const v of PG_VIEWS) await client.query(`DROP VIEW IF EXISTS ${q(schema)}.${q(v.name)} CASCADE`);
  for (const v of PG_VIEWS.filter((x) => x.pgMaterializedKey)) await client.query(`DROP MATERIALIZED VIEW IF EXISTS ${q(schema)}.${q(materializedName(v.name))} CASCADE`);
  for (const c of jsonColumns) await client.query(`ALTER TABLE ${q(schema)}.${q(c.table_name)} ALTER COLUMN ${q(c.column_name)} TYPE jsonb USING ${q(c.column_name)}::jsonb`);
}

/** Each table's rows replaced as planned from its staged copy, and how far it is now published recorded. */
async function replaceTables(client: pg.Client, duck: DuckSource, opts: PublishToPostgresOptions, plans: readonly Plan[], newest: TransactionInput['newest']): Promise<TableOutcome[]> {
  const { schema } = opts;
  const tableOutcomes: TableOutcome[] = [];
  for (const p of plans) {
    const name = `${q(schema)}.${q(p.table.name)}`;
    let deleted = 0;
    if (p.mode === 'new') await client.query(createTableSql(schema, p.table)[0]);
    else if (p.mode === 'full') deleted = (await client.query(`DELETE FROM ${name}`)).rowCount ?? 0;
    else if (p.mode === 'incremental') deleted = (await client.query(`DELETE FROM ${name} WHERE ${q(p.table.unit)} IN (SELECT k FROM _keys WHERE grp = $1)`, [p.group])).rowCount ?? 0;
    let inserted = 0;
    if (p.stage && p.rows) {
      const cols = p.table.columns.map((c) => q(c.name)).join(', ');
      inserted = (await client.query(`INSERT INTO ${name} (${cols}) SELECT ${cols} FROM ${q(p.stage)}`)).rowCount ?? 0;
    }
    if (p.mode === 'new') for (const sql of keySql(schema, p.table)) await client.query(sql);
    tableOutcomes.push({ table: p.table.name, mode: p.mode, inserted, deleted });
    const through = newest[p.table.family];
    await client.query(
      `INSERT INTO ${q(schema)}.${STATE_TABLE} (object, published_through, row_count, run_id, published_at) VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (object) DO UPDATE SET published_through = EXCLUDED.published_through, row_count = EXCLUDED.row_count, run_id = EXCLUDED.run_id, published_at = EXCLUDED.published_at`,
      [p.table.name, through, await duck.count(p.table.source), opts.runId ?? null]);
  }
  return tableOutcomes;
}

/** Foreign keys and the indexes joins use, from the catalog: those missing (new tables, an older schema) are added. */
async function addRelations(client: pg.Client, schema: string, tables: readonly PgTable[]): Promise<{ added: number; failed: { name: string; error: string }[] }> {
  const failed: { name: string; error: string }[] = [];
  let added = 0;
  const haveIndexes = new Set((await client.query('SELECT indexname FROM pg_indexes WHERE schemaname = $1', [schema])).rows.map((r) => String(r.indexname)));
  const haveKeys = new Set((await client.query(`SELECT c.conname FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = $1`, [schema])).rows.map((r) => String(r.conname)));
  for (const o of tables.flatMap((t) => relationObjects(schema, t))) {
    if ((o.kind === 'index' ? haveIndexes : haveKeys).has(o.name)) continue;
    await client.query('SAVEPOINT relation');
    try {
      await client.query(o.sql);
      await client.query('RELEASE SAVEPOINT relation');
      added++;
    } catch (err) {
      await client.query('ROLLBACK TO SAVEPOINT relation');
      failed.push({ name: `${o.table}.${o.name}`, error: describe(err) });
    }
  }
  return { added, failed };
}

/**
 * A materialized view reading a changed table is refreshed here, so readers see it agree with the tables at the
 * commit; CONCURRENTLY: they keep reading the previous rows meanwhile instead of waiting. One PostgreSQL refuses
 * (its key no longer unique) is named in the summary and its view recreated next time.
 */
async function refreshMaterializedViews(client: pg.Client, schema: string, changed: string[]): Promise<{ refreshed: string[]; refreshFailed: { view: string; error: string }[] }> {
  const refreshed: string[] = [];
  const refreshFailed: { view: string; error: string }[] = [];
  for (const v of await staleMaterializedViews(client, schema, changed)) {
    await client.query('SAVEPOINT refresh');
    try {
      await client.query(`REFRESH MATERIALIZED VIEW CONCURRENTLY ${q(schema)}.${q(v)}`);
      await client.query('RELEASE SAVEPOINT refresh');
      refreshed.push(v);
    } catch (err) {
      await client.query('ROLLBACK TO SAVEPOINT refresh');
      const hint = (err as { hint?: string })?.hint;
      refreshFailed.push({ view: v, error: `${describe(err)}${hint ? `: ${hint}` : ''}` });
      await client.query(`UPDATE ${q(schema)}.${STATE_TABLE} SET fingerprint = NULL WHERE object = '(views)'`);
    }
  }
  return { refreshed, refreshFailed };
}

/** Every view (and its materialized rows) created anew, the data dictionary's comments, and the views' fingerprint. */
async function recreateViews(client: pg.Client, schema: string, fingerprint: string, runId: string | undefined, held: readonly TableDef[]): Promise<{ view: string; error: string }[]> {
  const viewsFailed: { view: string; error: string }[] = [];
  await client.query(compatFunctions(schema).join(';\n'));
  for (const v of PG_VIEWS) {
    await client.query('SAVEPOINT view');
    try {
      await client.query(viewDdl(schema, v, held).join(';\n'));
      await client.query('RELEASE SAVEPOINT view');
    } catch (err) {
      await client.query('ROLLBACK TO SAVEPOINT view');
      viewsFailed.push({ view: v.name, error: describe(err) });
    }
  }
  await client.query([...tableComments(held), `COMMENT ON TABLE ${STATE_TABLE} IS ${lit('seo-etl bookkeeping: how far each table is published from the DuckDB warehouse (docs/postgres.md).')}`].join(';\n'));
  await client.query(
    `INSERT INTO ${q(schema)}.${STATE_TABLE} (object, fingerprint, run_id, published_at) VALUES ('(views)', $1, $2, now())
     ON CONFLICT (object) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, run_id = EXCLUDED.run_id, published_at = EXCLUDED.published_at`,
    [viewsFailed.length ? null : fingerprint, runId ?? null]);
  return viewsFailed;
}

/** The schema's materialized views that read any of `tables`, as PostgreSQL's own dependencies record it. */
async function staleMaterializedViews(client: pg.Client, schema: string, tables: string[]): Promise<string[]> {
  const { rows } = await client.query(`SELECT DISTINCT m.relname FROM pg_class m JOIN pg_namespace n ON n.oid = m.relnamespace
    JOIN pg_rewrite r ON r.ev_class = m.oid JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = r.oid AND d.refclassid = 'pg_class'::regclass
    JOIN pg_class t ON t.oid = d.refobjid AND t.relnamespace = n.oid
    WHERE n.nspname = $1 AND m.relkind = 'm' AND t.relname = ANY($2) ORDER BY 1`, [schema, tables]);
  return rows.map((r) => String(r.relname));
}

/** The schema's tables and their columns in PostgreSQL. */
async function pgColumns(client: pg.Client, schema: string): Promise<Map<string, Set<string>>> {
  const r = await client.query(`SELECT c.table_name, c.column_name FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
    WHERE c.table_schema = $1`, [schema]);
  const out = new Map<string, Set<string>>();
  for (const row of r.rows) {
    if (!out.has(row.table_name)) out.set(row.table_name, new Set());
    out.get(row.table_name)!.add(row.column_name);
  }
  return out;
}

/** One line for a run's summary. */
export function describeOutcome(o: PostgresOutcome): string {
  if (o.status === 'refused') return `PostgreSQL: NOT published: ${o.error}`;
  if (o.status === 'failed') {
    return `PostgreSQL: NOT published to ${o.target} (schema ${o.schema}): ${o.error}. DuckDB and Parquet are complete; PostgreSQL is behind until \`seo-etl resume\` (or the next run, or reprocess) catches it up.`;
  }
  const changed = o.tables.filter((t) => t.mode !== 'unchanged');
  const whole = changed.filter((t) => t.mode === 'new' || t.mode === 'full').map((t) => t.table);
  const lines = [`PostgreSQL: published to ${o.target} (schema ${o.schema}): ${o.inserted} row(s) in, ${o.deleted} replaced, ${changed.length} table(s) changed${whole.length ? ` (${whole.length} sent whole)` : ''}, ${o.views} view(s); commit ${o.commitMs} ms of ${o.durationMs} ms`];
  if (o.refreshed.length) lines.push(`  materialized views computed: ${o.refreshed.length} in ${o.refreshMs} ms (${o.refreshed.join(', ')})`);
  for (const f of o.refreshFailed) lines.push(`  materialized view ${f.view} NOT refreshed (it shows the previous publish's rows; recreated at the next publish): ${f.error}`);
  if (o.addedColumns.length) lines.push(`  columns added: ${o.addedColumns.join(', ')}`);
  if (o.renamedColumns.length) lines.push(`  columns renamed: ${o.renamedColumns.join(', ')}`);
  for (const f of o.viewsFailed) lines.push(`  view ${f.view} NOT created in PostgreSQL: ${f.error}`);
  for (const f of o.relationsFailed) lines.push(`  key or index ${f.name} NOT added in PostgreSQL: ${f.error}`);
  if (o.jsonbColumns.length) lines.push(`  columns converted from json to jsonb: ${o.jsonbColumns.join(', ')}`);
  return lines.join('\n');
}

/** Prints a command's PostgreSQL outcome (if any) and gives its exit code: EXIT.postgres when it failed. */
export function reportPostgres(o: PostgresOutcome | undefined, out: NodeJS.WritableStream): number {
  if (o) out.write(`${describeOutcome(o)}\n`);
  return o?.status === 'refused' ? EXIT.badInput : o?.status === 'failed' ? EXIT.postgres : EXIT.ok;
}
