/**
 * DuckDB alone building a family's tables from the raw archive the job wrote: `read_json` (schema auto-detected)
 * + `unnest`, in a child process whose CPU (every thread's: DuckDB's own too) is that work alone. The yardstick of
 * `rows_per_cpu_s_vs_duckdb_<family>` (families.ts): the job's rows per CPU-second over these.
 *
 * - serp_organic: a row per result, per item (common columns of every item type, AI Overview included), per
 *   AI Overview reference and per nested item (its type, title, url, domain and description from its JSON).
 * - keywords_for_keywords: a row per keyword, per monthly search and per category (the job's keyword tables).
 * - tree (Labs, Backlinks): whatever the detected schema holds, as the job's generated tables are: a row per result
 *   element with its nested objects' scalars as columns, and a table per list below it (down every level).
 */
import { readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance, DuckDBTypeId, type DuckDBConnection, type DuckDBType } from '@duckdb/node-api';
import { lit } from '../catalog/quote.js';
import { runChild } from './child.js';

export type BaselineKind = 'serp_organic' | 'keywords_for_keywords' | 'tree';

/** `endpoint`: the tree kind's endpoint id (a LIKE pattern), whose answers' results are the root. */
interface Spec { files: string[]; kind: BaselineKind; endpoint?: string; db: string; resultFile: string }
export interface BaselineAnswer { rows: number; cpuMs: number; ms: number; tables: Record<string, number> }

/** The gzip NDJSON archive files under `dir` (a run's data/raw), in name order. */
export function archiveFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = path.join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.ndjson.gz')) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** The query of every result element of `endpoint`'s answers in `src` (a read_json call), as `r`. */
function results(src: string, endpoint: string): string {
  return `SELECT t.id::VARCHAR AS _task_id, run_id AS _run_id, unnest(t.result) AS r, generate_subscripts(t.result, 1) AS i
    FROM (SELECT run_id, unnest(response.tasks) AS t FROM ${src} WHERE endpoint_id LIKE '${endpoint}') WHERE t.status_code < 40000`;
}

/**
 * The statements building `kind`'s tables from `res` (the results, see `results`), and the tables they make.
 * `has`: the fields the detected schema gives a result element (a field no answer carries is not in it).
 */
