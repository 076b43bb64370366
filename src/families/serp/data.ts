/**
 * SERP result pages in the live service's shapes (docs/api-live.md, `## SERP`), deterministic from the task's
 * parameters and the day of completion: the same keyword keeps the same candidate sites, and their order moves
 * a little from one day to the next, so rank history and movement have something to show.
 */
import { Rng } from '../../sandbox/data/prng.js';
import { NOUNS, TLDS, CITIES, BRANDS, slug, titleCase } from '../../sandbox/data/words.js';
import { decodeKeyword, seDomainFor, ts } from '../../sandbox/data/common.js';
import { DAY_MS } from '../../sandbox/clock.js';

export interface SerpParams {
  keyword: string;
  location_code?: number | null;
  language_code?: string | null;
  depth?: number;
  max_crawl_pages?: number;
  device?: string;
  se_domain?: string;
}

export type SerpVariant = 'regular' | 'advanced' | 'html';

/** Sites that compete for a keyword: the same for every day and device, so positions can be compared. */
function candidates(keyword: string, n: number): string[] {
  const rng = new Rng(hashKeyword(keyword));
  const base = slug(keyword).replace(/-/g, '') || 'site';
  return Array.from({ length: n }, (_, i) => {
    const r = rng.fork(i);
    const word = i % 3 === 0 ? base : `${r.pick(NOUNS).toLowerCase().replace(/[^a-z]/g, '')}${r.pick(['hub', 'guide', 'shop', 'review', 'world', 'daily'])}`;
    return `${i % 4 === 0 ? 'www.' : ''}${word}${i}.${r.pick(TLDS)}`;
  });
}

