/**
 * Merchant shopping SERP results (E9). Item types carry the configured engine prefix
 * (`<engine>_shopping_serp`). `allTypes` (the all-zero sandbox id) guarantees every item type and every
 * optional shape: carousel elements with and without special offers, delivery with and without a price,
 * ratings of each type, related searches.
 */
import { Rng } from '../../data/prng.js';
import { ADJECTIVES, BRANDS, SELLERS, TLDS, CURRENCIES, MODIFIERS, slug } from '../../data/words.js';
import { decodeKeyword, seDomainFor, ts } from '../../data/common.js';

export interface MerchantParams {
  keyword: string;
  location_code?: number | null;
  language_code?: string | null;
  se_domain?: string;
  price_min?: number;
  price_max?: number;
  sort_by?: string;
  depth?: number;
  max_crawl_pages?: number;
}

export interface MerchantOptions {
  now?: number;
  /** Every item type and optional shape at least once (the sandbox's all-zero task id). */
  allTypes?: boolean;
}

const RATING_TYPES = [['Max5', 5], ['Percents', 100], ['CustomMax', 10]] as const;

function rating(r: Rng, position: string, forceType?: number): Record<string, unknown> {
  const [type, max] = RATING_TYPES[forceType ?? (r.chance(0.8) ? 0 : r.int(1, 2))];
  const value = type === 'Max5' ? r.float(1, 5, 1) : type === 'Percents' ? r.int(40, 100) : r.float(1, 10, 1);
  return { type: 'rating_element', position, rating_type: type, value, votes_count: r.int(1, 25000), rating_max: max };
}

/**
 * Delivery as the live service sends it: message, price and the delivery date window (UTC timestamps), counted in
 * days from the start of the crawl's UTC day, so the same task gives the same dates all day (as events do).
 */
function deliveryInfo(r: Rng, currency: string, now: number, paid?: boolean): Record<string, unknown> {
  const isPaid = paid ?? r.chance(0.5);
  const current = r.float(2, 30, 2);
  const range = r.chance(0.2);
  const day = 86_400_000;
  const today = Math.floor(now / day) * day;
  const from = today + r.int(1, 4) * day;
  const fast = r.chance(0.4);
  return {
    delivery_date_from: ts(from),
    delivery_date_to: ts(from + r.int(1, 5) * day),
    fastest_delivery_date_from: fast ? ts(today + day) : null,
    fastest_delivery_date_to: fast ? ts(today + 2 * day) : null,
    delivery_message: isPaid ? `Delivery ${current.toFixed(2)} ${currency}` : 'Free delivery',
    delivery_price: isPaid
      ? { current, regular: Math.round(current * 1.2 * 100) / 100, max_value: range ? Math.round(current * 2 * 100) / 100 : current, currency, is_price_range: range, displayed_price: `${range ? 'from ' : ''}${current.toFixed(2)} ${currency}` }
      : null,
  };
}

/** The live service puts stores_count_info on the item, beside delivery_info; its count is a number. */
function storesCount(r: Rng): Record<string, unknown> {
  const count = r.int(1, 60);
  return { count, displayed_text: `${count}+ stores`, count_from_text: r.chance(0.5) };
}

const gidOf = (r: Rng) => String(r.int(1e9, 9e9)) + String(r.int(1e8, 9e8));

function specialOffer(r: Rng, currency: string): Record<string, unknown> {
  const d = `${slug(r.pick(SELLERS))}.${r.pick(TLDS)}`;
  return {
    title: `${r.int(5, 40)}% off`,
    sub_title: r.pick(['Limited time', 'With code', 'Members only', 'This week']),
    fixed_discount: r.int(1, 50),
    fixed_discount_currency: currency,
    percentage_discount: r.int(5, 40),
    coupon_code: r.hex(8).toUpperCase(),
    coupon_info: 'Applied at checkout',
    // Deprecated on the live service: always null.
    url: null,
    domain: d,
  };
}

