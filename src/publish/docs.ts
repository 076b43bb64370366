/**
 * The curated views' reference in docs/analysis.md, rendered from their declarations (views.ts) between two
 * markers; the prose around it is written by hand. A test compares the section with this rendering, and
 * `seo-etl docs` rewrites it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { VIEWS } from './views.js';

export const VIEWS_BEGIN = '<!-- views:begin (generated from src/publish/views.ts by `seo-etl docs`; edit the declarations, not this section) -->';
export const VIEWS_END = '<!-- views:end -->';

const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderViewsSection(): string {
  const lines: string[] = [VIEWS_BEGIN, ''];
  lines.push('| view | question it answers |', '|---|---|');
  for (const v of VIEWS) lines.push(`| [\`${v.name}\`](#${v.name}) | ${esc(v.question)} |`);
  lines.push('');
  for (const v of VIEWS) {
    lines.push(`### ${v.name}`, '', `${v.question} One row per ${v.grain.replace(/^one row per /, '')}`, '', v.notes, '');
    lines.push('| column | description |', '|---|---|');
    for (const c of v.columns) lines.push(`| \`${c.name}\` | ${esc(c.description)} |`);
    lines.push('');
  }
  lines.push(VIEWS_END);
  return lines.join('\n');
}

/** The document with its views section replaced by the current rendering. */
export function withViewsSection(doc: string): string {
  const start = doc.indexOf(VIEWS_BEGIN);
  const end = doc.indexOf(VIEWS_END);
  if (start < 0 || end < start) throw new Error(`docs/analysis.md: the markers '${VIEWS_BEGIN}' and '${VIEWS_END}' must both be there, in that order`);
  return doc.slice(0, start) + renderViewsSection() + doc.slice(end + VIEWS_END.length);
}

/** Rewrites the views section of docs/analysis.md under `root`; returns the file written. */
export async function writeAnalysisDoc(root: string): Promise<string> {
  const file = path.join(root, 'docs', 'analysis.md');
  const doc = await readFile(file, 'utf8');
  const next = withViewsSection(doc);
  if (next !== doc) await writeFile(file, next);
  return file;
}
