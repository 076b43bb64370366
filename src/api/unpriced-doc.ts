/**
 * The list of billed operations without a published price, in docs/api-live.md between two markers: derived from
 * the catalog and the price table (isUnpriced), so it cannot drift from what `plan` calls unpriced. A test compares
 * the section with this rendering, and `seo-etl docs` rewrites it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ENDPOINTS } from './catalog.js';
import { isUnpriced } from './pricing.js';
import type { PriceTable } from '../config/index.js';

export const UNPRICED_BEGIN = '<!-- unpriced:begin (generated from the catalog and config/prices.yaml by `seo-etl docs`) -->';
export const UNPRICED_END = '<!-- unpriced:end -->';

/** Billed endpoints without a price, by family (the path root), in catalog order. */
export function unpricedByFamily(prices: PriceTable): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const e of ENDPOINTS) if (isUnpriced(e, prices)) out.set(e.api, [...(out.get(e.api) ?? []), e.id]);
  return out;
}

export function renderUnpricedSection(prices: PriceTable): string {
  const by = unpricedByFamily(prices);
  const total = [...by.values()].reduce((n, ids) => n + ids.length, 0);
  const lines = [UNPRICED_BEGIN, '', `${total} billed operations have no price in config/prices.yaml; \`plan\` shows them as \`unpriced\`, never $0:`, ''];
  for (const [family, ids] of by) lines.push(`- **${family}** (${ids.length}): ${ids.map((id) => `\`${id}\``).join(', ')}`);
  lines.push('', UNPRICED_END);
  return lines.join('\n');
}

/** The document with its unpriced section replaced by the current rendering. */
export function withUnpricedSection(doc: string, prices: PriceTable): string {
  const start = doc.indexOf(UNPRICED_BEGIN);
  const end = doc.indexOf(UNPRICED_END);
  if (start < 0 || end < start) throw new Error(`docs/api-live.md: the markers '${UNPRICED_BEGIN}' and '${UNPRICED_END}' must both be there, in that order`);
  return doc.slice(0, start) + renderUnpricedSection(prices) + doc.slice(end + UNPRICED_END.length);
}

/** Rewrites the unpriced section of docs/api-live.md under `root`; returns the file written. */
export async function writeUnpricedDoc(root: string, prices: PriceTable): Promise<string> {
  const file = path.join(root, 'docs', 'api-live.md');
  const doc = await readFile(file, 'utf8');
  const next = withUnpricedSection(doc, prices);
  if (next !== doc) await writeFile(file, next);
  return file;
}