function priceIn(r: Rng, p: MerchantParams): number {
  const min = p.price_min ?? 5;
  const max = Math.max(min + 1, p.price_max ?? Math.max(min * 4, 500));
  return r.float(min, max, 2);
}

/** The item types of a merchant page on an engine. */
function merchantTypes(engine: string) {
  return {
    carousel: `${engine}_shopping_sponsored_carousel`, element: `${engine}_shopping_sponsored_carousel_element`,
    organic: `${engine}_shopping_carousel`, organicElement: `${engine}_shopping_carousel_element`,
    paid: `${engine}_shopping_paid`, serp: `${engine}_shopping_serp`, related: 'related_searches',
  };
}

/** What every item of one merchant page is generated with. */
interface MerchantPage {
  p: MerchantParams;
  T: ReturnType<typeof merchantTypes>;
  keyword: string;
  seDomain: string;
  currency: string;
  now: number;
  all: boolean;
}

/** What every item carries: its type, ranks, position and xpath. */
interface ItemCommon { type: string; rank_group: number; rank_absolute: number; position: string; xpath: string }

/** One merchant shopping SERP result element for a keyword, with `n` items. */
export function generateMerchant(p: MerchantParams, engine: string, n: number, seed: number, opts: MerchantOptions = {}): Record<string, unknown> {
  const rng = new Rng(seed);
  const now = opts.now ?? Date.now();
  const keyword = decodeKeyword(p.keyword);
  const seDomain = seDomainFor(engine, p.se_domain);
  const T = merchantTypes(engine);
  const currency = rng.pick(CURRENCIES);
  const all = opts.allTypes ?? false;
  const page: MerchantPage = { p, T, keyword, seDomain, currency, now, all };
  const layout = merchantLayout(rng, T, n, all);

  const rankGroups: Record<string, number> = {};
  const items = layout.map((type, idx) => {
    const r = rng.fork(idx);
    rankGroups[type] = (rankGroups[type] ?? 0) + 1;
    const position = type === T.paid && r.chance(0.4) ? 'right' : 'left';
    const common = { type, rank_group: rankGroups[type], rank_absolute: idx + 1, position, xpath: `/html[1]/body[1]/div[5]/div[${idx + 1}]` };
    if (type === T.carousel) return sponsoredCarousel(page, r, common);
    if (type === T.organic) return productCarousel(page, r, common);
    if (type === T.paid) return paidItem(page, r, common);
    if (type === T.serp) return serpItem(page, r, common, rankGroups[type]);
    const related = r.int(0, 8);
    return { ...common, items: related === 0 && !all ? null : Array.from({ length: Math.max(related, all ? 4 : 0) }, () => `${r.pick(MODIFIERS)} ${keyword}`) };
  });
  if (p.sort_by === 'price_low_to_high' || p.sort_by === 'price_high_to_low') sortByPrice(items, T.serp, p.sort_by === 'price_low_to_high' ? 1 : -1);

  const itemTypes = [...new Set(items.map((i) => i.type))];
  return {
    keyword,
    type: 'shopping',
    se_domain: seDomain,
    location_code: p.location_code ?? null,
    language_code: p.language_code ?? null,
    check_url: `https://${seDomain}/search?q=${encodeURIComponent(keyword)}&tbm=shop&hl=${p.language_code ?? 'en'}`,
    datetime: ts(now),
    spell: rng.chance(0.1) || all ? { keyword: `${keyword}s`, type: rng.pick(['did_you_mean', 'showing_results_for', 'no_results_found_for', 'including_results_for']) } : null,
    item_types: itemTypes,
    items_count: items.length,
    items,
  };
}

