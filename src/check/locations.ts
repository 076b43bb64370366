/**
 * Location codes checked against the service's own free lists before anything is posted: `location_code:
 * 99999999` passed `plan` and a run. Each step's endpoint takes its list from the catalog (the nearest
 * `<prefix>.locations` list endpoint above it, so a family added to the catalog with its list is checked
 * too); a list is fetched once (free) and cached in the data folder for a week. When a list cannot be fetched,
 * the codes are not checked and a warning says so: the service itself still refuses a bad code.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { findEndpoint } from '../api/catalog.js';
import type { Config } from '../config/index.js';
import { PipelineError } from '../pipeline/errors.js';
import type { Origin, Pipeline, Place } from '../pipeline/types.js';
import type { PositionedIssue } from '../config/yaml.js';
import { accountClient } from './index.js';

export const LOCATION_LIST_MAX_AGE_MS = 7 * 24 * 3600 * 1000;

/** The catalog's list of locations for an endpoint: `a.b.c.task_post` -> `a.b.c.locations`, `a.b.locations`, `a.locations`. */
export function locationListFor(endpointId: string): string | undefined {
  const parts = endpointId.split('.').slice(0, -1);
  for (let n = parts.length; n > 0; n--) {
    const id = `${parts.slice(0, n).join('.')}.locations`;
    if (findEndpoint(id)?.kind === 'list') return id;
  }
  return undefined;
}

export interface LocationUse { step: string; endpointId: string; code: unknown; place: Place | Origin }

/** Every location code a pipeline names, with where it is written (SQL-fed values are known only at run time). */
export function locationUses(pipeline: Pick<Pipeline, 'steps'>): LocationUse[] {
  const out: LocationUse[] = [];
  for (const s of pipeline.steps) {
    const use = (code: unknown, place: Place | Origin) => out.push({ step: s.name, endpointId: s.endpointId, code, place });
    if (s.params.location_code !== undefined) use(s.params.location_code, s.paramPlaces.location_code ?? s.paramsPlace);
    for (const a of s.axes) {
      if (a.kind === 'values' && a.param === 'location_code') for (const v of a.values ?? (a.source.type === 'list' ? a.source.items : [])) use(v.value, v.origin);
      if (a.kind === 'rows') for (const r of a.rows ?? []) if (r.location_code) use(r.location_code.value, r.location_code.origin);
    }
  }
  return out;
}

/** The problems of a pipeline's codes against lists of known codes (by list id; a missing list is not checked). Pure. */
export function locationIssues(uses: readonly LocationUse[], lists: ReadonlyMap<string, { codes: ReadonlySet<number>; fetchedAt: string }>): PositionedIssue[] {
  const issues: PositionedIssue[] = [];
  for (const u of uses) {
    const listId = locationListFor(u.endpointId);
    const list = listId ? lists.get(listId) : undefined;
    if (!list) continue;
    const code = typeof u.code === 'string' && /^\d+$/.test(u.code) ? Number(u.code) : u.code;
    if (typeof code === 'number' && list.codes.has(code)) continue;
    issues.push({
      ...u.place, key: 'location_code',
      rule: `${String(u.code)} is not a location code the service lists for ${u.endpointId} (step ${u.step}; its free list ${listId}, ${list.codes.size} codes, fetched ${list.fetchedAt.slice(0, 10)}): nothing was posted`,
    });
  }
  return issues;
}

interface Cached { fetchedAt: string; codes: number[] }

/** A list's codes: from the cache when younger than maxAge, else fetched (free) and cached. */
async function listCodes(listId: string, o: LocationCheckOptions): Promise<{ codes: Set<number>; fetchedAt: string }> {
  const file = path.join(o.cacheDir, `${listId}.json`);
  const now = o.now?.() ?? new Date();
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as Cached;
    if (now.getTime() - new Date(c.fetchedAt).getTime() < LOCATION_LIST_MAX_AGE_MS && Array.isArray(c.codes)) return { codes: new Set(c.codes), fetchedAt: c.fetchedAt };
  } catch { /* no cache yet, or unreadable: fetched again */ }
  const codes = await o.fetch(listId);
  const fetchedAt = now.toISOString();
  mkdirSync(o.cacheDir, { recursive: true });
  writeFileSync(`${file}.tmp`, JSON.stringify({ fetchedAt, codes } satisfies Cached));
  renameSync(`${file}.tmp`, file);
  return { codes: new Set(codes), fetchedAt };
}

export interface LocationCheckOptions {
  /** Where lists are cached: `<data folder>/cache/locations`. */
  cacheDir: string;
  /** Fetches a list endpoint's location codes (throws when it cannot). */
  fetch: (listId: string) => Promise<number[]>;
  warn: (message: string) => void;
  now?: () => Date;
}

/** Throws PipelineError (exit 2) naming each unknown code's file:line; a list that cannot be had is skipped with a warning. */
export async function checkLocations(pipeline: Pick<Pipeline, 'steps'>, o: LocationCheckOptions): Promise<void> {
  const uses = locationUses(pipeline);
  const lists = new Map<string, { codes: ReadonlySet<number>; fetchedAt: string }>();
  for (const listId of new Set(uses.map((u) => locationListFor(u.endpointId)).filter((x): x is string => !!x))) {
    try {
      lists.set(listId, await listCodes(listId, o));
    } catch (err) {
      o.warn(`location codes not checked against ${listId}: ${(err as Error).message}`);
    }
  }
  const issues = locationIssues(uses, lists);
  if (issues.length) throw new PipelineError(issues);
}

/** The fetch for checkLocations: the configured service (or the embedded sandbox), one free call per list. */
export function serviceLocationFetch(config: Config, env?: NodeJS.ProcessEnv): (listId: string) => Promise<number[]> {
  return async (listId) => {
    const { client, sandbox } = await accountClient(config, { env, retries: 1, timeoutMs: Math.min(config.api.timeout_ms, 30_000) });
    try {
      const out = await client.list(listId);
      if (!out.ok) throw new Error(`${out.error.code} ${out.error.message}`);
      return (out.task.result ?? []).map((r) => Number((r as { location_code?: unknown }).location_code)).filter(Number.isFinite);
    } finally {
      await sandbox?.close();
    }
  };
}

export const locationCacheDir = (dataDir: string) => path.join(dataDir, 'cache', 'locations');
