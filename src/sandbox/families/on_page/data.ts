/**
 * On-page resources (E7) of a crawl task. The crawl's size follows from its id: the id
 * 00000000-0000-0000-0000-NNNNNNNNNNNN (decimal digits) crawls N resources, at most 100,000 (a test handle:
 * ...-000000025000 gives 25,000); any other id 30 to 999. Every resource type, check key, error and warning code appears across a crawl.
 */
import { Rng, hashString } from '../../data/prng.js';
import { NOUNS, TLDS, slug } from '../../data/words.js';
import { ts } from '../../data/common.js';

export const RESOURCE_TYPES = ['script', 'image', 'stylesheet', 'broken'] as const;
export const MAX_CRAWL_RESOURCES = 100_000;

const ERRORS: [number, string][] = [
  [0, 'Unidentified Error'], [501, 'Html Parse Error'], [1501, 'JS Parse Error'], [2501, 'CSS Parse Error'],
  [3501, 'Image Parse Error'], [3502, 'Image Scale Is Zero'], [3503, 'Image Size Is Zero'], [3504, 'Image Format Invalid'],
];
const WARNINGS: [number, string][] = [
  [0, 'Unidentified Warning'], [1, 'Has node with more than 60 childs.'], [2, 'Has more that 1500 nodes.'], [3, 'HTML depth more than 32 tags.'],
];
const ACCEPT_TYPES = ['any', 'none', 'image', 'sitemap', 'robots', 'script', 'stylesheet', 'redirect', 'html', 'text', 'other', 'font'];

export interface CrawlSummary {
  crawl_progress: 'in_progress' | 'finished';
  crawl_status: { max_crawl_pages: number; pages_in_queue: number; pages_crawled: number };
  total: number;
  site: string;
}

export function crawlOf(id: string): CrawlSummary {
  const sized = /^00000000-0000-0000-0000-(\d{12})$/.exec(id);
  const h = hashString(id);
  const total = sized && Number(sized[1]) > 0 ? Math.min(Number(sized[1]), MAX_CRAWL_RESOURCES) : 30 + (h % 970);
  const inProgress = h % 10 === 0;
  const maxPages = 100 + (h % 900);
  const crawled = inProgress ? Math.floor(maxPages / 2) : Math.min(maxPages, 20 + (h % 400));
  return {
    crawl_progress: inProgress ? 'in_progress' : 'finished',
    crawl_status: { max_crawl_pages: maxPages, pages_in_queue: inProgress ? maxPages - crawled : 0, pages_crawled: crawled },
    total,
    site: `${slug(NOUNS[h % NOUNS.length])}.${TLDS[h % TLDS.length]}`,
  };
}

function checksFor(type: string, r: Rng, status: number, https: boolean, www: boolean, slow: boolean, redirect: boolean): Record<string, boolean> {
  const c: Record<string, boolean> = {
    no_content_encoding: r.chance(0.3),
    high_loading_time: slow,
    is_redirect: redirect,
    is_4xx_code: status >= 400 && status < 500,
    is_5xx_code: status >= 500,
    is_broken: type === 'broken' || status >= 400,
    is_www: www,
    is_https: https,
    is_http: !https,
    from_sitemap: r.chance(0.2),
  };
  if (type === 'image') Object.assign(c, { original_size_displayed: r.chance(0.5), has_redirect: r.chance(0.1) });
  if (type === 'stylesheet') Object.assign(c, { is_minified: r.chance(0.6), has_subrequests: r.chance(0.3) });
  if (type === 'script') Object.assign(c, { is_minified: r.chance(0.6), has_redirect: r.chance(0.1), has_subrequests: r.chance(0.3) });
  return c;
}

