/** What a task costs by the configured price table; the planner estimates with it and the sandbox bills with it. */
import type { EndpointDef } from '../catalog/endpoint.js';
import type { PriceTable } from '../config/index.js';

/** What the service did for a task that decides its bill after the fact (pages crawled, options it could use). */
export interface BilledOutcome {
  /** Result pages crawled: fewer than asked when the results ran out or crawl control stopped at a target. */
  pages: number;
  /** An AI Overview loaded asynchronously was returned (load_async_ai_overview is refunded otherwise). */
  asyncAiOverview: boolean;
  /** People-also-ask clicks made (people_also_ask_click_depth is refunded for those not made). */
  paaClicks: number;
  /** Rows returned, for endpoints billed per row (the price table's `per_row`). */
  rows?: number;
  /** Pages an On-Page crawl crawled (the price table's `per_crawled_page`); the rest of `max_crawl_pages` is refunded. */
  crawledPages?: number;
  /** Tokens an LLM read and wrote (the price table's token prices). */
  tokens?: { input: number; output: number };
}

type PriceRow = PriceTable[string];

/** Pages an On-Page crawl task is reserved for: its `max_crawl_pages` (a required field), at least 1. */
export function crawlPages(task: Record<string, unknown>): number {
  return typeof task.max_crawl_pages === 'number' && task.max_crawl_pages >= 1 ? Math.floor(task.max_crawl_pages) : 1;
}

/** Base page prices one crawled page costs with the task's options (help center "cost of On-Page API parameters"). */
function pageMultiple(p: PriceRow, task: Record<string, unknown>): number {
  const o = p.page_options ?? {};
  const on = (k: string) => task[k] === true || (k === 'custom_js' && typeof task.custom_js === 'string' && task.custom_js !== '');
  // Browser rendering loads resources and runs JavaScript: its multiple replaces theirs.
  const rendering = on('enable_browser_rendering') && o.enable_browser_rendering !== undefined;
  let extra = 0;
  for (const [k, m] of Object.entries(o)) {
    if (!on(k)) continue;
    if (rendering && (k === 'load_resources' || k === 'enable_javascript')) continue;
    extra += m;
  }
  return 1 + extra;
}

/** The token prices of the task's model: the longest `models` key its model_name starts with, else the row's own. */
export function modelPrices(p: PriceRow, task: Record<string, unknown>): { input: number; output: number; request: number } | undefined {
  const name = typeof task.model_name === 'string' ? task.model_name : '';
  const key = Object.keys(p.models ?? {}).filter((k) => name.startsWith(k)).sort((a, b) => b.length - a.length)[0];
  const m = key ? p.models![key] : undefined;
  if (m) return { input: m.per_1m_input_tokens, output: m.per_1m_output_tokens, request: m.per_llm_request ?? p.per_llm_request ?? 0 };
  if (p.per_1m_input_tokens === undefined && p.per_1m_output_tokens === undefined) return undefined;
  return { input: p.per_1m_input_tokens ?? 0, output: p.per_1m_output_tokens ?? 0, request: p.per_llm_request ?? 0 };
}

/**
 * The most tokens an LLM task can read and write. Input: the UTF-8 bytes of what is sent (prompt, system message,
 * message chain), since a byte-level tokenizer never makes more tokens than bytes; output: `max_output_tokens`,
 * else the field's default.
 */
export function maxTokens(def: EndpointDef, task: Record<string, unknown>): { input: number; output: number } {
  const bytes = (v: unknown) => (typeof v === 'string' ? Buffer.byteLength(v, 'utf8') : 0);
  const chain = Array.isArray(task.message_chain) ? task.message_chain : [];
  const input = bytes(task.user_prompt) + bytes(task.system_message) + chain.reduce<number>((n, m) => n + bytes((m as { message?: unknown })?.message), 0);
  const rule = def.fields?.max_output_tokens;
  const fallback = rule && (rule.type === 'number' || rule.type === 'integer') ? rule.default ?? rule.max : undefined;
  const output = typeof task.max_output_tokens === 'number' ? task.max_output_tokens : fallback ?? 0;
  return { input, output };
}

/** The rows a task billed per row is reserved for: its `limit`, else the field's default, else 100. */
export function expectedRows(def: EndpointDef, task: Record<string, unknown>): number {
  if (typeof task.limit === 'number') return task.limit;
  const rule = def.fields?.limit;
  return rule && (rule.type === 'number' || rule.type === 'integer') && rule.default !== undefined ? rule.default : 100;
}

