/**
 * The report's sections of the registry's families that declare one (`report:` in src/families/<family>/): each
 * chart's query over the family's views, its rows laid out as lines over the window's days. A family the run did
 * not collect has no rows, so no section: the report names no family of its own.
 */
import { FAMILIES } from '../families/index.js';
import type { FamilyDef } from '../catalog/family.js';
import type { Query } from './data.js';

/** Small multiples a chart shows at most, and lines in each. */
const MAX_PANELS = 6;
const MAX_LINES = 8;

export interface FamilyPanel { panel: string | null; lines: { name: string; values: (number | null)[] }[] }
export interface FamilyChart { id: string; title: string; yName: string; invert: boolean; panels: FamilyPanel[] }
export interface FamilySection { family: string; title: string; intro: string; charts: FamilyChart[] }

/** Each family's section with data in the window for the run, in the registry's order. */
export async function readFamilySections(query: Query, runId: string, dates: readonly string[], families: readonly FamilyDef[] = FAMILIES): Promise<FamilySection[]> {
  const out: FamilySection[] = [];
  for (const f of families) {
    if (!f.report) continue;
    const charts: FamilyChart[] = [];
    for (const c of f.report.charts) {
      const rows = await query(c.sql, [dates[0], dates[dates.length - 1], runId]);
      const panels = layout(rows, dates);
      if (panels.length) charts.push({ id: c.id, title: c.title, yName: c.yName, invert: c.invert ?? false, panels });
    }
    if (charts.length) out.push({ family: f.name, title: f.report.title, intro: f.report.intro, charts });
  }
  return out;
}

/** Rows of (date, panel, series, value) as panels of lines, one value per day of the window; in the rows' order. */
export function layout(rows: readonly Record<string, unknown>[], dates: readonly string[]): FamilyPanel[] {
  const panels = new Map<string, FamilyPanel>();
  for (const r of rows) {
    const i = dates.indexOf(String(r.date).slice(0, 10));
    if (i < 0 || r.value === null || r.value === undefined) continue;
    const key = r.panel === null || r.panel === undefined ? '' : String(r.panel);
    let p = panels.get(key);
    if (!p) {
      if (panels.size >= MAX_PANELS) continue;
      panels.set(key, (p = { panel: key === '' ? null : key, lines: [] }));
    }
    let line = p.lines.find((l) => l.name === String(r.series));
    if (!line) {
      if (p.lines.length >= MAX_LINES) continue;
      p.lines.push((line = { name: String(r.series), values: dates.map(() => null) }));
    }
    line.values[i] = Number(r.value);
  }
  return [...panels.values()];
}
