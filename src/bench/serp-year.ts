/**
 * Benchmark: the SERP views in PostgreSQL at a year of nightly SERPs. A generated archive of `keywords` keywords
 * on desktop and mobile, one organic (advanced) page of 20 results a night for 365 nights (one run a night, two
 * tracked targets, as a rank tracker's pipeline records them in the ledger), is loaded into a fresh warehouse,
 * published to the throwaway PostgreSQL server, and each SERP view is computed whole (its rows written to a
 * temporary table, so the figure is the engine's, not the client's) in PostgreSQL and in DuckDB (issue 32:
 * v_serp_features took 1.3-1.9 s at 18-30k items in PostgreSQL, 0.05 s in DuckDB).
 */
import path from 'node:path';
import { DuckDBInstance, listValue } from '@duckdb/node-api';
import pg from 'pg';
import { Warehouse } from '../load/warehouse.js';
import { WAREHOUSE_STORAGE } from '../load/database.js';
import { loadArchiveFiles } from '../load/archive-load.js';
import { publishWarehouse } from '../publish/index.js';
import { curatedViews } from '../publish/views.js';
import { publishToPostgres } from '../publish/postgres/index.js';
import { SERP_VIEWS } from '../families/serp/views.js';
import { ENGINES } from './load.js';
import { serpNightTaskId, writeSerpNight } from './serp-nights.js';
import { LEDGER_DDL } from '../ledger/schema.js';

const DAY = 86_400_000;
/** Keywords of the bench's year: 10 keep `make bench`'s section to a minute or two here (docs/journal/performance-2026-11-22-to-2026-11-27.md has 50). */
export const SERP_YEAR_KEYWORDS = 10;
const LAST = Date.UTC(2026, 0, 15, 3);

/** The tracked targets of the bench's pipeline: a client and a competitor, each one domain of the sandbox's pool. */
const TARGETS = [['client', 'trailhub.com'], ['rival', 'reviewly.com']] as const;

export interface SerpYear {
  items: number; pages: number; publishMs: number; views: { view: string; pgMs: number; duckMs: number; rows: number }[];
  /** The night after the year, published into the schema holding it: the whole publish and its materialized views' refresh. */
  nextNight: { publishMs: number; commitMs: number; refreshMs: number; refreshed: string[]; refused: string[] };
}

interface NightLedger { runId: string; night: number; taskIds: string[] }

/** A night's archive (night 0 is the last of the year; -1 the one after it); `first` numbers its tasks. */
async function writeNight(dir: string, night: number, keywords: number, first: number): Promise<{ files: string[]; ledger: NightLedger }> {
  const runId = night < 0 ? `night-next${-night}` : `night-${String(night).padStart(3, '0')}`;
  const files = await writeSerpNight(path.join(dir, 'raw-serp'), night, keywords, { runId, at: LAST - night * DAY, firstSeq: first });
  const taskIds = Array.from({ length: keywords * 2 }, (_, i) => serpNightTaskId(first + i));
  return { files, ledger: { runId, night, taskIds } };
}

/** Loads nights' archives and their ledger rows into the working warehouse, then publishes its DuckDB copy. */
async function loadNights(dir: string, files: string[], ledger: NightLedger[], loadedAt: Date): Promise<void> {
  const work = path.join(dir, 'serp-year-work.duckdb');
  const published = path.join(dir, 'serp-year.duckdb');
  const wh = await Warehouse.open(work, WAREHOUSE_STORAGE);
  try {
    await wh.ensureSchema();
    await loadArchiveFiles(wh, files, { engines: ENGINES, loadedAt });
    // The ledger's rows a nightly run leaves: the run, its tasks (service ids), its step's tracked targets.
    for (const sql of LEDGER_DDL) await wh.connection.run(sql);
    for (const r of ledger) {
      const day = new Date(LAST - r.night * DAY);
      const stamp = day.toISOString().replace('T', ' ').replace('Z', '');
      await wh.connection.run(`INSERT INTO _runs (run_id, pipeline, run_date, status, attempts, started_at, updated_at) VALUES (?, 'ranks', ?, 'completed', 1, ?::TIMESTAMP, ?::TIMESTAMP)`,
        [r.runId, day.toISOString().slice(0, 10), stamp, stamp]);
      for (const [target, domain] of TARGETS) {
        await wh.connection.run(`INSERT INTO _targets (run_id, step, target, domain, updated_at) VALUES (?, 'ranks', ?, ?, ?::TIMESTAMP)`, [r.runId, target, domain, stamp]);
      }
      await wh.connection.run(`INSERT INTO _tasks (run_id, task_key, seq, step, step_index, endpoint_id, collect, params, price, state, service_id, attempts, pages, updated_at)
        SELECT ?, 'k' || i, i, 'ranks', 0, 'serp.google.organic.task_post', 'polling', '{}', 0.0006, 'loaded', ids[i + 1], 1, 1, ?::TIMESTAMP
        FROM (SELECT ?::VARCHAR[] AS ids) AS t, range(${r.taskIds.length}) AS r(i)`, [r.runId, stamp, listValue(r.taskIds)]);
    }
    await wh.connection.run('CHECKPOINT');
  } finally {
    wh.close();
  }
  await publishWarehouse({ workPath: work, publishedPath: published, statements: curatedViews, ...WAREHOUSE_STORAGE });
}

