/**
 * SERP result pages as the live service serves them in 2026, deterministic from the task's parameters and the day
 * of completion (the sandbox's clock). A pool of sites ranks across many keywords (so a client's domain can be
 * followed over a keyword set), the features on a page vary by keyword and day, an AI Overview shows on part of the
 * pages and cites sources that change from day to day, and crawl control stops at the page holding a target. Every
 * value is put in its client model's exact shape (shape.ts).
 */
import { Rng, hashString } from '../../data/prng.js';
import { NOUNS, CITIES, BRANDS, slug, titleCase } from '../../data/words.js';
import { decodeKeyword, seDomainFor, ts } from '../../data/common.js';
import { DAY_MS } from '../../clock.js';
import { shaped } from './shape.js';
import { SERP_ITEM_CLASSES } from '../../../families/serp/models.generated.js';
import type { BilledOutcome } from '../../../api/pricing.js';

export interface SerpParams {
  keyword: string;
  location_code?: number | null;
  language_code?: string | null;
  depth?: number;
  max_crawl_pages?: number;
  device?: string;
  se_domain?: string;
  calculate_rectangles?: boolean | null;
  load_async_ai_overview?: boolean | null;
  people_also_ask_click_depth?: number | null;
  stop_crawl_on_match?: { match_value: string; match_type: string }[] | null;
  target_search_mode?: string | null;
  find_targets_in?: string[] | null;
  ignore_targets_in?: string[] | null;
  target?: string | null;
}

export type SerpVariant = 'regular' | 'advanced' | 'html';

/**
 * Sites that rank across many keywords, strongest first; a few are subdomains of another (registrable domains).
 * Fictional names: the sandbox never points at a real site's pages.
 */
export const SITE_POOL = [
  'wikiverse.org', 'trailhub.com', 'blog.trailhub.com', 'gearjunkie.example', 'reviewly.com', 'shopnorth.com', 'dailyrunner.net', 'fitlab.io',
  'outdoorworld.com', 'pricepal.com', 'forum.pricepal.com', 'healthwise.org', 'howtohub.com', 'newswire.net', 'videotube.com', 'askcrowd.com',
  'gadgetpress.com', 'homeplus.store', 'greenliving.org', 'cityguide.info', 'techtalk.io', 'marketmag.com', 'dealfinder.shop', 'expertsays.com',
  'learnfast.org', 'eu.shopnorth.com', 'kitchenly.com', 'travelbug.net', 'moneysense.co.uk', 'sportsdesk.com',
] as const;

function hashKeyword(keyword: string): number {
  return hashString(keyword);
}

/** Sites only this keyword brings (long tail): the same every day, so positions compare. */
function longTail(keyword: string, n: number): string[] {
  const rng = new Rng(hashKeyword(`tail|${keyword}`));
  const base = slug(keyword).replace(/-/g, '') || 'site';
  return Array.from({ length: n }, (_, i) => {
    const r = rng.fork(i);
    const word = i % 3 === 0 ? base : `${r.pick(NOUNS).toLowerCase().replace(/[^a-z]/g, '')}${r.pick(['hub', 'guide', 'shop', 'review', 'world', 'daily'])}`;
    return `${i % 4 === 0 ? 'www.' : ''}${word}${i}.${r.pick(['com', 'net', 'org', 'io', 'info'])}`;
  });
}

/**
 * Today's order: each pool site's strength for the keyword (stable) plus a day's noise, then the long tail; device
 * and location shift the noise. The pool fills most of the first pages, so a site ranks for many keywords.
 */
export function ranking(keyword: string, count: number, day: number, device: string, location: number | null | undefined): string[] {
  const stable = new Rng(hashKeyword(`strength|${keyword}`));
  const dayRng = new Rng(hashKeyword(`${keyword}|${device}|${location ?? ''}|${day}`));
  const pool = SITE_POOL.map((d, i) => ({ d, s: i * 0.6 + stable.next() * 14 + dayRng.next() * 4, keep: stable.next() < 0.6 }))
    .filter((x) => x.keep);
  const tail = longTail(keyword, count + 5).map((d, i) => ({ d, s: 8 + i * 1.2 + dayRng.next() * 4, keep: true }));
  return [...pool, ...tail].sort((a, b) => a.s - b.s).slice(0, count).map((x) => x.d);
}