/** Resource i of a crawl; `pageUrl` (the request's `url`) takes `meta` from that page. */
export function resourceItem(crawlId: string, crawl: CrawlSummary, i: number, now: number, pageUrl?: string): Record<string, unknown> {
  const r = new Rng(hashString(`${crawlId}:${i}`));
  const type = RESOURCE_TYPES[i % 4 === 3 && r.chance(0.5) ? 3 : i % 3];
  const https = r.chance(0.85);
  const www = r.chance(0.4);
  const status = type === 'broken' ? r.pick([404, 410, 500, 503]) : r.chance(0.05) ? 301 : 200;
  const redirect = status === 301;
  const duration = r.int(5, redirect ? 800 : 4500);
  const ext = type === 'image' ? r.pick(['png', 'jpg', 'webp', 'svg']) : type === 'script' ? 'js' : type === 'stylesheet' ? 'css' : r.pick(['js', 'css', 'png', 'html']);
  const url = `${https ? 'https' : 'http'}://${www ? 'www.' : ''}${crawl.site}/assets/${slug(r.pick(NOUNS))}-${i}.${ext}`;
  const size = r.int(200, 900_000);
  const encoded = Math.floor(size * r.float(0.2, 1, 3));
  const fetched = now - r.int(60, 86_400 * 3) * 1000;
  const errors = i % 11 === 0 ? [ERRORS[(i / 11) % ERRORS.length]] : [];
  const warnings = i % 7 === 0 ? [WARNINGS[(i / 7) % WARNINGS.length]] : [];
  const page = pageUrl ?? `https://${crawl.site}/${i % 5 === 0 ? '' : slug(r.pick(NOUNS))}`;
  const width = r.int(16, 2400);
  const height = r.int(16, 1600);
  const shrink = r.chance(0.5) ? 1 : r.float(0.25, 1, 2);
  return {
    resource_type: type,
    meta: type === 'image'
      ? { alternative_text: r.chance(0.2) ? '' : `${r.pick(NOUNS)} on ${page}`, title: `${r.pick(NOUNS)} image`, original_width: width, original_height: height, width: Math.round(width * shrink), height: Math.round(height * shrink) }
      : type === 'broken' ? null : { title: `${type} on ${page}` },
    status_code: status,
    location: redirect ? url.replace('/assets/', '/static/') : null,
    url,
    size,
    encoded_size: encoded,
    total_transfer_size: encoded + r.int(100, 900),
    fetch_time: ts(fetched),
    fetch_timing: { duration_time: duration, fetch_start: 0, fetch_end: duration },
    cache_control: { cachable: r.chance(0.7), ttl: r.chance(0.3) ? 0 : r.int(60, 31_536_000) * 1000 },
    checks: checksFor(type, r, status, https, www, duration > 3000, redirect),
    resource_errors: {
      errors: errors.map(([code, message]) => ({ line: r.int(1, 400), column: r.int(1, 120), message, status_code: code })),
      warnings: warnings.map(([code, message]) => ({ line: code === 0 ? 0 : r.int(0, 400), column: code === 0 ? 0 : r.int(0, 120), message, status_code: code })),
    },
    content_encoding: r.chance(0.3) ? null : r.pick(['gzip', 'br', 'deflate']),
    media_type: type === 'image' ? `image/${ext === 'jpg' ? 'jpeg' : ext === 'svg' ? 'svg+xml' : ext}` : type === 'script' ? 'application/javascript' : type === 'stylesheet' ? 'text/css' : 'text/html',
    accept_type: type === 'broken' ? r.pick(ACCEPT_TYPES) : type,
    server: r.pick(['nginx', 'Apache', 'cloudflare', 'LiteSpeed']),
    last_modified: r.chance(0.25) ? null : { header: r.chance(0.3) ? null : ts(fetched - DAY * r.int(1, 400)), sitemap: r.chance(0.6) ? null : ts(fetched - DAY * r.int(1, 400)), meta_tag: r.chance(0.8) ? null : ts(fetched - DAY * r.int(1, 400)) },
  };
}

const DAY = 86_400_000;

/** Whether resource i appears on the page `pageUrl` (a request with `url` returns that page's resources). */
export function onPage(crawlId: string, i: number, pageUrl: string): boolean {
  const every = 2 + (hashString(pageUrl) % 5);
  return (i + hashString(crawlId)) % every === 0;
}

/** Every resource of a crawl, for benchmarks and normalizer tests. */
export function generateResources(crawlId: string, now = Date.now(), pageUrl?: string): { crawl: CrawlSummary; items: Record<string, unknown>[] } {
  const crawl = crawlOf(crawlId);
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < crawl.total; i++) if (!pageUrl || onPage(crawlId, i, pageUrl)) items.push(resourceItem(crawlId, crawl, i, now, pageUrl));
  return { crawl, items };
}
