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
  if (p.per_extra_page) {
    const perPage = p.results_per_page ?? 10;
    const depth = typeof task.depth === 'number' ? task.depth : defaultDepth(def) ?? perPage;
    cost += Math.max(0, Math.ceil(depth / perPage) - 1) * p.per_extra_page;
  }
  if (p.priority_2_multiplier && task.priority === 2) cost *= p.priority_2_multiplier;
  return roundUsd(cost);
}

/** The depth the service assumes when a task leaves it out (the catalog's `default`). */
function defaultDepth(def: EndpointDef): number | undefined {
  const rule = def.fields?.depth;
  return rule && rule.type === 'integer' ? rule.default : undefined;
}

/** Costs are USD with at most 6 decimals, as the service reports them; summing floats would drift. */
export function roundUsd(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