const rating = (r: Rng) => ({ rating_type: 'Max5', value: r.float(3, 5, 1), votes_count: r.int(3, 5000), rating_max: 5 });
const xp = (i: number) => `/html[1]/body[1]/div[2]/div[1]/div[${i + 1}]/div[1]`;
const urlOf = (domain: string, keyword: string, tail = '') => `https://${domain}/${slug(keyword)}${tail}`;
const reference = (domain: string, keyword: string, r: Rng) => ({
  type: 'ai_overview_reference', source: titleCase(domain.split('.').slice(-2, -1)[0] ?? domain), domain, url: urlOf(domain, keyword, `/${r.hex(4)}`), title: `${titleCase(keyword)}: what ${domain} says`, text: `On ${keyword}, ${domain} explains the basics.`,
});

function organic(domain: string, keyword: string, r: Rng): Record<string, unknown> {
  return {
    type: 'organic', domain, title: `${titleCase(keyword)} - ${domain.replace(/^www\./, '')}`, description: `Everything about ${keyword}: guides, prices and reviews on ${domain}.`,
    url: urlOf(domain, keyword), breadcrumb: `https://${domain} › ${slug(keyword)}`, website_name: domain.replace(/^www\./, '').split('.')[0],
    is_image: false, is_video: r.chance(0.1), is_featured_snippet: false, is_malicious: false, is_web_story: false, amp_version: r.chance(0.2),
    timestamp: r.chance(0.3) ? ts(Date.UTC(2026, r.int(0, 9), r.int(1, 28))) : null,
    rating: r.chance(0.2) ? rating(r) : null, highlighted: [keyword],
    links: r.chance(0.3) ? [0, 1].map((k) => ({ type: 'link_element', title: `${titleCase(keyword)} ${k ? 'prices' : 'guide'}`, url: urlOf(domain, keyword, k ? '/prices' : '/guide'), domain })) : null,
  };
}

