/**
 * The tokens an LLM answer of the sandbox reports, held within what its request allows (the prompt's bytes, its
 * `max_output_tokens`), and its `money_spent` at the price table's token prices: the bill then follows the answer,
 * as the live service passes the model's own charge on (docs/api-live.md, AI Optimization prices).
 */
import type { EndpointDef } from '../catalog/endpoint.js';
import type { PriceTable } from '../config/index.js';
import { maxTokens, modelPrices, priceRow, roundUsd } from '../api/pricing.js';

export function llmUsage(def: EndpointDef, task: Record<string, unknown>, prices: PriceTable, result: unknown): { input: number; output: number } | undefined {
  const p = priceRow(def, prices);
  const m = p && modelPrices(p, task);
  const r = Array.isArray(result) ? result[0] : undefined;
  if (!m || !r || typeof r !== 'object') return undefined;
  const answer = r as Record<string, unknown>;
  const most = maxTokens(def, task);
  const held = (v: unknown, max: number) => Math.min(max, Math.max(0, Math.round(typeof v === 'number' && Number.isFinite(v) ? v : 0)));
  const input = held(answer.input_tokens, most.input);
  const output = held(answer.output_tokens, most.output);
  answer.input_tokens = input;
  answer.output_tokens = output;
  if ('money_spent' in answer) answer.money_spent = roundUsd(m.request + (input * m.input + output * m.output) / 1e6);
  return { input, output };
}