/** The page's item types in order: which of the optional blocks show, and how many results fill the rest. */
function merchantLayout(rng: Rng, T: MerchantPage['T'], n: number, all: boolean): string[] {
  const hasCarousel = all || rng.chance(0.7);
  const hasRelated = all || rng.chance(0.6);
  const hasOrganic = all || rng.chance(0.4);
  const paidCount = all ? 2 : rng.int(0, 3);
  const serpCount = Math.max(1, n - (hasCarousel ? 1 : 0) - (hasOrganic ? 1 : 0) - (hasRelated ? 1 : 0) - paidCount);
  const layout: string[] = [];
  if (hasCarousel) layout.push(T.carousel);
  for (let i = 0; i < paidCount; i++) layout.push(T.paid);
  for (let i = 0; i < serpCount; i++) {
    layout.push(T.serp);
    if (hasOrganic && i === Math.min(2, serpCount - 1)) layout.push(T.organic);
  }
  if (hasRelated) layout.push(T.related);
  return layout;
}

const productTitle = (r: Rng, keyword: string) => `${r.pick(BRANDS)} ${r.pick(ADJECTIVES)} ${keyword}`;

/** A carousel element: what the sponsored and the product carousels share (its title drawn from the item's `r`). */
function carouselElement(page: MerchantPage, r: Rng, e: Rng, k: number, xpath: string, elementType: string, images: number): Record<string, unknown> {
  return {
    type: elementType,
    xpath: `${xpath}/div[${k + 1}]`,
    title: productTitle(r, page.keyword),
    tags: e.chance(0.5) ? [e.pick(['Sale', 'Popular', 'New', 'Free returns'])] : [],
    seller: e.pick(SELLERS),
    price: priceIn(e, page.p),
    currency: page.currency,
    product_rating: rating(e, 'left', page.all ? k % 3 : undefined),
    product_images: Array.from({ length: images }, () => `https://images.example-shop.com/${e.hex(10)}.jpg`),
  };
}

function sponsoredCarousel(page: MerchantPage, r: Rng, common: ItemCommon) {
  const { all, currency, now } = page;
  return {
    ...common,
    title: `Sponsored: ${page.keyword}`,
    items: Array.from({ length: r.int(3, 6) }, (_, k) => {
      const e = r.fork(`c${k}`);
      return {
        ...carouselElement(page, r, e, k, common.xpath, page.T.element, 2),
        shop_ad_aclk: `DChcSE${e.hex(20)}`,
        delivery_info: deliveryInfo(e, currency, now, all ? k % 2 === 0 : undefined),
        special_offer_info: (all && k === 0) || (!all && e.chance(0.3)) ? specialOffer(e, currency) : null,
      };
    }),
  };
}

function productCarousel(page: MerchantPage, r: Rng, common: ItemCommon) {
  const { all, currency, now, seDomain } = page;
  return {
    ...common,
    title: `Popular products: ${page.keyword}`,
    items: Array.from({ length: r.int(3, 6) }, (_, k) => {
      const e = r.fork(`o${k}`);
      return {
        ...carouselElement(page, r, e, k, common.xpath, page.T.organicElement, 1),
        shopping_url: `https://${seDomain}/shopping/product/${e.int(1e9, 9e9)}`,
        product_id: String(e.int(1e9, 9e9)) + String(e.int(1e8, 9e8)),
        data_docid: String(e.int(1e9, 9e9)) + String(e.int(1e8, 9e8)),
        gid: gidOf(e),
        delivery_info: deliveryInfo(e, currency, now, all ? k % 2 === 1 : undefined),
        special_offer_info: (all && k === 1) || (!all && e.chance(0.2)) ? specialOffer(e, currency) : null,
      };
    }),
  };
}

function paidItem(page: MerchantPage, r: Rng, common: ItemCommon) {
  const { keyword } = page;
  const seller = r.pick(SELLERS);
  const domain = `${slug(seller)}.${r.pick(TLDS)}`;
  return { ...common, domain, title: productTitle(r, keyword), description: `Shop ${keyword} at ${seller}. ${r.pick(MODIFIERS)}.`, url: `https://${domain}/p/${r.hex(8)}`, shop_ad_aclk: `DChcSE${r.hex(20)}` };
}