function hashKeyword(keyword: string): number {
  let h = 2166136261;
  for (let i = 0; i < keyword.length; i++) h = Math.imul(h ^ keyword.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Today's order: each site's stable strength plus a day's noise; device and location shift it a little too. */
function ranking(keyword: string, count: number, day: number, device: string, location: number | null | undefined): string[] {
  const sites = candidates(keyword, count + 5);
  const dayRng = new Rng(hashKeyword(`${keyword}|${device}|${location ?? ''}|${day}`));
  const scored = sites.map((d, i) => ({ d, s: i + dayRng.next() * 3.5 }));
  scored.sort((a, b) => a.s - b.s);
  return scored.slice(0, count).map((x) => x.d);
}

const rating = (r: Rng) => ({ rating_type: 'Max5', value: r.float(3, 5, 1), votes_count: r.int(3, 5000), rating_max: 5 });
const xp = (i: number) => `/html[1]/body[1]/div[2]/div[1]/div[${i + 1}]/div[1]`;

function organicItem(domain: string, keyword: string, rankGroup: number, page: number, r: Rng, variant: SerpVariant): Record<string, unknown> {
  const url = `https://${domain}/${slug(keyword)}`;
  const base: Record<string, unknown> = {
    type: 'organic', rank_group: rankGroup, rank_absolute: 0, page, position: 'left', xpath: xp(rankGroup),
    domain, title: `${titleCase(keyword)} - ${domain.replace(/^www\./, '')}`, description: `Everything about ${keyword}: guides, prices and reviews on ${domain}.`,
    url, breadcrumb: `https://${domain} › ${slug(keyword)}`, website_name: domain.split('.')[0] === 'www' ? domain.split('.')[1] : domain.split('.')[0],
    is_image: false, is_video: r.chance(0.1), is_featured_snippet: false, is_malicious: false, is_web_story: false, amp_version: r.chance(0.2),
  };
  if (variant === 'regular') return base;
  return {
    ...base,
    cache_url: null, related_search_url: null, pre_snippet: null, extended_snippet: null,
    timestamp: r.chance(0.3) ? ts(Date.UTC(2026, r.int(0, 9), r.int(1, 28))) : null,
    rating: r.chance(0.2) ? rating(r) : null,
    price: null,
    highlighted: [keyword],
    links: r.chance(0.3) ? [0, 1].map((k) => ({ type: 'link_element', title: `${titleCase(keyword)} ${k ? 'prices' : 'guide'}`, description: null, url: `${url}/${k ? 'prices' : 'guide'}`, domain })) : null,
    faq: null, about_this_result: null, related_result: null, images: null, checks: null, extended_people_also_search: null,
  };
}

/** Advanced organic page: every feature the tables know, around the day's organic ranking. */
function organicAdvancedItems(keyword: string, sites: string[], r: Rng, engine: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const [fsDomain] = sites;
  out.push({ type: 'paid', rank_group: 1, page: 1, position: 'left', xpath: xp(0), domain: `shop.${BRANDS[0].toLowerCase()}.com`, title: `Buy ${keyword} today`, description: `Great deals on ${keyword}.`, url: `https://shop.${BRANDS[0].toLowerCase()}.com/${slug(keyword)}`, breadcrumb: null, website_name: BRANDS[0], is_image: false, is_video: false, highlighted: [keyword], extra: null, description_rows: null, links: null, price: null, rating: null });
  out.push({ type: 'featured_snippet', rank_group: 1, page: 1, position: 'left', xpath: xp(1), domain: fsDomain, title: `What is ${keyword}?`, description: `${titleCase(keyword)} explained in one paragraph.`, url: `https://${fsDomain}/${slug(keyword)}`, breadcrumb: null, featured_title: `${titleCase(keyword)}: a definition`, timestamp: null, images: null, table: null });
  sites.slice(0, 3).forEach((d, i) => out.push(organicItem(d, keyword, i + 1, 1, r.fork(`o${i}`), 'advanced')));
  out.push({ type: 'people_also_ask', rank_group: 1, page: 1, position: 'left', xpath: xp(5), items: [0, 1].map((k) => ({
    type: 'people_also_ask_element', title: `${k ? 'How much does' : 'What is the best'} ${keyword}?`, seed_question: null, xpath: `${xp(5)}/div[${k + 1}]`,
    expanded_element: [{ type: 'people_also_ask_expanded_element', featured_title: null, url: `https://${sites[k + 3]}/faq`, domain: sites[k + 3], title: `${titleCase(keyword)} FAQ`, description: `Short answer about ${keyword}.`, timestamp: null, images: null, table: null }],
  })) });
  out.push({ type: 'local_pack', rank_group: 1, page: 1, position: 'left', xpath: xp(6), title: `${titleCase(keyword)} ${r.pick(CITIES)}`, description: 'Open now', domain: `local-${slug(keyword)}.com`, phone: '+1 555-0100', booking_url: null, url: `https://local-${slug(keyword)}.com/`, is_paid: false, rating: rating(r), cid: String(r.int(1e9, 9e9)) + String(r.int(1e8, 9e8)) });
  out.push({ type: 'knowledge_graph', rank_group: 1, page: 1, position: 'right', xpath: '/html[1]/body[1]/div[3]', title: titleCase(keyword), subtitle: 'Topic', description: `${titleCase(keyword)} is a topic.`, card_id: `/g/${r.hex(8)}`, url: null, image_url: null, logo_url: null, cid: null, items: [
    { type: 'knowledge_graph_description_item', rank_group: 1, rank_absolute: 1, position: 'right', xpath: '/html[1]/body[1]/div[3]/div[1]', text: `${titleCase(keyword)} in brief.`, links: null },
    { type: 'knowledge_graph_row_item', rank_group: 1, rank_absolute: 2, position: 'right', xpath: '/html[1]/body[1]/div[3]/div[2]', title: 'Founded', text: String(r.int(1950, 2020)), data_attrid: 'kc:/organization:founded', links: null },
  ] });
  out.push({ type: 'top_stories', rank_group: 1, page: 1, position: 'left', xpath: xp(7), title: 'Top stories', items: [0, 1].map((k) => ({ type: 'top_stories_element', source: `${BRANDS[k + 1]} News`, domain: `news.${BRANDS[k + 1].toLowerCase()}.com`, title: `${titleCase(keyword)} in the news`, date: `${k + 1} hours ago`, amp_version: false, timestamp: null, url: `https://news.${BRANDS[k + 1].toLowerCase()}.com/${r.hex(6)}`, image_url: null, badges: null })) });
  out.push({ type: 'images', rank_group: 1, page: 1, position: 'left', xpath: xp(8), title: `Images for ${keyword}`, url: `https://${engine}.com/images?q=${encodeURIComponent(keyword)}`, items: [0, 1, 2].map((k) => ({ type: 'images_element', alt: `${keyword} ${k}`, url: `https://${sites[k]}/`, image_url: `https://${sites[k]}/img/${k}.jpg` })), related_image_searches: null });
  sites.slice(3).forEach((d, i) => out.push(organicItem(d, keyword, i + 4, 1 + Math.floor((i + 3) / 10), r.fork(`o${i + 3}`), 'advanced')));
  out.push({ type: 'video', rank_group: 1, page: 1, position: 'left', xpath: xp(9), items: [{ type: 'video_element', source: 'YouTube', preview: null, title: `${titleCase(keyword)} review`, timestamp: null, url: `https://www.youtube.com/watch?v=${r.hex(11)}` }] });
  out.push({ type: 'shopping', rank_group: 1, page: 1, position: 'right', xpath: xp(10), title: `Shop ${keyword}`, items: [{ type: 'shopping_element', title: `${titleCase(keyword)} ${BRANDS[3]}`, price: { current: r.float(5, 500), regular: null, max_value: null, currency: 'USD', is_price_range: false, displayed_price: '$' }, source: BRANDS[3], description: null, marketplace: null, marketplace_url: null, url: `https://${BRANDS[3].toLowerCase()}.com/p/${r.hex(6)}`, rating: null }] });
  out.push({ type: 'related_searches', rank_group: 1, page: 1, position: 'left', xpath: xp(11), items: [`${keyword} price`, `best ${keyword}`, `${keyword} near me`] });
  return out;
}

function finishRanks(items: Record<string, unknown>[]): Record<string, unknown>[] {
  const groups = new Map<string, number>();
  items.forEach((it, i) => {
    const t = String(it.type);
    const g = (groups.get(t) ?? 0) + 1;
    groups.set(t, g);
    it.rank_group = g;
    it.rank_absolute = i + 1;
  });
  return items;
}

export function generateSerp(p: SerpParams, engine: string, seType: string, variant: SerpVariant, seed: number, now: number, pageSize: number): Record<string, unknown> {
  const rng = new Rng(seed);
  const keyword = decodeKeyword(p.keyword);
  const seDomain = seDomainFor(engine, p.se_domain);
  const device = p.device ?? 'desktop';
  const day = Math.floor(now / DAY_MS);
  const depth = Math.min(p.depth ?? pageSize, 700);
  const pages = Math.max(1, Math.min(p.max_crawl_pages ?? 100, Math.ceil(depth / pageSize)));
  const head = { keyword, type: seType, se_domain: seDomain, location_code: p.location_code ?? null, language_code: p.language_code ?? 'en' };
  if (variant === 'html') {
    const items = Array.from({ length: pages }, (_, i) => ({ page: i + 1, date: ts(now), html: `<!doctype html><html><head><title>${keyword} - ${engine}</title></head><body data-type="${seType}" data-page="${i + 1}">${ranking(keyword, Math.min(depth, 10), day, device, p.location_code).map((d) => `<div class="g"><a href="https://${d}/">${d}</a></div>`).join('')}</body></html>` }));
    return { ...head, datetime: ts(now), items_count: items.length, items };
  }
  const count = Math.max(3, Math.min(depth, pages * pageSize));
  let items: Record<string, unknown>[];
  if (seType === 'organic') {
    const sites = ranking(keyword, count, day, device, p.location_code);
    items = variant === 'advanced'
      ? organicAdvancedItems(keyword, sites, rng, engine)
      : [{ type: 'paid', rank_group: 1, page: 1, position: 'left', xpath: xp(0), domain: `shop.${BRANDS[0].toLowerCase()}.com`, title: `Buy ${keyword} today`, description: `Great deals on ${keyword}.`, url: `https://shop.${BRANDS[0].toLowerCase()}.com/${slug(keyword)}`, breadcrumb: null, is_image: false, is_video: false },
        ...sites.map((d, i) => organicItem(d, keyword, i + 1, 1 + Math.floor(i / pageSize), rng.fork(`o${i}`), 'regular'))];
  } else if (seType === 'news') {
    items = ranking(keyword, count, day, device, p.location_code).map((d, i) => ({ type: 'news_search', rank_group: i + 1, page: 1 + Math.floor(i / pageSize), position: 'left', xpath: xp(i), domain: d, title: `${titleCase(keyword)}: what changed`, url: `https://${d}/news/${slug(keyword)}`, image_url: null, snippet: `Latest on ${keyword}.`, time_published: `${i + 1} hours ago`, source: d, timestamp: ts(now - (i + 1) * 3_600_000) }));
  } else if (seType === 'images') {
    items = ranking(keyword, count, day, device, p.location_code).map((d, i) => ({ type: 'images_search', rank_group: i + 1, page: 1, position: 'left', xpath: xp(i), title: `${titleCase(keyword)} picture ${i + 1}`, subtitle: d, alt: `${keyword} ${i + 1}`, url: `https://${d}/gallery/${i}`, source_url: `https://${d}/img/${i}.jpg`, encoded_url: null }));
  } else if (seType === 'maps' || seType === 'local_pack') {
    items = ranking(keyword, count, day, device, p.location_code).map((d, i) => {
      const r = rng.fork(`m${i}`);
      const name = `${titleCase(keyword)} ${r.pick(CITIES)} ${i + 1}`;
      const common = { rank_group: i + 1, page: 1 + Math.floor(i / pageSize), position: 'left', xpath: xp(i), domain: d, title: name, url: `https://${d}/`, rating: rating(r), cid: String(r.int(1e9, 9e9)) + String(r.int(1e8, 9e8)) };
      if (seType === 'local_pack') return { type: 'local_pack', ...common, description: 'Open now', phone: `+1 555-${String(100 + i).padStart(4, '0')}`, booking_url: null, is_paid: false, is_claimed: r.chance(0.7) };
      return { type: 'maps_search', ...common, snippet: `${r.int(1, 999)} Main St`, address: `${r.int(1, 999)} Main St, ${r.pick(CITIES)}`, address_info: { borough: null, address: 'Main St', city: r.pick(CITIES), zip: String(r.int(10000, 99999)), region: null, country_code: 'US' }, place_id: `ChIJ${r.hex(20)}`, phone: `+1 555-${String(100 + i).padStart(4, '0')}`, main_image: null, total_photos: r.int(0, 400), category: r.pick(['Store', 'Restaurant', 'Service']), additional_categories: ['Shop'], category_ids: null, work_hours: { timetable: null, current_status: 'open' }, feature_id: `0x${r.hex(16)}:0x${r.hex(16)}`, latitude: r.float(25, 48, 6), longitude: r.float(-120, -70, 6), is_claimed: r.chance(0.7), price_level: null, hotel_rating: null, rating_distribution: { 1: r.int(0, 9), 5: r.int(10, 99) }, local_justifications: null, is_directory_item: false };
    });
  } else items = [];
  items = finishRanks(items);
  return {
    ...head,
    check_url: `https://${seDomain}/search?q=${encodeURIComponent(keyword)}${seType === 'organic' ? '' : `&tbm=${seType}`}`,
    datetime: ts(now),
    spell: null,
    refinement_chips: null,
    item_types: [...new Set(items.map((i) => String(i.type)))],
    se_results_count: count * 1000 + rng.int(0, 999),
    pages_count: pages,
    items_count: items.length,
    items,
  };
}
