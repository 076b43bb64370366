/**
 * E7: on-page resources of a crawl, with filters, relevant_pages_filters, order_by, limit/offset and
 * search_after_token (returned in the result element, null on the last page). Without filters or order_by only
 * the requested page is generated; otherwise the crawl's items are generated once and cached.
 */
import type { FamilySandbox } from '../../family.js';
import { generatedSandbox } from '../../generated.js';
import type { LiveCompute } from '../../family.js';
import { crawlOf, resourceItem, onPage, type CrawlSummary } from './data.js';
import { compileFilters, parseOrderBy, comparator, dotted, fieldPaths, FilterError } from '../../filters.js';
import { makeToken, paramsHash, readToken } from '../../tokens.js';
import { Lru } from '../../lru.js';
import { DAY_MS } from '../../clock.js';

const PAGE_FIELDS: ReadonlySet<string> = new Set(['url', 'status_code', 'checks.is_https', 'checks.is_http', 'checks.is_www', 'checks.is_redirect', 'checks.is_4xx_code', 'checks.is_5xx_code', 'checks.is_broken']);

let resourceFields: Set<string> | null = null;
/** Filterable fields: every dotted path of every resource type's item shape. */
export function resourceFilterFields(): ReadonlySet<string> {
  if (resourceFields) return resourceFields;
  const crawl = crawlOf('fields');
  const out = new Set<string>();
  for (let i = 0; i < 80; i++) fieldPaths(resourceItem('fields', crawl, i, 0), '', out);
  return (resourceFields = out);
}

const candidatesCache = new Lru<string, Int32Array>(16);
const itemsCache = new Lru<string, Record<string, unknown>[]>(4);

/** Indices of the crawl's resources (those on `url` when given). */
function candidates(id: string, crawl: CrawlSummary, url: string | undefined): Int32Array {
  const key = `${id}\u0000${url ?? ''}`;
  let hit = candidatesCache.get(key);
  if (!hit) {
    const out: number[] = [];
    for (let i = 0; i < crawl.total; i++) if (!url || onPage(id, i, url)) out.push(i);
    candidatesCache.set(key, (hit = Int32Array.from(out)));
  }
  return hit;
}

/** The page a resource was found on, as relevant_pages_filters sees it. */
function pageOf(item: Record<string, unknown>): Record<string, unknown> {
  return { url: String(item.url).replace(/\/assets\/.*$/, '/'), status_code: item.status_code, checks: item.checks };
}

export const computeResources: LiveCompute = (task, req) => {
  const id = task.id as string;
  const url = task.url as string | undefined;
  const day = Math.floor(req.now / DAY_MS) * DAY_MS;
  const crawl = crawlOf(id);
  const idx = candidates(id, crawl, url);
  const fields = resourceFilterFields();
  const keep = task.filters === undefined ? null : compileFilters(task.filters, fields, dotted, 'filters');
  const keepPage = task.relevant_pages_filters === undefined ? null : compileFilters(task.relevant_pages_filters, PAGE_FIELDS, dotted, 'relevant_pages_filters');
  const rules = task.order_by === undefined ? [] : parseOrderBy(task.order_by, fields);

  const limit = (task.limit as number | undefined) ?? 100;
  const hash = paramsHash(task, ['search_after_token']);
  let position = (task.offset as number | undefined) ?? 0;
  if (typeof task.search_after_token === 'string') {
    const t = readToken(task.search_after_token, hash);
    if (!t.ok) throw new FilterError('search_after_token', t.rule);
    position = t.position;
  }

  let total: number;
  let page: Record<string, unknown>[];
  if (!keep && !keepPage && rules.length === 0) {
    total = idx.length;
    page = [];
    for (let k = position; k < Math.min(total, position + limit); k++) page.push(resourceItem(id, crawl, idx[k], day, url));
  } else {
    const key = `${id}\u0000${url ?? ''}\u0000${day}`;
    let items = itemsCache.get(key);
    if (!items) {
      items = Array.from(idx, (i) => resourceItem(id, crawl, i, day, url));
      itemsCache.set(key, items);
    }
    let list = items.filter((it) => (!keep || keep(it)) && (!keepPage || keepPage(pageOf(it))));
    if (rules.length) list = list.sort(comparator(rules, dotted));
    total = list.length;
    page = list.slice(position, position + limit);
  }
  const next = position + page.length;
  return {
    result: [{
      crawl_progress: crawl.crawl_progress,
      crawl_status: crawl.crawl_status,
      search_after_token: next < total ? makeToken(hash, next) : null,
      total_items_count: total,
      items_count: page.length,
      items: page,
    }],
  };
};

const sandbox: FamilySandbox = { live: { 'on_page.resources': computeResources }, fallback: generatedSandbox.fallback };
export default sandbox;