/** A shopping result; the first of the page (`serpIdx` 1) has every optional field when `all`. */
function serpItem(page: MerchantPage, r: Rng, common: ItemCommon, serpIdx: number) {
  const { all, keyword, seDomain, currency, now, p } = page;
  const seller = r.pick(SELLERS);
  const domain = `${slug(seller)}.${r.pick(TLDS)}`;
  const price = priceIn(r, p);
  const discounted = r.chance(0.3);
  return {
    ...common,
    domain,
    title: productTitle(r, keyword),
    description: `${keyword} by ${r.pick(BRANDS)}: ${r.pick(MODIFIERS)}, ${r.pick(MODIFIERS)}.`,
    url: `https://${domain}/p/${r.hex(8)}`,
    shopping_url: `https://${seDomain}/shopping/product/${r.int(1e9, 9e9)}`,
    tags: r.chance(0.4) ? [r.pick(['Sale', 'Best seller', 'Eco', 'Refurbished'])] : [],
    price,
    price_multiplier: r.chance(0.1) ? r.pick([3, 6, 12, 24]) : 1,
    old_price: discounted || (all && serpIdx === 1) ? Math.round(price * 1.25 * 100) / 100 : null,
    currency,
    product_id: r.chance(0.15) && !(all && serpIdx === 1) ? null : String(r.int(1e9, 9e9)) + String(r.int(1e8, 9e8)),
    data_docid: String(r.int(1e9, 9e9)) + String(r.int(1e8, 9e8)),
    seller,
    additional_specifications: { eid: r.hex(12), prds: `pid:${r.int(1e6, 9e6)}` },
    reviews_count: r.chance(0.2) && !(all && serpIdx === 1) ? null : r.int(0, 40000),
    is_best_match: r.chance(0.3) ? null : r.chance(0.2),
    product_rating: rating(r, 'left', all ? (serpIdx - 1) % 3 : undefined),
    shop_rating: r.chance(0.3) && !(all && serpIdx === 1) ? null : rating(r, 'right'),
    product_images: Array.from({ length: r.int(1, 4) }, () => `https://images.example-shop.com/${r.hex(10)}.jpg`),
    shop_ad_aclk: `DChcSE${r.hex(20)}`,
    gid: gidOf(r),
    delivery_info: deliveryInfo(r, currency, now, all ? serpIdx % 2 === 1 : undefined),
    stores_count_info: storesCount(r),
  };
}

/** `sort_by` a price: the shopping results reordered among their own slots, ranks and xpaths following them. */
function sortByPrice(items: ItemCommon[], serpType: string, dir: 1 | -1): void {
  const serp = items.filter((i) => i.type === serpType) as unknown as { price: number }[];
  serp.sort((a, b) => dir * (a.price - b.price));
  let k = 0;
  items.forEach((it, idx) => {
    if (it.type === serpType) {
      const s = serp[k++] as Record<string, unknown>;
      Object.assign(s, { rank_group: k, rank_absolute: idx + 1, xpath: `/html[1]/body[1]/div[5]/div[${idx + 1}]` });
      items[idx] = s as unknown as typeof it;
    }
  });
}

/** The html variant (task_get/html, or a postback with postback_data "html"): a page per 40 results, at most max_crawl_pages. */
export function generateMerchantHtml(p: MerchantParams, engine: string, seed: number, now: number): Record<string, unknown> {
  const rng = new Rng(seed);
  const keyword = decodeKeyword(p.keyword);
  const seDomain = seDomainFor(engine, p.se_domain);
  const pages = Math.max(1, Math.min(p.max_crawl_pages ?? 7, Math.ceil((p.depth ?? 40) / 40)));
  const items = Array.from({ length: pages }, (_, i) => ({
    page: i + 1,
    date: ts(now),
    html: `<!doctype html><html><head><title>${keyword} - Shopping</title></head><body data-page="${i + 1}">${Array.from({ length: 5 }, () => `<div class="product">${rng.pick(BRANDS)} ${keyword}</div>`).join('')}</body></html>`,
  }));
  return {
    keyword,
    type: 'shopping',
    se_domain: seDomain,
    location_code: p.location_code ?? null,
    language_code: p.language_code ?? null,
    datetime: ts(now),
    items_count: items.length,
    items,
  };
}