/** The AI Overview of a page for the day, or none: keywords lean to having one; its sources change from day to day. */
function aiOverview(keyword: string, day: number, sites: string[], loadAsync: boolean): Record<string, unknown> | null {
  const prone = new Rng(hashKeyword(`ai|${keyword}`)).chance(0.6);
  const r = new Rng(hashKeyword(`ai|${keyword}|${day}`));
  if (!r.chance(prone ? 0.85 : 0.1)) return null;
  const asynchronous = r.chance(0.4);
  if (asynchronous && !loadAsync) return null; // only the cached ones come without load_async_ai_overview
  const cited = r.sample([...sites.slice(0, 12), ...SITE_POOL.slice(0, 10)].filter((d, i, a) => a.indexOf(d) === i), r.int(3, 6));
  const refs = cited.map((d, i) => reference(d, keyword, r.fork(`ref${i}`)));
  const elements = [0, 1].map((k) => ({
    type: 'ai_overview_element', title: k ? `Why ${keyword} matters` : null, text: `${titleCase(keyword)} ${k ? 'is chosen for comfort and price.' : 'is widely covered.'}`,
    references: refs.slice(k * 2, k * 2 + 3),
  }));
  return {
    type: 'ai_overview', asynchronous_ai_overview: asynchronous,
    markdown: `**${titleCase(keyword)}** is widely covered.\n\n${cited.map((d) => `- [${d}](https://${d}/)`).join('\n')}`,
    items: elements, references: refs,
  };
}

function peopleAlsoAsk(keyword: string, sites: string[], r: Rng, clicks: number): Record<string, unknown> {
  const questions = ['What is the best', 'How much does', 'Is it worth buying', 'Where to buy', 'How long does', 'Which brand makes the best', 'What to look for in', 'Are cheap'];
  const n = 2 + r.int(0, 2) + clicks * 2;
  return {
    type: 'people_also_ask',
    items: Array.from({ length: Math.min(n, questions.length) }, (_, k) => {
      const d = sites[(k + 3) % sites.length];
      const ai = r.chance(0.3);
      return {
        type: 'people_also_ask_element', title: `${questions[k]} ${keyword}?`, seed_question: k >= 4 ? `${questions[0]} ${keyword}?` : null, xpath: `${xp(5)}/div[${k + 1}]`,
        expanded_element: [ai
          ? { type: 'people_also_ask_ai_overview_expanded_element', items: [{ type: 'ai_overview_element', text: `${titleCase(keyword)}: a short answer.`, references: [reference(d, keyword, r.fork(`paa${k}`))] }] }
          : { type: 'people_also_ask_expanded_element', url: urlOf(d, keyword, '/faq'), domain: d, title: `${titleCase(keyword)} FAQ`, description: `Short answer about ${keyword}.` }],
      };
    }),
  };
}

function knowledgeGraph(keyword: string, r: Rng): Record<string, unknown> {
  const kx = (i: number) => `/html[1]/body[1]/div[3]/div[${i + 1}]`;
  const parts = [
    { type: 'knowledge_graph_description_item', text: `${titleCase(keyword)} in brief.` },
    { type: 'knowledge_graph_row_item', title: 'Founded', text: String(r.int(1950, 2020)), data_attrid: 'kc:/organization:founded' },
    { type: 'knowledge_graph_list_item', title: 'Popular brands', data_attrid: 'kc:/brands', items: BRANDS.slice(0, 3).map((b) => ({ type: 'knowledge_graph_list_element', title: b, url: `https://${b.toLowerCase()}.example/` })) },
    { type: 'knowledge_graph_carousel_item', title: 'People also search for', data_attrid: 'kc:/related', items: [`${keyword} reviews`, `${keyword} deals`].map((t) => ({ type: 'knowledge_graph_carousel_element', title: t })) },
    { type: 'knowledge_graph_images_item', items: [0, 1].map((k) => ({ type: 'knowledge_graph_images_element', alt: `${keyword} ${k}`, url: `https://wikiverse.org/img/${k}` })) },
  ];
  return {
    type: 'knowledge_graph', title: titleCase(keyword), subtitle: 'Topic', description: `${titleCase(keyword)} is a topic.`, card_id: `/g/${r.hex(8)}`, position: 'right',
    items: parts.map((p, i) => ({ ...p, position: 'right', xpath: kx(i), rank_group: i + 1, rank_absolute: i + 1 })),
  };
}

/** A feature with a list of elements pointing at pool sites: the shape the models give, values where they fit. */
function listFeature(type: string, keyword: string, sites: string[], r: Rng, n: number): Record<string, unknown> {
  return {
    type, title: `${titleCase(keyword)} ${type.replace(/_/g, ' ')}`,
    items: Array.from({ length: n }, (_, k) => {
      const d = sites[(k * 2 + 1) % sites.length];
      return { title: `${titleCase(keyword)} on ${d}`, url: urlOf(d, keyword, `/${type}/${k}`), domain: d, source: d, description: `About ${keyword}.`, rating: r.chance(0.3) ? rating(r) : null };
    }),
  };
}

/** How often each Google organic feature shows on a first page. The rest of the models' types show rarely. */
const GOOGLE_FEATURES: Record<string, number> = {
  paid: 0.5, featured_snippet: 0.3, people_also_ask: 0.7, local_pack: 0.2, knowledge_graph: 0.25, top_stories: 0.3, images: 0.35, video: 0.35,
  popular_products: 0.2, discussions_and_forums: 0.3, perspectives: 0.15, short_videos: 0.25, answer_box: 0.1, third_party_reviews: 0.12, related_searches: 0.9,
};
const RARE_SHARE = 0.03;

function googleFeature(type: string, keyword: string, sites: string[], r: Rng, engine: string, clicks: number): Record<string, unknown> {
  const d = sites[0];
  switch (type) {
    case 'paid': return { type, domain: `shop.${BRANDS[0].toLowerCase()}.com`, title: `Buy ${keyword} today`, description: `Great deals on ${keyword}.`, url: `https://shop.${BRANDS[0].toLowerCase()}.com/${slug(keyword)}`, website_name: BRANDS[0], highlighted: [keyword] };
    case 'featured_snippet': return { type, domain: d, title: `What is ${keyword}?`, description: `${titleCase(keyword)} explained in one paragraph.`, url: urlOf(d, keyword), featured_title: `${titleCase(keyword)}: a definition` };
    case 'people_also_ask': return peopleAlsoAsk(keyword, sites, r, clicks);
    case 'local_pack': return { type, title: `${titleCase(keyword)} ${r.pick(CITIES)}`, description: 'Open now', domain: `local-${slug(keyword)}.com`, phone: '+1 555-0100', url: `https://local-${slug(keyword)}.com/`, is_paid: false, rating: rating(r), cid: String(r.int(1e9, 9e9)) + String(r.int(1e8, 9e8)) };
    case 'knowledge_graph': return knowledgeGraph(keyword, r);
    case 'top_stories': return { type, title: 'Top stories', items: [1, 2].map((k) => ({ type: 'top_stories_element', source: `${BRANDS[k]} News`, domain: 'newswire.net', title: `${titleCase(keyword)} in the news`, date: `${k} hours ago`, amp_version: false, url: `https://newswire.net/${r.hex(6)}` })) };
    case 'images': return { type, title: `Images for ${keyword}`, url: `https://${engine}.com/images?q=${encodeURIComponent(keyword)}`, items: [0, 1, 2].map((k) => ({ type: 'images_element', alt: `${keyword} ${k}`, url: `https://${sites[k]}/`, image_url: `https://${sites[k]}/img/${k}.jpg` })) };
    case 'video': return { type, items: [{ type: 'video_element', source: 'VideoTube', title: `${titleCase(keyword)} review`, url: `https://videotube.com/watch?v=${r.hex(11)}` }] };
    case 'related_searches': return { type, items: [`${keyword} price`, `best ${keyword}`, `${keyword} near me`] };
    case 'answer_box': return { type, text: [`${titleCase(keyword)}: the short answer.`], links: [{ type: 'link_element', title: d, url: urlOf(d, keyword), domain: d }] };
    case 'third_party_reviews': return { type, title: `${titleCase(keyword)} reviews`, url: urlOf('reviewly.com', keyword), reviews_count: r.int(10, 900), rating: rating(r) };
    default: return listFeature(type, keyword, sites, r, r.int(2, 4));
  }
}

/** Where an item sits on the screen, when calculate_rectangles asked (pixel ranking). */
function withRectangles(items: Record<string, unknown>[], on: boolean, device: string): void {
  let y = 120;
  for (const it of items) {
    const height = it.type === 'organic' ? 110 : 260;
    it.rectangle = on ? { x: it.position === 'right' ? 1180 : 180, y, width: device === 'mobile' ? 360 : 650, height } : null;
    if (it.position !== 'right') y += height;
  }
}

const glob = (pattern: string) => new RegExp(`^${pattern.split('*').map((x) => x.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
/** A URL without its scheme and `www.`: what targets and wildcards are matched on. */
const bareUrl = (url: string) => url.replace(/^https?:\/\/(www\.)?/, '');

/** A crawl-control target: `domain` the host itself (and www.), `with_subdomains` its subdomains too, `wildcard` a URL or path pattern. */
function matches(item: Record<string, unknown>, target: { match_value: string; match_type: string }): boolean {
  const domain = typeof item.domain === 'string' ? item.domain.replace(/^www\./, '') : '';
  const url = typeof item.url === 'string' ? bareUrl(item.url) : '';
  if (!domain || !url) return false;
  const v = target.match_value.replace(/^www\./, '');
  switch (target.match_type) {
    case 'domain': return domain === v;
    case 'with_subdomains': return domain === v || domain.endsWith(`.${v}`);
    default: return glob(v).test(url) || glob(v).test(url.slice(url.indexOf('/')));
  }
}

/** The last page crawled under crawl control: the page where the targets were found (any or all), or every page. */
function stopPage(items: Record<string, unknown>[], p: SerpParams, pages: number): number {
  const targets = p.stop_crawl_on_match ?? [];
  if (!targets.length) return pages;
  const find = p.find_targets_in?.length ? new Set(p.find_targets_in) : null;
  const ignore = new Set(p.ignore_targets_in ?? []);
  const found = new Set<number>();
  for (let page = 1; page <= pages; page++) {
    for (const it of items) {
      if (it.page !== page || ignore.has(String(it.type)) || (find && !find.has(String(it.type)))) continue;
      targets.forEach((t, i) => { if (matches(it, t)) found.add(i); });
    }
    if (p.target_search_mode === 'all' ? found.size === targets.length : found.size > 0) return page;
  }
  return pages;
}

/** `target` on live calls: only elements whose URL fits (`x.com` its home page, `x.com*` its pages, `*x.com*` any subdomain). */
function fitsTarget(item: Record<string, unknown>, target: string): boolean {
  if (typeof item.url !== 'string') return false;
  const bare = bareUrl(item.url);
  return target.includes('*') ? glob(target).test(bare) : bare.replace(/\/$/, '') === target.replace(/\/$/, '');
}

function finishRanks(items: Record<string, unknown>[]): Record<string, unknown>[] {
  const groups = new Map<string, number>();
  items.forEach((it, i) => {
    const t = String(it.type);
    const g = (groups.get(t) ?? 0) + 1;
    groups.set(t, g);
    it.rank_group = g;
    it.rank_absolute = i + 1;
    it.position ??= 'left';
    it.xpath ??= xp(i);
    it.page ??= 1;
  });
  return items;
}

/** Google organic: the day's features around the organic ranking, every further page organic results only. */
function googleOrganicItems(keyword: string, sites: string[], r: Rng, day: number, p: SerpParams, engine: string, pageSize: number, variant: SerpVariant): Record<string, unknown>[] {
  const pageRng = new Rng(hashKeyword(`features|${keyword}|${day}`));
  const organicItems = sites.map((d, i) => ({ ...organic(d, keyword, r.fork(`o${i}`)), page: 1 + Math.floor(i / pageSize) }));
  if (variant === 'regular') return [...(pageRng.chance(0.5) ? [{ ...googleFeature('paid', keyword, sites, r, engine, 0), page: 1 }] : []), ...organicItems];
  const first = organicItems.filter((o) => o.page === 1);
  const rest = organicItems.filter((o) => o.page !== 1);
  const features = Object.entries(GOOGLE_FEATURES).filter(([, share]) => pageRng.chance(share)).map(([t]) => t);
  for (const t of Object.keys(SERP_ITEM_CLASSES.BaseSerpApiElementItem)) {
    if (!(t in GOOGLE_FEATURES) && t !== 'organic' && t !== 'ai_overview' && !t.startsWith('knowledge_graph_') && pageRng.chance(RARE_SHARE)) features.push(t);
  }
  const clicks = p.people_also_ask_click_depth ?? 0;
  const built: Record<string, unknown>[] = features.map((t) => ({ ...googleFeature(t, keyword, sites, r.fork(t), engine, clicks), page: 1 }));
  const top = built.filter((f) => ['paid', 'featured_snippet', 'answer_box', 'local_pack'].includes(String(f.type)));
  const side = built.filter((f) => f.type === 'knowledge_graph');
  const middle = built.filter((f) => !top.includes(f) && !side.includes(f) && f.type !== 'related_searches');
  const bottom = built.filter((f) => f.type === 'related_searches');
  const ai = aiOverview(keyword, day, sites, p.load_async_ai_overview === true);
  const page1: Record<string, unknown>[] = [...(ai ? [{ ...ai, page: 1 }] : []), ...top];
  first.forEach((o, i) => {
    page1.push(o);
    if (i % 2 === 1 && middle.length) page1.push(middle.shift()!);
  });
  return [...page1, ...middle, ...side, ...bottom, ...rest];
}

/** Bing organic: the types its model has (no knowledge graph); Yahoo and Baidu a plainer page. */
function otherOrganicItems(engineName: string, keyword: string, sites: string[], r: Rng, day: number, pageSize: number, variant: SerpVariant): Record<string, unknown>[] {
  const pageRng = new Rng(hashKeyword(`features|${engineName}|${keyword}|${day}`));
  const organicItems = sites.map((d, i) => ({ ...organic(d, keyword, r.fork(`o${i}`)), page: 1 + Math.floor(i / pageSize) }));
  if (variant === 'regular') return organicItems;
  const types = engineName === 'bing'
    ? { paid: 0.5, featured_snippet: 0.2, people_also_ask: 0.5, images: 0.3, video: 0.3, related_searches: 0.8, ai_overview: 0.35, top_stories: 0.2 }
    : { paid: 0.4, images: 0.25, video: 0.25, related_searches: 0.8, top_stories: 0.2 };
  const feats = Object.entries(types).filter(([, s]) => pageRng.chance(s)).map(([t]) => t);
  const built = feats.map((t) => {
    if (t === 'ai_overview') {
      const cited = r.sample(sites.slice(0, 8), 3);
      return { type: t, page: 1, markdown: `About ${keyword}.`, items: [{ type: 'ai_overview_element', text: `${titleCase(keyword)} in short.`, references: cited.map((d, i) => reference(d, keyword, r.fork(`b${i}`))) }], references: cited.map((d, i) => reference(d, keyword, r.fork(`b${i}`))) };
    }
    return { ...googleFeature(t, keyword, sites, r.fork(t), engineName, 0), page: 1 };
  });
  const out: Record<string, unknown>[] = [];
  organicItems.forEach((o, i) => {
    out.push(o);
    if (i === 2 || i === 5) out.push(...built.splice(0, 2));
  });
  return [...out, ...built];
}

/** The base class of the items of a type's results (the client's result models). */
export function itemBaseOf(engine: string, seType: string): string {
  if (seType === 'ai_mode') return 'AiModeAiOverviewInfo';
  if (seType === 'news') return 'BaseSerpApiGoogleNewsElementItem';
  if (seType === 'images') return 'BaseSerpApiGoogleImagesElementItem';
  if (seType === 'maps') return 'BaseSerpApiGoogleMapsElementItem';
  if (engine === 'bing') return 'BaseBingSerpApiElementItem';
  return 'BaseSerpApiElementItem';
}

/** The client's result model of a type and variant (`SerpGoogleOrganicTaskGetAdvancedResultInfo`); none for Bing local pack. */
export function resultModelOf(engine: string, seType: string, variant: SerpVariant): string | undefined {
  const cap = (s: string) => s.split('_').map((w) => w[0].toUpperCase() + w.slice(1)).join('');
  if (seType === 'local_pack') return undefined;
  return `Serp${cap(engine)}${cap(seType)}TaskGet${cap(variant)}ResultInfo`;
}

export interface SerpPage {
  result: Record<string, unknown>;
  /** What the bill depends on (pages crawled, async AI Overview returned, PAA clicks made). */
  billed: BilledOutcome;
}

/**
 * One result page. `engine` is the configured path name (it names the search domain); `live` the live engine the
 * endpoint stands for (`serp.<live>.<type>...`), which decides the page's item types and models.
 */
export function generateSerpPage(p: SerpParams, engine: string, seType: string, variant: SerpVariant, seed: number, now: number, pageSize: number, live = engine): SerpPage {
  const rng = new Rng(seed);
  const keyword = decodeKeyword(p.keyword);
  const seDomain = seDomainFor(engine, p.se_domain);
  const device = p.device ?? 'desktop';
  const day = Math.floor(now / DAY_MS);
  const depth = Math.min(p.depth ?? pageSize, 700);
  let pages = Math.max(1, Math.min(p.max_crawl_pages ?? 100, Math.ceil(depth / pageSize)));
  const head = { keyword, type: seType, se_domain: seDomain, location_code: p.location_code ?? null, language_code: p.language_code ?? 'en' };
  const model = resultModelOf(live, seType, variant);
  const shape = (v: Record<string, unknown>) => (model ? (shaped(model, v) as Record<string, unknown>) : v);
  const count = Math.max(3, Math.min(depth, pages * pageSize));
  const sites = ranking(keyword, count, day, device, p.location_code);
  if (variant === 'html') {
    const items = Array.from({ length: pages }, (_, i) => ({ page: i + 1, date: ts(now), html: `<!doctype html><html><head><title>${keyword} - ${engine}</title></head><body data-type="${seType}" data-page="${i + 1}">${sites.slice(i * pageSize, (i + 1) * pageSize).map((d) => `<div class="g"><a href="https://${d}/">${d}</a></div>`).join('')}</body></html>` }));
    return { result: shape({ ...head, datetime: ts(now), items_count: items.length, items }), billed: { pages, asyncAiOverview: false, paaClicks: 0 } };
  }
  let items: Record<string, unknown>[];
  if (seType === 'organic') {
    items = live === 'google'
      ? googleOrganicItems(keyword, sites, rng, day, p, engine, pageSize, variant)
      : otherOrganicItems(live, keyword, sites, rng, day, pageSize, variant);
    pages = stopPage(items, p, pages);
    items = items.filter((it) => Number(it.page ?? 1) <= pages);
    if (p.target) items = items.filter((it) => fitsTarget(it, p.target!));
  } else if (seType === 'ai_mode') {
    // One AI answer citing sources of the day's ranking (client AiModeAiOverviewInfo).
    const r = new Rng(hashKeyword(`ai_mode|${keyword}|${day}`));
    const cited = r.sample(sites.slice(0, 10), r.int(3, 6));
    const refs = cited.map((d, i) => reference(d, keyword, r.fork(`m${i}`)));
    items = [{
      type: 'ai_overview', page: 1, markdown: `**${titleCase(keyword)}**: what to know.\n\n${cited.map((d) => `- [${d}](https://${d}/)`).join('\n')}`,
      items: [
        { type: 'ai_overview_element', title: null, text: `${titleCase(keyword)} depends on what you need.`, references: refs.slice(0, 3) },
        { type: 'ai_overview_table_element', markdown: `| option | for |\n|---|---|\n| ${keyword} | most people |` },
      ],
      references: refs,
    }];
  } else if (seType === 'news') {
    items = sites.map((d, i) => ({ type: 'news_search', page: 1 + Math.floor(i / pageSize), domain: d, title: `${titleCase(keyword)}: what changed`, url: `https://${d}/news/${slug(keyword)}`, snippet: `Latest on ${keyword}.`, time_published: `${i + 1} hours ago`, source: d, timestamp: ts(now - (i + 1) * 3_600_000) }));
    if (new Rng(hashKeyword(`news|${keyword}|${day}`)).chance(0.4)) items.splice(2, 0, { type: 'top_stories', page: 1, title: 'Top stories', items: [0, 1].map((k) => ({ type: 'top_stories_element', source: sites[k], domain: sites[k], title: `${titleCase(keyword)} today`, url: `https://${sites[k]}/news/${k}` })) });
  } else if (seType === 'images') {
    items = sites.map((d, i) => ({ type: 'images_search', page: 1, title: `${titleCase(keyword)} picture ${i + 1}`, subtitle: d, alt: `${keyword} ${i + 1}`, url: `https://${d}/gallery/${i}`, source_url: `https://${d}/img/${i}.jpg` }));
    items.push({ type: 'related_searches', page: 1, items: [`${keyword} ideas`, `${keyword} hd`] });
  } else if (seType === 'maps' || seType === 'local_pack') {
    items = sites.map((d, i) => {
      const r = rng.fork(`m${i}`);
      const name = `${titleCase(keyword)} ${r.pick(CITIES)} ${i + 1}`;
      const common = { page: 1 + Math.floor(i / pageSize), domain: d, title: name, url: `https://${d}/`, rating: rating(r), cid: String(r.int(1e9, 9e9)) + String(r.int(1e8, 9e8)) };
      if (seType === 'local_pack') return shaped('BingLocalPackSerpElementItem', { type: 'local_pack', ...common, description: 'Open now', phone: `+1 555-${String(100 + i).padStart(4, '0')}`, is_paid: false, is_claimed: r.chance(0.7) }) as Record<string, unknown>;
      return { type: i === 0 && r.chance(0.3) ? 'maps_paid_item' : 'maps_search', ...common, snippet: `${r.int(1, 999)} Main St`, address: `${r.int(1, 999)} Main St, ${r.pick(CITIES)}`, address_info: { address: 'Main St', city: r.pick(CITIES), zip: String(r.int(10000, 99999)), country_code: 'US' }, place_id: `ChIJ${r.hex(20)}`, phone: `+1 555-${String(100 + i).padStart(4, '0')}`, total_photos: r.int(0, 400), category: r.pick(['Store', 'Restaurant', 'Service']), additional_categories: ['Shop'], work_hours: { current_status: 'open' }, feature_id: `0x${r.hex(16)}:0x${r.hex(16)}`, latitude: r.float(25, 48, 6), longitude: r.float(-120, -70, 6), is_claimed: r.chance(0.7), rating_distribution: { 1: r.int(0, 9), 5: r.int(10, 99) }, original_title: name, contact_url: `https://${d}/contact`, contributor_url: null, book_online_url: r.chance(0.3) ? `https://${d}/book` : null };
    });
  } else items = [];
  items = finishRanks(items);
  withRectangles(items, p.calculate_rectangles === true, device);
  const base = itemBaseOf(live, seType);
  const ai = items.find((i) => i.type === 'ai_overview');
  const paa = items.some((i) => i.type === 'people_also_ask');
  const result = shape({
    ...head,
    check_url: `https://${seDomain}/search?q=${encodeURIComponent(keyword)}${seType === 'organic' ? '' : `&tbm=${seType}`}`,
    datetime: ts(now),
    item_types: [...new Set(items.map((i) => String(i.type)))],
    se_results_count: count * 1000 + rng.int(0, 999),
    pages_count: pages,
    items_count: items.length,
    items: seType === 'local_pack' ? items : items.map((i) => shaped(base, i)),
  });
  return { result, billed: { pages, asyncAiOverview: ai?.asynchronous_ai_overview === true, paaClicks: paa ? (p.people_also_ask_click_depth ?? 0) : 0 } };
}
