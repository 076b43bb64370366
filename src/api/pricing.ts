/** What a task costs by the configured price table; the planner estimates with it and the sandbox bills with it. */
import type { EndpointDef } from './catalog.js';
import type { PriceTable } from '../config/index.js';

export function taskPrice(def: EndpointDef, task: Record<string, unknown>, prices: PriceTable): number {
  if (def.billing === 'free') return 0;
  const p = prices[def.id];
  if (!p) return 0;
  let cost = p.per_task;
  if (p.per_extra_10_results) {
    const depth = typeof task.depth === 'number' ? task.depth : 10;
    cost += Math.max(0, Math.ceil(depth / 10) - 1) * p.per_extra_10_results;
  }
  if (def.billedPage) cost += (billedPages(def, task) - 1) * (p.per_extra_page ?? p.per_task);
  if (p.priority_2_multiplier && task.priority === 2) cost *= p.priority_2_multiplier;
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
