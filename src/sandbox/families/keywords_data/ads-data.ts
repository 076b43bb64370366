/**
 * Results of the ads-based keyword API, in the live service's shapes (the official client's models): keyword
 * metrics for search_volume, keywords_for_site and keywords_for_keywords, and ad traffic forecasts. Built on the
 * legacy generator's keywords and volumes; the same task gives the same rows.
 */
import { Rng } from '../../data/prng.js';
import { generateKeywordData, keywordItem, lastTwelveMonths, type KeywordDataItem, type MonthlySearch } from './data.js';
import { parseDate } from '../../../api/validate.js';

export interface AdsKeywordItem {
  keyword: string;
  spell: string | null;
  location_code: number | null;
  language_code: string | null;
  search_partners: boolean;
  competition: 'LOW' | 'MEDIUM' | 'HIGH' | null;
  competition_index: number | null;
  search_volume: number | null;
  low_top_of_page_bid: number | null;
  high_top_of_page_bid: number | null;
  cpc: number | null;
  monthly_searches: MonthlySearch[] | null;
}

export interface AdTrafficItem {
  keyword: string;
  location_code: number | null;
  language_code: string | null;
  date_interval: string | null;
  search_partners: boolean;
  bid: number;
  match: string;
  /** Deprecated by the service (Google stopped keyword forecasts in June 2023): always null. */
  impressions: null;
  ctr: null;
  average_cpc: number | null;
  cost: number | null;
  clicks: number | null;
}

export interface AdsParams {
  keywords?: string[];
  target?: string;
  location_code?: number | null;
  language_code?: string | null;
  search_partners?: boolean;
  date_from?: string;
  date_to?: string;
  date_interval?: string;
  sort_by?: string;
  bid?: number;
  match?: string;
}

/**
 * Words that put a keyword in a category the ads service restricts (weapons, tobacco, drugs, counterfeit goods,
 * gambling): a batch holding one such keyword gets no data at all, as on the live service.
 */
export const RESTRICTED_WORDS: readonly string[] = ['replica', 'counterfeit', 'tobacco', 'cigarettes', 'guns', 'weapons', 'cocaine', 'casino'];

export function restrictedKeyword(keywords: readonly string[] | undefined): string | undefined {
  return keywords?.find((k) => k.toLowerCase().split(/\s+/).some((w) => RESTRICTED_WORDS.includes(w)));
}

/** Google's bands of the competition index: LOW below 34, MEDIUM below 67, HIGH from 67. */
export function competitionLevel(index: number | null): AdsKeywordItem['competition'] {
  if (index === null) return null;
  return index < 34 ? 'LOW' : index < 67 ? 'MEDIUM' : 'HIGH';
}

/** The months of `date_from`..`date_to`, newest first; the past 12 months without a range. */
function monthsOf(p: AdsParams, now: number): [number, number][] {
  const from = parseDate(p.date_from);
  const to = parseDate(p.date_to) ?? now - 86_400_000;
  if (from === null) return lastTwelveMonths(now);
  const out: [number, number][] = [];
  const end = new Date(to);
  for (let y = end.getUTCFullYear(), m = end.getUTCMonth() + 1; Date.UTC(y, m - 1, 1) >= Date.UTC(new Date(from).getUTCFullYear(), new Date(from).getUTCMonth(), 1); m--) {
    if (m === 0) { m = 12; y--; }
    out.push([y, m]);
    if (out.length >= 48) break;
  }
  return out;
}

function adsItem(legacy: KeywordDataItem, rng: Rng): AdsKeywordItem {
  const index = legacy.competition === null ? null : Math.round(legacy.competition * 100);
  const low = legacy.cpc === null ? null : Math.round(legacy.cpc * (0.4 + rng.next() * 0.3) * 100) / 100;
  const high = legacy.cpc === null ? null : Math.round(legacy.cpc * (1.3 + rng.next() * 1.2) * 100) / 100;
  // Now and then the service suggests a spelling: a doubled letter written once.
  const spell = rng.chance(0.04) && /(.)\1/.test(legacy.keyword) ? legacy.keyword.replace(/(.)\1/, '$1') : null;
  return {
    keyword: legacy.keyword,
    spell,
    location_code: legacy.location_code,
    language_code: legacy.language_code,
    search_partners: legacy.search_partners,
    competition: competitionLevel(index),
    competition_index: index,
    search_volume: legacy.search_volume,
    low_top_of_page_bid: low,
    high_top_of_page_bid: high,
    cpc: legacy.cpc,
    monthly_searches: legacy.monthly_searches,
  };
}

