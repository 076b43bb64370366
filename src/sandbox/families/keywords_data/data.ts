/**
 * Keyword data items (results of keywords_for_site and keywords_for_keywords). Pure and fast: the benchmark
 * generates 100k rows with it. Same parameters and seed give the same rows.
 */
import { Rng } from '../../data/prng.js';
import { NOUNS, MODIFIERS } from '../../data/words.js';

export interface MonthlySearch { year: number; month: number; search_volume: number }
export interface KeywordDataItem {
  keyword: string;
  location_code: number | null;
  language_code: string | null;
  search_partners: boolean;
  competition: number | null;
  cpc: number | null;
  search_volume: number | null;
  categories: number[] | null;
  monthly_searches: MonthlySearch[] | null;
}

export interface KeywordParams {
  target?: string;
  keywords?: string[];
  location_code?: number | null;
  language_code?: string | null;
  search_partners?: boolean;
  sort_by?: string;
}

export interface KeywordOptions {
  /** The month before this instant is the newest of the 12 monthly_searches; defaults to now. */
  now?: number;
  /** Most suggestions of a keywords_for_keywords result in all: the legacy API's 700 by default. */
  max?: number;
}

/** Product and service category codes as the ad platform numbers them (a sample of the downloadable list). */
const CATEGORY_CODES = [10001, 10004, 10007, 10010, 10012, 10019, 10021, 10276, 10880, 11088, 11274, 12012, 12050, 13418, 13632];

const SORTERS: Record<string, (a: KeywordDataItem, b: KeywordDataItem) => number> = {
  search_volume: (a, b) => (b.search_volume ?? -1) - (a.search_volume ?? -1),
  competition: (a, b) => (b.competition ?? -1) - (a.competition ?? -1),
  cpc: (a, b) => (b.cpc ?? -1) - (a.cpc ?? -1),
};

function domainStem(target: string): string {
  const host = target.replace(/^https?:\/\//, '').replace(/\/.*$/, '').replace(/^www\./, '');
  return host.split('.')[0].replace(/[-_]+/g, ' ') || 'site';
}

export function keywordItem(keyword: string, rng: Rng, p: KeywordParams, months: [number, number][]): KeywordDataItem {
  // About one keyword in twelve has no volume data at all, as rare keywords do on the live service.
  const noData = rng.chance(0.08);
  const volume = noData ? null : Math.round(10 * Math.exp(rng.next() * 10.5));
  const monthly = volume === null || rng.chance(0.03)
    ? null
    : months.map(([year, month]) => ({ year, month, search_volume: Math.max(0, Math.round(volume * (0.6 + rng.next() * 0.8))) }));
  return {
    keyword,
    location_code: p.location_code ?? null,
    language_code: p.language_code ?? null,
    search_partners: p.search_partners ?? false,
    competition: noData || rng.chance(0.05) ? null : rng.float(0, 1, 4),
    cpc: noData || rng.chance(0.1) ? null : rng.float(0.05, 25, 2),
    search_volume: volume,
    categories: rng.chance(0.1) ? null : rng.sample(CATEGORY_CODES, rng.int(1, 4)).sort((a, b) => a - b),
    monthly_searches: monthly,
  };
}

/** The 12 months before `now`, newest first, as [year, month]. */
export function lastTwelveMonths(now: number): [number, number][] {
  const d = new Date(now);
  let y = d.getUTCFullYear();
  let m = d.getUTCMonth(); // the previous month, 1-based, since getUTCMonth is 0-based
  const out: [number, number][] = [];
  for (let i = 0; i < 12; i++) {
    if (m === 0) { m = 12; y--; }
    out.push([y, m]);
    m--;
  }
  return out;
}

/**
 * `count` suggestions for a domain (`params.target`), or `count` suggestions per keyword when `params.keywords`
 * is given (keywords_for_keywords, at most `opts.max` in all: 700 by default). Keywords are unique within a result.
 */
export function generateKeywordData(params: KeywordParams, count: number, seed: number, opts: KeywordOptions = {}): KeywordDataItem[] {
  const rng = new Rng(seed);
  const max = opts.max ?? 700;
  const months = lastTwelveMonths(opts.now ?? Date.now());
  const seen = new Set<string>();
  const words: string[] = [];
  const add = (k: string) => {
    const key = k.replace(/\s+/g, ' ').trim().toLowerCase();
    if (key && !seen.has(key)) {
      seen.add(key);
      words.push(key);
    }
  };
  if (params.keywords && params.keywords.length) {
    for (const base of params.keywords) {
      const want = words.length + count;
      add(base);
      for (let tries = 0; words.length < want && tries < count * 20; tries++) {
        const mod = rng.pick(MODIFIERS);
        add(rng.chance(0.5) ? `${mod} ${base}` : `${base} ${mod}`);
      }
      // Numbered variants once the modifiers run out (the ads API returns up to 20,000 suggestions).
      for (let n = 2; words.length < want && words.length < max; n++) add(`${base} ${rng.pick(MODIFIERS)} ${n}`);
      if (words.length >= max) break;
    }
    words.length = Math.min(words.length, max);
  } else {
    const stem = domainStem(params.target ?? 'example.com');
    add(stem);
    for (let tries = 0; words.length < count && tries < count * 50; tries++) {
      const noun = rng.pick(NOUNS);
      const r = rng.next();
      add(r < 0.3 ? `${stem} ${noun}` : r < 0.7 ? `${rng.pick(MODIFIERS)} ${noun}` : `${noun} ${rng.pick(MODIFIERS)} ${rng.int(1, 99)}`);
    }
    words.length = Math.min(words.length, count);
  }
  const items = words.map((k, i) => keywordItem(k, rng.fork(i), params, months));
  const sorter = params.sort_by ? SORTERS[params.sort_by] : undefined;
  return sorter ? items.sort(sorter) : items;
}
