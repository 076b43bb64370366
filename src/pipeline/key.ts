/**
 * Identity of runs and tasks. A task's key is a stable hash of what it asks for, so the same pipeline and day
 * plan the same keys after a crash and nothing is posted twice; the tag carries the key to the service and back.
 */
import { createHash } from 'node:crypto';

import { canonicalJson } from '../canonical-json.js';

export { canonicalJson };

export const KEY_LENGTH = 24;

/**
 * 24 hex characters (96 bits) of SHA-256 over the endpoint id and the canonical parameters. The planner passes an
 * endpoint's first id (`formerly` when it was renamed), so a rename never changes the keys of a run.
 */
export function taskKey(endpointId: string, params: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalJson({ endpoint: endpointId, params })).digest('hex').slice(0, KEY_LENGTH);
}

export const TAG_PREFIX = 'seo-etl';
export const TAG_MAX = 255;

/**
 * The tag sent with every task that accepts one: `seo-etl/<pipeline>/<step>/<key>`, then `/<user tag>` when
 * the pipeline set one, cut to 255 characters. The ledger keeps the user's tag whole; the service echoes ours,
 * so a result, a pingback's $tag or a tasks_fixed item names its pipeline, step and task without a lookup.
 */
export function tagFor(pipeline: string, step: string, key: string, userTag?: string): string {
  const own = `${TAG_PREFIX}/${pipeline}/${step}/${key}`;
  if (userTag === undefined || userTag === '') return own.slice(0, TAG_MAX);
  let tag = `${own}/${userTag}`;
  if (tag.length > TAG_MAX) {
    tag = tag.slice(0, TAG_MAX);
    // Never leave half a surrogate pair at the end.
    if (/[\uD800-\uDBFF]$/.test(tag)) tag = tag.slice(0, -1);
  }
  return tag;
}

export interface ParsedTag {
  pipeline: string;
  step: string;
  key: string;
  /** The user's tag as far as it fits in 255 characters (the ledger has it whole). */
  userTag?: string;
}

/** Reads a tag written by tagFor; undefined for any other tag (for example a task posted by another tool). */
export function parseTag(tag: unknown): ParsedTag | undefined {
  if (typeof tag !== 'string') return undefined;
  const m = /^seo-etl\/([a-z0-9][a-z0-9_-]*)\/([a-z0-9][a-z0-9_-]*)\/([0-9a-f]{24})(?:\/([\s\S]*))?$/.exec(tag);
  if (!m) return undefined;
  return { pipeline: m[1], step: m[2], key: m[3], ...(m[4] !== undefined ? { userTag: m[4] } : {}) };
}

/** The UTC calendar day of a moment, `yyyy-mm-dd`: the default run date. */
export function utcDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/**
 * A run is one pipeline on one day: `<pipeline>-<yyyy-mm-dd>`. Running the same pipeline for the same day again
 * finds the same run in the ledger and resumes it instead of posting anew.
 */
export function runIdFor(pipelineName: string, runDate: string | Date): string {
  const day = typeof runDate === 'string' ? runDate : utcDate(runDate);
  if (!isCalendarDay(day)) throw new RangeError(`run date must be a calendar day yyyy-mm-dd (got ${JSON.stringify(runDate)})`);
  if (!NAME_PATTERN.test(pipelineName)) throw new RangeError(`pipeline name ${JSON.stringify(pipelineName)} ${NAME_RULE}`);
  return `${pipelineName}-${day}`;
}

export const RUN_DATE_RULE = 'must be a calendar day written YYYY-MM-DD';

/** The one rule for a run's day: a real calendar day written yyyy-mm-dd (`2026-13-45` is not). Pure. */
export function isCalendarDay(v: string): boolean {
  const d = new Date(`${v}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(d.getTime()) && utcDate(d) === v;
}

/**
 * The day a run id carries, the one place it is read back: `<pipeline>-<yyyy-mm-dd>` (runIdFor), or the stamp of
 * a reprocess or ingest (`ingest-20260105T031500-<pid>`); undefined for any other id. Pure.
 */
export function dayOfRunId(runId: string): string | undefined {
  const m = /(?:^|-)(\d{4})(\d{2})(\d{2})T\d{6}(?:-|$)/.exec(runId) ?? /(\d{4})-(\d{2})-(\d{2})$/.exec(runId);
  const day = m ? `${m[1]}-${m[2]}-${m[3]}` : undefined;
  return day && isCalendarDay(day) ? day : undefined;
}

/** Pipeline and step names: they go into tags, run ids and file names. */
export const NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,47}$/;
export const NAME_RULE = 'must be 1 to 48 characters of a-z, 0-9, _ and -, starting with a letter or digit';
