/**
 * The virtual result set of domains by HTML terms (E14). Its size follows from the query, and item i is
 * generated from the query's seed and i alone, so any page can be produced without the pages before it. The
 * default order (domain_rank desc) is the index order: ranks fall with i, and the last 3% have no rank (null).
 * A cheap projection (`domainLight`) carries the sortable fields, for filtering and sorting large sets.
 */
import { Rng, hashString } from '../../data/prng.js';
import { TLDS, NOUNS, BRANDS, LOREM, slug } from '../../data/words.js';
import { generateTechnologies, GROUP_NAMES } from './technologies.js';
import { ts } from '../../data/common.js';
import { DAY_MS } from '../../clock.js';

export interface DomainQuery {
  search_terms: string[];
  keywords?: string[];
  mode?: string;
}

export const MAX_DOMAIN_TOTAL = 1_000_000;

/** Size of the result set. A term `sandbox:total=<n>` sets it (a test handle, documented in docs/sandbox.md). */
export function domainTotal(q: DomainQuery): number {
  for (const t of q.search_terms) {
    const m = /^sandbox:total=(\d+)$/.exec(t);
    if (m) return Math.min(Number(m[1]), MAX_DOMAIN_TOTAL);
  }
  const rng = new Rng(hashString(JSON.stringify([q.search_terms, q.keywords ?? [], q.mode ?? 'entry'])));
  const u = rng.next();
  let total = Math.floor((u * u * u * 120_000) / q.search_terms.length) + rng.int(0, 60);
  total = Math.floor(total * 0.3 ** (q.keywords?.length ?? 0) * (q.mode === 'strict_entry' ? 0.7 : 1));
  return total;
}

export interface DomainLight {
  i: number;
  domain: string;
  domain_rank: number | null;
  last_visited: string;
  country_iso_code: string | null;
  language_code: string;
  content_language_code: string;
  title: string;
}

const COUNTRIES = ['US', 'GB', 'DE', 'FR', 'CA', 'AU', 'NL', 'ES', 'IT', 'IN', 'BR', 'JP'];
const LANG_OF: Record<string, string> = { US: 'en', GB: 'en', DE: 'de', FR: 'fr', CA: 'en', AU: 'en', NL: 'nl', ES: 'es', IT: 'it', IN: 'en', BR: 'pt', JP: 'ja' };

export function domainLight(seed: number, i: number, total: number, now: number): DomainLight {
  const r = new Rng(hashString(String(i), seed));
  const nullRankFrom = Math.floor(total * 0.97);
  const rank = i >= nullRankFrom ? null : Math.floor(1000 * (1 - i / total) ** 3);
  const country = r.chance(0.05) ? null : r.pick(COUNTRIES);
  const lang = country ? LANG_OF[country] : 'en';
  const name = `${slug(r.pick(BRANDS))}-${slug(r.pick(NOUNS))}-${i.toString(36)}`;
  return {
    i,
    domain: `${name}.${r.pick(TLDS)}`,
    domain_rank: rank,
    last_visited: ts(Math.floor(now / 1000) * 1000 - r.int(0, 60 * 24) * 3_600_000 - (i % 7) * DAY_MS),
    country_iso_code: country,
    language_code: lang,
    content_language_code: r.chance(0.1) ? 'en' : lang,
    title: `${r.pick(BRANDS)} ${r.pick(NOUNS)} - ${r.pick(LOREM)} ${r.pick(LOREM)}`,
  };
}

export const LIGHT_FIELDS: ReadonlySet<string> = new Set(['domain', 'domain_rank', 'last_visited', 'country_iso_code', 'language_code', 'content_language_code', 'title']);
export const DOMAIN_FILTER_FIELDS: ReadonlySet<string> = new Set([...LIGHT_FIELDS, 'description', 'meta_keywords', 'phone_numbers', 'emails', 'social_graph_urls']);

export function domainItem(seed: number, i: number, total: number, now: number, q: DomainQuery): Record<string, unknown> {
  const light = domainLight(seed, i, total, now);
  const r = new Rng(hashString(`full:${i}`, seed));
  const { i: _i, ...fields } = light;
  const has = (p: number) => r.chance(p);
  return {
    type: 'domain_technology_item',
    domain: fields.domain,
    title: fields.title,
    description: has(0.15) ? null : `${fields.title}. ${q.keywords?.length ? `${q.keywords.join(', ')}. ` : ''}${r.sample(LOREM, 8).join(' ')}.`,
    meta_keywords: has(0.3) ? null : r.sample(NOUNS, r.int(1, 5)),
    domain_rank: fields.domain_rank,
    last_visited: fields.last_visited,
    country_iso_code: fields.country_iso_code,
    language_code: fields.language_code,
    content_language_code: fields.content_language_code,
    phone_numbers: has(0.5) ? null : [`+1 ${r.int(200, 999)} ${r.int(200, 999)} ${r.int(1000, 9999)}`],
    emails: has(0.5) ? null : [`info@${fields.domain}`],
    social_graph_urls: has(0.4) ? null : [`https://social.example/${slug(fields.domain)}`],
    // Item i always has group i mod 9, so any page of 9 or more items shows every technology group.
    technologies: generateTechnologies(r, GROUP_NAMES[i % GROUP_NAMES.length]),
  };
}
