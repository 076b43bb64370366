/**
 * E14: domains by HTML terms, over a virtual result set (data.ts). Default order is the index order;
 * filters and other orders work on cheap projections when they only touch light fields, and the resulting index
 * list is cached per query so paging with offset_token does not redo it.
 */
import type { FamilySandbox } from '../../family.js';
import { generatedSandbox } from '../../generated.js';
import { computeErrors } from './errors.js';
import type { LiveCompute } from '../../family.js';
import { domainTotal, domainLight, domainItem, LIGHT_FIELDS, DOMAIN_FILTER_FIELDS, type DomainQuery } from './data.js';
import { compileFilters, filterFields, parseOrderBy, comparator, dotted, FilterError, type OrderRule } from '../../filters.js';
import { makeToken, paramsHash, readToken } from '../../tokens.js';
import { hashString, canonicalJson } from '../../data/prng.js';
import { Lru } from '../../lru.js';
import { DAY_MS } from '../../clock.js';

const indexCache = new Lru<string, Int32Array>(16);

function isDefaultOrder(rules: OrderRule[]): boolean {
  return rules.length === 0 || (rules.length === 1 && rules[0].field === 'domain_rank' && rules[0].dir === -1);
}

export const computeDomains: LiveCompute = (task, req) => {
  const q: DomainQuery = { search_terms: task.search_terms as string[], keywords: task.keywords as string[] | undefined, mode: task.mode as string | undefined };
  const total = domainTotal(q);
  const seed = hashString(canonicalJson(q));
  const day = Math.floor(req.now / DAY_MS) * DAY_MS;
  const rules = parseOrderBy(task.order_by ?? ['domain_rank,desc'], new Set(['domain_rank', 'domain', 'last_visited', 'country_iso_code', 'language_code', 'content_language_code']));
  const filters = task.filters;
  // Validates filter fields and values before any work.
  const keep = filters === undefined ? null : compileFilters(filters, DOMAIN_FILTER_FIELDS, dotted, 'filters');

  let indices: Int32Array | null = null;
  if (keep || !isDefaultOrder(rules)) {
    const key = canonicalJson([q, filters ?? null, task.order_by ?? null, day]);
    indices = indexCache.get(key) ?? null;
    if (!indices) {
      const light = [...filterFields(filters)].every((f) => LIGHT_FIELDS.has(f));
      const rows: { i: number; v: any }[] = [];
      for (let i = 0; i < total; i++) {
        const v = light ? domainLight(seed, i, total, day) : domainItem(seed, i, total, day, q);
        if (!keep || keep(v)) rows.push({ i, v });
      }
      if (!isDefaultOrder(rules)) {
        const cmp = comparator<any>(rules, dotted);
        rows.sort((a, b) => cmp(a.v, b.v) || a.i - b.i);
      }
      indices = Int32Array.from(rows, (r) => r.i);
      indexCache.set(key, indices);
    }
  }
  const count = indices ? indices.length : total;
  const limit = (task.limit as number | undefined) ?? 100;
  const hash = paramsHash(task, ['offset_token']);
  let position = (task.offset as number | undefined) ?? 0;
  if (typeof task.offset_token === 'string') {
    const t = readToken(task.offset_token, hash);
    if (!t.ok) throw new FilterError('offset_token', t.rule);
    position = t.position;
  }
  const end = Math.min(count, position + limit);
  const items: Record<string, unknown>[] = [];
  for (let k = position; k < end; k++) items.push(domainItem(seed, indices ? indices[k] : k, total, day, q));
  return {
    result: [{ total_count: count, items_count: items.length, offset: position, offset_token: makeToken(hash, end), items }],
  };
};

const sandbox: FamilySandbox = {
  live: { 'domain_analytics.errors': computeErrors, 'domain_analytics.technologies.domains_by_html_terms.live': computeDomains },
  fallback: generatedSandbox.fallback,
};
export default sandbox;