/** Search operators that make a keyword cost five times (client SERP Google request models, `keyword`). */
const OPERATORS = /(?:^|[\s"(])(?:allinanchor|allintext|allintitle|allinurl|cache|define|filetype|id|inanchor|info|intext|intitle|inurl|link|site):/i;
export const hasSearchOperator = (keyword: unknown): boolean => typeof keyword === 'string' && OPERATORS.test(decodeKeyword(keyword));
function decodeKeyword(k: string): string {
  try { return decodeURIComponent(k.replace(/\+/g, ' ')); } catch { return k; }
}

/**
 * An endpoint's row of the price table. A row under its old id (`formerly`) wins: only a project's own files write
 * old ids (config/prices.yaml ships the ids the endpoints have now), and a project's override is what it pays.
 */
export function priceRow(def: EndpointDef, prices: PriceTable): PriceTable[string] | undefined {
  return (def.formerly ? prices[def.formerly] : undefined) ?? prices[def.id];
}

/** An endpoint the service bills that the price table has no price for: plan says so instead of $0. */
export function isUnpriced(def: EndpointDef, prices: PriceTable): boolean {
  return def.billing !== 'free' && !priceRow(def, prices);
}

/** The most a task can cost: what the service bills at posting (and the budget reserves). */
export function taskPrice(def: EndpointDef, task: Record<string, unknown>, prices: PriceTable): number {
  return priceOf(def, task, prices);
}

/**
 * The least and the most a task can cost. They differ when the bill depends on what the service finds: crawl
 * control stops at the first page holding a target, and the async AI Overview and PAA clicks are refunded when
 * there is nothing to load or click.
 */
export function taskPriceRange(def: EndpointDef, task: Record<string, unknown>, prices: PriceTable): { min: number; max: number } {
  const max = priceOf(def, task, prices);
  const p = priceRow(def, prices);
  // Billed by what the service returns or does: from an empty answer (no rows, one crawled page, no tokens) to the
  // most the request allows.
  if (!def.billedPage) {
    const byOutcome = p && (p.per_row || p.per_crawled_page || modelPrices(p, task));
    return byOutcome ? { min: priceOf(def, task, prices, { pages: 1, asyncAiOverview: false, paaClicks: 0, rows: 0, crawledPages: 1, tokens: { input: 0, output: 0 } }), max } : { min: max, max };
  }
  const stops = Array.isArray(task.stop_crawl_on_match) && task.stop_crawl_on_match.length > 0;
  const min = priceOf(def, task, prices, { pages: stops ? 1 : billedPages(def, task), asyncAiOverview: false, paaClicks: 0 });
  return { min, max };
}

/** What the service bills a task once it is done: the price of the pages crawled and the options it used. */
export function billedPrice(def: EndpointDef, task: Record<string, unknown>, prices: PriceTable, outcome: BilledOutcome): number {
  return priceOf(def, task, prices, outcome);
}

function priceOf(def: EndpointDef, task: Record<string, unknown>, prices: PriceTable, outcome?: BilledOutcome): number {
  if (def.billing === 'free') return 0;
  const p = priceRow(def, prices);
  if (!p) return 0;
  let cost = p.per_task;
  if (p.per_extra_10_results) {
    const depth = typeof task.depth === 'number' ? task.depth : 10;
    cost += Math.max(0, Math.ceil(depth / 10) - 1) * p.per_extra_10_results;
  }
  if (def.billedPage) {
    const pages = outcome ? Math.max(1, Math.min(outcome.pages, billedPages(def, task))) : billedPages(def, task);
    cost += (pages - 1) * (p.per_extra_page ?? p.per_task);
  }
  // One more base price, at the task's priority ("calculate_rectangles adds only one base price").
  if (task.calculate_rectangles === true && p.calculate_rectangles) cost += p.calculate_rectangles;
  if (p.per_row) cost += p.per_row * (outcome?.rows ?? expectedRows(def, task));
  if (p.per_crawled_page) {
    const pages = Math.min(crawlPages(task), outcome?.crawledPages ?? Infinity);
    cost += p.per_crawled_page * pages * pageMultiple(p, task);
  }
  const llm = modelPrices(p, task);
  if (llm) {
    const t = outcome?.tokens ?? maxTokens(def, task);
    cost += llm.request + (t.input * llm.input + t.output * llm.output) / 1e6;
  }
  if (p.priority_2_multiplier && task.priority === 2) cost *= p.priority_2_multiplier;
  if (p.search_operators_multiplier && hasSearchOperator(task.keyword)) cost *= p.search_operators_multiplier;
  if (p.get_website_url_multiplier && task.get_website_url === true) cost *= p.get_website_url_multiplier;
  for (const [field, m] of Object.entries(p.field_multipliers ?? {})) if (task[field] !== undefined && task[field] !== null && task[field] !== '') cost *= m;
  // Flat extras, whatever the priority; refunded when unused.
  if (task.load_async_ai_overview === true && p.load_async_ai_overview && (!outcome || outcome.asyncAiOverview)) cost += p.load_async_ai_overview;
  const clicks = typeof task.people_also_ask_click_depth === 'number' ? task.people_also_ask_click_depth : 0;
  if (clicks > 0 && p.people_also_ask_click) cost += p.people_also_ask_click * (outcome ? Math.min(clicks, outcome.paaClicks) : clicks);
  return roundUsd(cost);
}

/** Pages of results a SERP task is billed for: depth over the device's page size, capped by max_crawl_pages. */
export function billedPages(def: EndpointDef, task: Record<string, unknown>): number {
  const page = def.billedPage!;
  const size = task.device === 'mobile' && page.mobile ? page.mobile : page.desktop;
  const rule = def.fields?.depth;
  const fallback = rule && rule.type === 'integer' && rule.default !== undefined ? rule.default : size;
  const depth = typeof task.depth === 'number' && task.depth > 0 ? task.depth : fallback;
  const pages = Math.max(1, Math.ceil(depth / size));
  return typeof task.max_crawl_pages === 'number' && task.max_crawl_pages >= 1 ? Math.min(pages, task.max_crawl_pages) : pages;
}

/** Costs are USD with at most 6 decimals, as the service reports them; summing floats would drift. */
export function roundUsd(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