function statements(kind: BaselineKind, has: Set<string>, itemHas: Set<string>): { sql: string[]; tables: string[] } {
  if (kind === 'serp_organic') {
    const j = (col: string) => `json_extract_string(n, '$.${col}') AS ${col}`;
    const itemCols = ['type', 'rank_group', 'rank_absolute', 'position', 'xpath', 'domain', 'title', 'url', 'description', 'breadcrumb', 'markdown', 'asynchronous_ai_overview'].filter((c) => itemHas.has(c));
    return {
      tables: ['serp', 'serp_items', ...(itemHas.has('references') ? ['serp_items__references'] : []), 'serp_items__items'],
      sql: [
        `CREATE TABLE serp AS SELECT _task_id || ':' || (i - 1) AS _id, _task_id, _run_id, now() AS _loaded_at, r.keyword, r.type, r.se_domain, r.location_code, r.language_code,
          r.check_url, r.datetime, r.se_results_count::BIGINT AS se_results_count, r.items_count::BIGINT AS items_count FROM res`,
        `CREATE TABLE serp_items AS SELECT _pid || ':' || (k - 1) AS _id, _pid AS _parent_id, _task_id, _run_id, now() AS _loaded_at, (k - 1)::INTEGER AS _list_idx,
          ${itemCols.map((c) => `it.${c}`).join(', ')} FROM it`,
        ...(itemHas.has('references') ? [`CREATE TABLE serp_items__references AS SELECT _pid || ':' || (k - 1) || ':' || (m - 1) AS _id, _task_id, _run_id, now() AS _loaded_at, ref.type, ref.source, ref.domain, ref.url, ref.title, ref.text
          FROM (SELECT _pid, k, _task_id, _run_id, unnest(it.references) AS ref, generate_subscripts(it.references, 1) AS m FROM it WHERE it.references IS NOT NULL)`] : []),
        `CREATE TABLE serp_items__items AS SELECT _pid || ':' || (k - 1) || ':' || (m - 1) AS _id, _task_id, _run_id, now() AS _loaded_at, ${['type', 'title', 'url', 'domain', 'description'].map(j).join(', ')}
          FROM (SELECT _pid, k, _task_id, _run_id, unnest(it.items) AS n, generate_subscripts(it.items, 1) AS m FROM it WHERE it.items IS NOT NULL)`,
      ],
    };
  }
  const cols = ['keyword', 'location_code', 'language_code', 'search_partners', 'competition', 'competition_index', 'search_volume', 'low_top_of_page_bid', 'high_top_of_page_bid', 'cpc'].filter((c) => has.has(c));
  return {
    tables: ['keyword_data', 'keyword_data__monthly_searches', ...(has.has('categories') ? ['keyword_data__categories'] : [])],
    sql: [
      `CREATE TABLE keyword_data AS SELECT _task_id || ':' || (i - 1) AS _id, _task_id, _run_id, now() AS _loaded_at, (i - 1)::INTEGER AS _list_idx, ${cols.map((c) => `r.${c}`).join(', ')} FROM res`,
      `CREATE TABLE keyword_data__monthly_searches AS SELECT _pid || ':' || (j - 1) AS _id, _task_id, _run_id, now() AS _loaded_at, _pid AS _parent_id, (j - 1)::INTEGER AS _list_idx,
        m."year"::INTEGER AS "year", m."month"::INTEGER AS "month", m.search_volume::BIGINT AS search_volume
        FROM (SELECT _task_id || ':' || (i - 1) AS _pid, _task_id, _run_id, unnest(r.monthly_searches) AS m, generate_subscripts(r.monthly_searches, 1) AS j FROM res)`,
      ...(has.has('categories') ? [`CREATE TABLE keyword_data__categories AS SELECT _pid || ':' || (j - 1) AS _id, _task_id, _run_id, now() AS _loaded_at, _pid AS _parent_id, (j - 1)::INTEGER AS _list_idx, v::BIGINT AS category_code
        FROM (SELECT _task_id || ':' || (i - 1) AS _pid, _task_id, _run_id, unnest(r.categories) AS v, generate_subscripts(r.categories, 1) AS j FROM res)`] : []),
    ],
  };
}

async function buildInChild(spec: Spec): Promise<void> {
  rmSync(spec.db, { force: true });
  rmSync(`${spec.db}.wal`, { force: true });
  const inst = await DuckDBInstance.create(spec.db);
  const c = await inst.connect();
  // One answer is one line: a 20,000-keyword answer is past read_json's default 16 MB object.
  const src = `read_json([${spec.files.map(lit).join(', ')}], maximum_object_size = 1073741824)`;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const endpoint = spec.kind === 'serp_organic' ? 'serp.google.organic.task_get%' : spec.kind === 'tree' ? spec.endpoint! : '%keywords_for_keywords.task_get';
  await c.run(`CREATE TEMP TABLE res AS ${results(src, endpoint)}`);
  let tables: string[];
  if (spec.kind === 'tree') tables = await buildTree(c);
  else {
    const fields = async (sql: string) => new Set((await c.runAndReadAll(`DESCRIBE ${sql}`)).getRows().map((row) => String(row[0])));
    const has = await fields('SELECT r.* FROM res');
    // SERP items: one row each, with the fields of every item type the answers carry (the detected schema's union).
    if (spec.kind === 'serp_organic') await c.run(`CREATE TEMP TABLE it AS SELECT _task_id || ':' || (i - 1) AS _pid, _task_id, _run_id, unnest(r.items) AS it, generate_subscripts(r.items, 1) AS k FROM res`);
    const built = statements(spec.kind, has, spec.kind === 'serp_organic' ? await fields('SELECT it.* FROM it') : new Set());
    for (const s of built.sql) await c.run(s);
    tables = built.tables;
  }
  await c.run('CHECKPOINT');
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const counts: Record<string, number> = {};
  for (const t of tables) counts[t] = Number((await c.runAndReadAll(`SELECT count(*) FROM ${t}`)).getRows()[0][0]);
  c.closeSync();
  inst.closeSync();
  const answer: BaselineAnswer = { rows: Object.values(counts).reduce((a, b) => a + b, 0), cpuMs: (cpu.user + cpu.system) / 1000, ms, tables: counts };
  writeFileSync(spec.resultFile, JSON.stringify(answer));
}

