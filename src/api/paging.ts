/**
 * Paging of the live and list endpoints that page, by the paging their catalog entry declares (`paging`), holding
 * every other parameter identical from one request to the next, as the reference requires of offset_token and
 * search_after_token:
 *   limit_offset         limit/offset: `offset` advances by `limit`.
 *   limit_offset_token   limit/offset while limit + offset stays within the cap (the catalog's sum_max rule, 10000
 *                        for domains by HTML terms, E14), then offset_token.
 *   search_after_token   the first request, then the same request with the token the previous answer carried
 *                        (on-page resources E7, Backlinks' backlinks, On-Page pages and links, LLM mentions).
 * `pageEndpoint(client, def, task, { pageSize?, maxItems? })` is an async generator yielding each page's
 * TaskOutcome; it stops after an error outcome (yielded), a short or empty page, the reported total, a missing
 * token, or once maxItems items have been yielded (a page is never cut: its size is a request parameter that must
 * stay identical).
 *
 * Where the tokens sit: E14 documents `offset_token` on the result element. E7 does not say where
 * `search_after_token` is; the sandbox puts it on the result element too, beside `items`. Both are read by
 * `pageTokenOf` alone, so a different placement on the live service is a one-line change.
 */
import { endpoint } from './catalog.js';
import { type EndpointDef, type FieldRule } from '../catalog/endpoint.js';
import type { ApiTask } from './envelope.js';
import type { ApiClient, TaskOutcome } from './client.js';

export const HTML_TERMS_ENDPOINT = 'domain_analytics.technologies.domains_by_html_terms.live';
export const RESOURCES_ENDPOINT = 'on_page.resources';

/** What the helpers need of a client (a fake in unit tests): `list` for the list endpoints that page (On-Page pages). */
export type LiveClient = Pick<ApiClient, 'live'> & Partial<Pick<ApiClient, 'list'>>;

export interface PageOptions {
  /** Items per request (`limit`); default: the task's own limit, else the endpoint's documented default. */
  pageSize?: number;
  /** Stop once this many items have been yielded. */
  maxItems?: number;
}

interface PageResult {
  items?: unknown[];
  items_count?: number;
  total_count?: number;
  total_items_count?: number;
  offset?: number;
  offset_token?: string;
  search_after_token?: string;
  [key: string]: unknown;
}

function firstResult(task: ApiTask): PageResult | undefined {
  const r = task.result?.[0];
  return r && typeof r === 'object' ? (r as PageResult) : undefined;
}

/** The one place that knows where a page's continuation token is: on the result element, else on the task. */
export function pageTokenOf(task: ApiTask, name: 'offset_token' | 'search_after_token'): string | undefined {
  const fromResult = firstResult(task)?.[name];
  if (typeof fromResult === 'string' && fromResult.length > 0) return fromResult;
  const fromTask = (task as unknown as Record<string, unknown>)[name];
  return typeof fromTask === 'string' && fromTask.length > 0 ? fromTask : undefined;
}

function itemsOf(task: ApiTask): unknown[] {
  const items = firstResult(task)?.items;
  return Array.isArray(items) ? items : [];
}

function defaultOf(def: EndpointDef, field: string): number | undefined {
  const rule = def.fields?.[field] as FieldRule | undefined;
  return rule && (rule.type === 'integer' || rule.type === 'number') ? rule.default : undefined;
}

/** The limit+offset cap of an endpoint, from its sum_max cross rule. */
function offsetCap(def: EndpointDef): number {
  const rule = def.cross?.find((r) => r.rule === 'sum_max');
  return rule && rule.rule === 'sum_max' ? rule.max : Infinity;
}

function withoutKeys(task: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(task)) if (!keys.includes(k)) out[k] = v;
  return out;
}

/** One call of a paged endpoint: a live call, or a POST list call. */
function callOnce(client: LiveClient, def: EndpointDef, request: Record<string, unknown>): Promise<TaskOutcome> {
  if (def.kind === 'list') {
    if (!client.list) throw new Error(`${def.id}: paging a list endpoint needs a client with list()`);
    return client.list(def.id, request);
  }
  return client.live(def.id, request);
}

/** Where a page started and how many there are in all, as the answer reports them. */
function reportedTotal(page: PageResult | undefined): number | undefined {
  const total = page?.total_count ?? page?.total_items_count;
  return typeof total === 'number' ? total : undefined;
}