const KEYWORD_SORT: Record<string, keyof AdsKeywordItem> = {
  search_volume: 'search_volume', competition_index: 'competition_index', low_top_of_page_bid: 'low_top_of_page_bid', high_top_of_page_bid: 'high_top_of_page_bid',
};
const TRAFFIC_SORT: Record<string, keyof AdTrafficItem> = { average_cpc: 'average_cpc', cost: 'cost', clicks: 'clicks' };

function sortDesc<T>(items: T[], key: keyof T | undefined): T[] {
  if (!key) return items;
  return items.sort((a, b) => ((b[key] as number | null) ?? -1) - ((a[key] as number | null) ?? -1));
}

/** Keywords as the service takes them: lower-case, one space between words, each once. */
function normalKeywords(keywords: readonly string[]): string[] {
  return [...new Set(keywords.map((k) => k.replace(/\s+/g, ' ').trim().toLowerCase()).filter(Boolean))];
}

/**
 * Rows of a keyword-metrics function: one per given keyword (search_volume), `perSite` keywords for a target
 * (keywords_for_site) or `perKeyword` suggestions per seed (keywords_for_keywords). Empty when a keyword is restricted.
 */
/** The ads API's keywords_for_keywords returns up to 20,000 suggestions in all (docs/api-live.md). */
const ADS_MAX_SUGGESTIONS = 20_000;

export function generateAdsKeywords(fn: string, p: AdsParams, sizes: { perSite: number; perKeyword: number }, seed: number, now: number): AdsKeywordItem[] {
  if (restrictedKeyword(p.keywords)) return [];
  const rng = new Rng(seed ^ 0x5eed);
  const months = monthsOf(p, now);
  const base = { location_code: p.location_code ?? null, language_code: p.language_code ?? null, search_partners: p.search_partners ?? false };
  let legacy: KeywordDataItem[];
  if (fn === 'search_volume') {
    const main = new Rng(seed);
    legacy = normalKeywords(p.keywords ?? []).map((k, i) => keywordItem(k, main.fork(i), base, months));
  } else {
    const params = fn === 'keywords_for_site' ? { ...base, target: p.target } : { ...base, keywords: p.keywords, target: p.target };
    legacy = generateKeywordData(params, fn === 'keywords_for_site' ? sizes.perSite : sizes.perKeyword, seed, { now, max: ADS_MAX_SUGGESTIONS });
    // Monthly searches over the requested range, not the legacy API's fixed twelve months.
    if (p.date_from) legacy = legacy.map((item, i) => ({ ...item, monthly_searches: keywordItem(item.keyword, new Rng(seed).fork(i), base, months).monthly_searches }));
  }
  const items = legacy.map((item, i) => adsItem(item, rng.fork(i)));
  return sortDesc(items, p.sort_by ? KEYWORD_SORT[p.sort_by] : undefined);
}

/** An ad traffic forecast per keyword at the posted bid and match type; empty when a keyword is restricted. */
export function generateAdTraffic(p: AdsParams, seed: number): AdTrafficItem[] {
  if (restrictedKeyword(p.keywords)) return [];
  const rng = new Rng(seed);
  const bid = p.bid ?? 0;
  const match = p.match ?? 'exact';
  const reach = match === 'broad' ? 3 : match === 'phrase' ? 1.6 : 1;
  const days = p.date_interval === 'next_week' ? 7 : p.date_interval === 'next_quarter' ? 91 : 30;
  const span = p.date_from && p.date_to ? Math.max(1, ((parseDate(p.date_to) ?? 0) - (parseDate(p.date_from) ?? 0)) / 86_400_000) : days;
  const items = normalKeywords(p.keywords ?? []).map((keyword, i): AdTrafficItem => {
    const r = rng.fork(i);
    const noData = r.chance(0.06);
    const clicks = noData ? null : Math.round(r.next() * 40 * reach * Math.log1p(bid) * span * 100) / 100;
    const cpc = noData ? null : Math.round(bid * (0.3 + r.next() * 0.6) * 100) / 100;
    return {
      keyword, location_code: p.location_code ?? null, language_code: p.language_code ?? null,
      date_interval: p.date_from ? null : p.date_interval ?? 'next_month', search_partners: p.search_partners ?? false,
      bid, match, impressions: null, ctr: null, average_cpc: cpc, cost: clicks === null || cpc === null ? null : Math.round(clicks * cpc * 100) / 100, clicks,
    };
  });
  return sortDesc(items, p.sort_by ? TRAFFIC_SORT[p.sort_by] : undefined);
}