/** A struct's scalar fields through its nested structs (`a.b` -> `a__b`) and the paths of its lists, from its type. */
function walk(type: DuckDBType, at: string[], scalars: string[][], lists: { path: string[]; element: DuckDBType }[]): void {
  if (type.typeId !== DuckDBTypeId.STRUCT) return;
  const names = (type as unknown as { entryNames: string[] }).entryNames;
  const types = (type as unknown as { entryTypes: DuckDBType[] }).entryTypes;
  names.forEach((name, i) => {
    const t = types[i];
    const path = [...at, name];
    if (t.typeId === DuckDBTypeId.STRUCT) walk(t, path, scalars, lists);
    else if (t.typeId === DuckDBTypeId.LIST) lists.push({ path, element: (t as unknown as { valueType: DuckDBType }).valueType });
    else scalars.push(path);
  });
}

const ref = (path: string[]) => path.map((p) => `"${p.replace(/"/g, '""')}"`).join('.');

/**
 * The tree kind: `res`'s result elements as table t0, then every list below (a struct's list of objects a table
 * of its own, recursively; a list of scalars a table of values), each row with its `_id`, `_parent_id` and
 * `_list_idx` as the job derives them. Returns the tables made.
 */
async function buildTree(c: DuckDBConnection): Promise<string[]> {
  const tables: string[] = [];
  await c.run(`CREATE TEMP TABLE src0 AS SELECT _task_id AS _pid, _task_id, _run_id, r AS v, i AS k FROM res`);
  const level = async (source: string, type: DuckDBType): Promise<void> => {
    const name = `t${tables.length}`;
    tables.push(name);
    const lineage = `_pid || ':' || (k - 1) AS _id, _pid AS _parent_id, _task_id, _run_id, now() AS _loaded_at, (k - 1)::INTEGER AS _list_idx`;
    if (type.typeId !== DuckDBTypeId.STRUCT) {
      await c.run(`CREATE TABLE ${name} AS SELECT ${lineage}, v AS value FROM ${source}`);
      return;
    }
    const scalars: string[][] = [];
    const lists: { path: string[]; element: DuckDBType }[] = [];
    walk(type, [], scalars, lists);
    const cols = scalars.map((p) => `v.${ref(p)} AS "${p.join('__')}"`);
    await c.run(`CREATE TABLE ${name} AS SELECT ${[lineage, ...cols].join(', ')} FROM ${source}`);
    for (const l of lists) {
      const child = `src${tables.length}`;
      await c.run(`CREATE TEMP TABLE ${child} AS SELECT _pid || ':' || (k - 1) AS _pid, _task_id, _run_id, unnest(v.${ref(l.path)}) AS v, generate_subscripts(v.${ref(l.path)}, 1) AS k
        FROM ${source} WHERE v.${ref(l.path)} IS NOT NULL`);
      await level(child, l.element);
    }
  };
  const root = (await c.runAndReadAll('SELECT r FROM res LIMIT 0')).columnTypes()[0];
  await level('src0', root);
  return tables;
}

/** DuckDB's build of `kind`'s tables from `files`, in a child process of its own. */
export function duckdbBaseline(dir: string, files: string[], kind: BaselineKind, endpoint?: string): Promise<BaselineAnswer> {
  return runChild<BaselineAnswer>('duckdb-baseline', { files, kind, endpoint, db: path.join(dir, `baseline-${kind}.duckdb`), resultFile: path.join(dir, `baseline-${kind}.json`) }, { timeoutMs: 600_000 });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildInChild(JSON.parse(process.argv[2]) as Spec);
}