/** Every page of a paged endpoint, by its declared paging (see the header). */
export async function* pageEndpoint(client: LiveClient, def: EndpointDef, task: Record<string, unknown>, opts: PageOptions = {}): AsyncGenerator<TaskOutcome> {
  if (def.paging === 'search_after_token') yield* pageSearchAfter(client, def, task, opts);
  else if (def.paging === 'limit_offset' || def.paging === 'limit_offset_token') yield* pageOffset(client, def, task, opts);
  else yield await callOnce(client, def, task);
}

/**
 * limit/offset paging. Every request carries the same parameters as the task except `limit` (fixed for the whole
 * run), `offset` (advanced by `limit` while limit + offset fits the cap) and, past the cap where the endpoint has
 * one, `offset_token`, where the request repeats the previous one exactly apart from the new token.
 */
async function* pageOffset(client: LiveClient, def: EndpointDef, task: Record<string, unknown>, opts: PageOptions): AsyncGenerator<TaskOutcome> {
  const cap = offsetCap(def);
  const tokens = def.paging === 'limit_offset_token';
  const limit = opts.pageSize ?? (typeof task.limit === 'number' ? task.limit : defaultOf(def, 'limit') ?? 100);
  const base = withoutKeys(task, ['limit', 'offset', 'offset_token']);
  let request: Record<string, unknown> = { ...base, limit, offset: typeof task.offset === 'number' ? task.offset : defaultOf(def, 'offset') ?? 0 };
  if (tokens && typeof task.offset_token === 'string') request.offset_token = task.offset_token;
  let yielded = 0;
  for (;;) {
    const outcome = await callOnce(client, def, request);
    yield outcome;
    if (!outcome.ok) return;
    const items = itemsOf(outcome.task);
    yielded += items.length;
    const page = firstResult(outcome.task);
    const offset = request.offset as number;
    if (items.length === 0 || items.length < limit) return;
    if (opts.maxItems !== undefined && yielded >= opts.maxItems) return;
    // Where this page started: the `offset` the service reports ("offset value used"), else what we asked for.
    const position = typeof page?.offset === 'number' ? page.offset : request.offset_token === undefined ? offset : undefined;
    const total = reportedTotal(page);
    if (total !== undefined && position !== undefined && position + items.length >= total) return;
    const nextOffset = offset + limit;
    if (request.offset_token === undefined && nextOffset + limit <= cap) {
      request = { ...base, limit, offset: nextOffset };
      continue;
    }
    const token = tokens ? pageTokenOf(outcome.task, 'offset_token') : undefined;
    if (!token) return;
    request = { ...request, offset_token: token };
  }
}

/**
 * search_after_token paging: the first request is the task (with `limit` set), each following one is the same
 * request plus the token the previous answer carried.
 */
async function* pageSearchAfter(client: LiveClient, def: EndpointDef, task: Record<string, unknown>, opts: PageOptions): AsyncGenerator<TaskOutcome> {
  const limit = opts.pageSize ?? (typeof task.limit === 'number' ? task.limit : defaultOf(def, 'limit') ?? 100);
  const base: Record<string, unknown> = { ...withoutKeys(task, ['search_after_token']), limit };
  let request: Record<string, unknown> = typeof task.search_after_token === 'string' ? { ...base, search_after_token: task.search_after_token } : base;
  let yielded = 0;
  for (;;) {
    const outcome = await callOnce(client, def, request);
    yield outcome;
    if (!outcome.ok) return;
    const items = itemsOf(outcome.task);
    yielded += items.length;
    if (items.length === 0 || items.length < limit) return;
    if (opts.maxItems !== undefined && yielded >= opts.maxItems) return;
    const total = reportedTotal(firstResult(outcome.task));
    if (total !== undefined && yielded + (typeof task.offset === 'number' ? task.offset : 0) >= total) return;
    const token = pageTokenOf(outcome.task, 'search_after_token');
    if (!token) return;
    request = { ...base, search_after_token: token };
  }
}

/** Pages E14 (domains by HTML terms): limit/offset, then offset_token past the cap. */
export function pageHtmlTerms(client: LiveClient, task: Record<string, unknown>, opts: PageOptions = {}): AsyncGenerator<TaskOutcome> {
  return pageEndpoint(client, endpoint(HTML_TERMS_ENDPOINT), task, opts);
}

/** Pages E7 (on-page resources) with search_after_token. */
export function pageResources(client: LiveClient, task: Record<string, unknown>, opts: PageOptions = {}): AsyncGenerator<TaskOutcome> {
  return pageEndpoint(client, endpoint(RESOURCES_ENDPOINT), task, opts);
}