async function publishYear(dir: string, url: string) {
  const t0 = performance.now();
  const o = await publishToPostgres({ url, schema: 'serp_year', warehouse: path.join(dir, 'serp-year.duckdb'), stageDir: path.join(dir, 'stage-serp') });
  const publishMs = Math.round(performance.now() - t0);
  if (o.status !== 'published') throw new Error(`publish failed: ${o.error}`);
  // Views, keys and indexes PostgreSQL refused: the publish's summary names them; the bench and tests want none.
  const refused = [...o.viewsFailed.map((f) => `view ${f.view}: ${f.error}`), ...o.refreshFailed.map((f) => `refresh of ${f.view}: ${f.error}`),
    ...o.relationsFailed.map((f) => `${f.name}: ${f.error}`)];
  return { publishMs, commitMs: o.commitMs, refreshMs: o.refreshMs, refreshed: o.refreshed, refused };
}

/**
 * Generates, loads and publishes the year into schema `serp_year` at `url`; the published DuckDB file is
 * `dir/serp-year.duckdb`. Returns the counts and the publish's duration.
 */
export async function serpYearPublish(dir: string, url: string, keywords: number, nights = 365): Promise<Pick<SerpYear, 'pages' | 'publishMs'> & { refused: string[] }> {
  const files: string[] = [];
  const ledger: NightLedger[] = [];
  for (let night = 0; night < nights; night++) {
    const made = await writeNight(dir, night, keywords, night * keywords * 2);
    files.push(...made.files);
    ledger.push(made.ledger);
  }
  await loadNights(dir, files, ledger, new Date(LAST));
  const { publishMs, refused } = await publishYear(dir, url);
  return { pages: nights * keywords * 2, publishMs, refused };
}

/**
 * A night after the year (serpYearPublish's; `after` 1 the first), loaded and published as a nightly run does: what
 * the nightly publish costs once the year is in PostgreSQL, the refresh of its materialized views included.
 */
export async function serpNextNight(dir: string, url: string, keywords: number, nights = 365, after = 1): Promise<SerpYear['nextNight']> {
  const made = await writeNight(dir, -after, keywords, (nights + after - 1) * keywords * 2);
  await loadNights(dir, made.files, [made.ledger], new Date(LAST + after * DAY));
  return publishYear(dir, url);
}

/** What docs/postgres.md sets for the readers' role (`ALTER ROLE bi_reader SET ...`), set here per session. */
export const READER_SETTINGS = { jit: 'off', work_mem: '64MB' } as const;

/** The year published, then each SERP view read whole in PostgreSQL and computed whole in DuckDB. */
async function serpYearViews(dir: string, url: string, keywords: number, nights: number): Promise<Omit<SerpYear, 'nextNight'>> {
  const made = await serpYearPublish(dir, url, keywords, nights);
  const duck = await DuckDBInstance.create(path.join(dir, 'serp-year.duckdb'), { access_mode: 'READ_ONLY' });
  const dc = await duck.connect();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SET search_path TO serp_year, public');
    for (const [k, v] of Object.entries(READER_SETTINGS)) await client.query(`SET ${k} = '${v}'`);
    const items = Number((await client.query('SELECT count(*) AS n FROM serp_results__items')).rows[0].n);
    const views = [];
    for (const v of SERP_VIEWS) {
      // The whole view computed by each engine into a temporary table: the engine's time, not the client's.
      const p0 = performance.now();
      await client.query(`CREATE TEMP TABLE _bench_view AS SELECT * FROM ${v.name}`);
      const pgMs = performance.now() - p0;
      const rows = Number((await client.query('SELECT count(*) AS n FROM _bench_view')).rows[0].n);
      await client.query('DROP TABLE _bench_view');
      const d0 = performance.now();
      await dc.run(`CREATE TEMP TABLE _bench_view AS SELECT * FROM ${v.name}`);
      const duckMs = performance.now() - d0;
      await dc.run('DROP TABLE _bench_view');
      views.push({ view: v.name, pgMs: Math.round(pgMs), duckMs: Math.round(duckMs), rows });
    }
    return { ...made, items, views };
  } finally {
    await client.end();
    dc.closeSync();
    duck.closeSync();
  }
}

export async function serpYear(dir: string, url: string, keywords: number, nights = 365): Promise<SerpYear> {
  const year = await serpYearViews(dir, url, keywords, nights);
  return { ...year, nextNight: await serpNextNight(dir, url, keywords, nights) };
}
