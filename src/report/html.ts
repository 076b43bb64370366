/**
 * The report as one HTML file: inline CSS, inline SVG charts (src/report/charts.ts), no script and no request, so it
 * opens offline, reads on a phone (one column under 700 px) and prints (charts never split across pages).
 */
import { barChart, lineChart, type Chart } from './charts.js';
import type { Failure, Mover, ReportData } from './data.js';

const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const usd = (n: number | null) => (n === null ? '-' : `$${n.toFixed(n !== 0 && Math.abs(n) < 1 ? 4 : 2)}`);
const int = (n: number) => n.toLocaleString('en-US');
const short = (s: string, n = 34) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function figure(id: string, title: string, chart: Chart, note = ''): string {
  return `<figure class="chart" data-chart="${esc(id)}" data-points="${chart.points}"><figcaption>${esc(title)}${note ? ` <small>${esc(note)}</small>` : ''}</figcaption>${chart.svg}</figure>`;
}

const place = (m: { locationCode: number | null; device: string }) => `${m.locationCode ?? 'any location'}, ${m.device}`;

function moversTable(title: string, movers: readonly Mover[]): string {
  if (!movers.length) return `<div><h3>${esc(title)}</h3><p class="muted">none</p></div>`;
  const rows = movers.map((m) => `<tr${m.tracked ? ' class="tracked"' : ''}><td>${esc(m.domain)}</td><td>${esc(m.keyword)}</td><td>${esc(place(m))}</td><td class="n">${m.previous ?? '-'}</td><td class="n">${m.position ?? '-'}</td><td class="n ${m.change > 0 ? 'up' : 'down'}">${m.change > 0 ? '+' : ''}${m.change}</td></tr>`).join('');
  return `<div><h3>${esc(title)}</h3><div class="scroll"><table><thead><tr><th>domain</th><th>keyword</th><th>location, device</th><th class="n">was</th><th class="n">now</th><th class="n">change</th></tr></thead><tbody>${rows}</tbody></table></div></div>`;
}

function failuresTable(failures: readonly Failure[]): string {
  if (!failures.length) return '<p class="muted">No task failed.</p>';
  const rows = failures.map((f) => `<tr><td class="n">${f.count}</td><td>${esc(f.code ?? '-')}</td><td>${esc(f.message ?? '')}</td><td>${esc(f.step)}</td></tr>`).join('');
  return `<div class="scroll"><table><thead><tr><th class="n">tasks</th><th>code</th><th>message</th><th>step</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

export interface RenderOptions {
  /** The service the run talked to, in words (src/config/service.ts). */
  service?: string;
  /** When the report was written (shown, never used to pick data). */
  writtenAt: Date;
}

export function renderReport(d: ReportData, o: RenderOptions): string {
  const r = d.run;
  const sections: string[] = [];
  const charts: string[] = [];

  // Cost.
  if (d.steps.length) {
    charts.push(figure('cost-per-step', 'Cost per step, USD', barChart({ categories: d.steps.map((s) => s.step), series: [{ name: 'spent', values: d.steps.map((s) => s.spentUsd) }], horizontal: true, yName: 'USD' }),
      r.budgetUsd !== null ? `${usd(r.spentUsd)} of the ${usd(r.budgetUsd)} budget${r.budgetUsedPct !== null ? ` (${r.budgetUsedPct}%)` : ''}` : ''));
  }
  if (d.history.length > 1) {
    const budget = d.history[d.history.length - 1].budgetUsd;
    charts.push(figure('cost-per-night', `Cost per night, last ${d.days} days`, lineChart({ categories: d.history.map((h) => h.runDate), yName: 'USD', min: 0, series: [
      { name: 'spent', values: d.history.map((h) => h.spentUsd) },
      ...(budget !== null ? [{ name: 'budget', values: d.history.map((h) => h.budgetUsd), dashed: true }] : []),
    ] })));
  }
  if (d.steps.length) {
    charts.push(figure('tasks-by-state', 'Tasks by state, per step', barChart({ categories: d.steps.map((s) => s.step), stack: true, horizontal: true, series: [
      { name: 'loaded', values: d.steps.map((s) => s.loaded) }, { name: 'failed', values: d.steps.map((s) => s.failed) }, { name: 'unfinished', values: d.steps.map((s) => s.unfinished) },
    ] })));
  }
  if (d.calls.length) {
    const peak = Math.max(...d.calls.map((c) => c.calls));
    charts.push(figure('calls-per-minute', 'Calls per minute (UTC)', barChart({ categories: d.calls.map((c) => c.minute), series: [{ name: 'calls', values: d.calls.map((c) => c.calls) }], yName: 'calls' }),
      `peak ${int(peak)} of the ${int(d.rateLimitPerMinute)} a minute the rate limit allows; posts and result fetches as the ledger records them (polls not counted)`));
  }
  if (d.rows.length) {
    charts.push(figure('rows-per-table', 'Rows per table (nested tables counted under their parent)', barChart({ categories: d.rows.map((x) => x.table), series: [{ name: 'rows', values: d.rows.map((x) => x.rows) }], horizontal: true })));
  }
  sections.push(`<section><h2>The night</h2><div class="grid">${charts.join('')}</div><h3>Failures by code</h3>${failuresTable(d.failures)}</section>`);

  // Rank tracking.
  if (d.serp) {
    const s = d.serp;
    const who = s.trackedFromPipeline ? `tracked domains (alerts.domains, else the targets'; subdomains count): ${s.domains.join(', ')}` : 'no tracked domains (alerts.domains or targets:): each keyword\'s three best domains of the window';
    const panels = s.panels.map((p, i) => figure(`rank-${i}`, `${p.keyword}`, lineChart({ categories: d.dates.map((x) => x.slice(5)), series: p.lines.map((l) => ({ name: l.domain, values: l.positions })), invert: true, yName: 'position', width: 380, height: 200 + 20 * Math.ceil(p.lines.length / 2) }), `${place(p)}${p.lines.length === 1 ? `; ${p.lines[0].domain}` : ''}`));
    const moverBars = [...s.up, ...s.down];
    const moverChart = moverBars.length
      ? figure('movers', `Biggest movers on ${s.moversDate}`, barChart({ categories: moverBars.map((m) => short(`${m.domain}, ${m.keyword}, ${m.device}`)), series: [{ name: 'positions gained', values: moverBars.map((m) => m.change) }], horizontal: true, colorBySign: true }))
      : '';
    const features = s.features.map((f, i) => figure(`features-${i}`, `Result-page features: ${f.keyword}`, lineChart({ categories: d.dates, series: f.types.map((t) => ({ name: t.itemType, values: t.shares })), yName: '% of pages', min: 0, max: 100 })));
    sections.push(`<section><h2>Rank tracking</h2><p class="muted">Best organic position per day, last ${d.days} days; ${esc(who)}.</p>
<div class="grid small">${panels.join('')}</div>
<h3>Movers</h3>${s.trackedFromPipeline ? moversTable(`Tracked domains on ${s.moversDate ?? '-'}`, s.trackedMoves) : ''}<div class="grid">${moverChart}</div><div class="pair">${moversTable('Up', s.up)}${moversTable('Down', s.down)}</div>
<h3>Result-page features</h3><p class="muted">Share of the keyword's collected result pages that showed each feature, per day (all locations and devices).</p><div class="grid">${features.join('')}</div></section>`);
  }

  // AI Overviews of the tracked targets.
  if (d.ai) {
    const a = d.ai;
    const rows = a.changes.map((c) => `<tr><td>${esc(c.domain)}</td><td>${esc(c.keyword)}</td><td>${esc(place(c))}</td><td class="${c.change === 'gained' ? 'up' : 'down'}">${esc(c.change)}</td><td class="n">${c.position ?? '-'}</td></tr>`).join('');
    const table = a.changes.length
      ? `<div class="scroll"><table><thead><tr><th>domain</th><th>keyword</th><th>location, device</th><th>citation</th><th class="n">reference</th></tr></thead><tbody>${rows}</tbody></table></div>`
      : '<p class="muted">No citation gained or lost.</p>';
    sections.push(`<section><h2>AI Overviews</h2><p class="muted">The tracked targets' keywords: the share of their result pages that showed an AI Overview, and that cited each tracked domain (a subdomain counts for it), per day.</p>
<div class="grid">${figure('ai-overview', 'AI Overview shown and citations, % of tracked pages', lineChart({ categories: d.dates, yName: '% of pages', min: 0, max: 100, series: [
      { name: 'AI Overview shown', values: a.shown }, ...a.cited.map((c) => ({ name: `${c.domain} cited`, values: c.shares })),
    ] }))}</div><h3>Citations gained and lost${a.changesDate ? ` on ${esc(a.changesDate)}` : ''}</h3>${table}</section>`);
  }

  // Keyword volumes.
  if (d.keywords) {
    sections.push(`<section><h2>Keyword volumes</h2><div class="grid">${figure('keyword-trends', 'Monthly searches of the seed keywords', lineChart({ categories: d.keywords.months, series: d.keywords.series.map((k) => ({ name: k.keyword, values: k.volumes })), yName: 'searches', min: 0 }), 'the largest figure among the locations asked')}</div></section>`);
  }

  // The families' own sections, as each declares them (src/families/<family>/, `report:`).
  for (const f of d.families) {
    const figures = f.charts.flatMap((c) => c.panels.map((p, i) => figure(`${f.family}-${c.id}-${i}`, c.title,
      lineChart({ categories: d.dates, series: p.lines.map((l) => ({ name: l.name, values: l.values })), yName: c.yName, invert: c.invert, min: c.invert ? 1 : undefined, scale: true }),
      p.panel ?? '')));
    sections.push(`<section data-family="${esc(f.family)}"><h2>${esc(f.title)}</h2><p class="muted">${esc(f.intro)} Last ${d.days} days.</p><div class="grid">${figures.join('')}</div></section>`);
  }

  const status = r.status === 'completed' && r.failed === 0 ? 'ok' : 'attention';
  const facts = [
    ['outcome', `${r.status}${r.failed ? ` with ${r.failed} failed` : ''}`],
    ['tasks', `${int(r.tasks)}: ${int(r.loaded)} loaded, ${int(r.failed)} failed${r.unfinished ? `, ${int(r.unfinished)} unfinished` : ''}`],
    ['cost', `${usd(r.spentUsd)}${r.budgetUsd !== null ? ` of ${usd(r.budgetUsd)}` : ''}`],
    ['attempts', String(r.attempts)],
    ['time', r.durationSeconds === null ? '-' : `${r.durationSeconds.toFixed(1)} s`],
    ...(o.service ? [['service', o.service]] : []),
    ...(r.note ? [['note', r.note]] : []),
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(r.pipeline)} ${esc(r.runDate)}: ${esc(r.status)}</title>
<style>${CSS}</style></head>
<body><header><h1>${esc(r.pipeline)} <span class="date">${esc(r.runDate)}</span> <span class="badge ${status}">${esc(r.status)}</span></h1>
<p class="muted">run ${esc(r.runId)}; written ${esc(o.writtenAt.toISOString().replace('T', ' ').slice(0, 16))} UTC by seo-etl report</p>
<dl class="facts">${facts.map(([k, v]) => `<div><dt>${esc(k)}</dt><dd>${esc(v)}</dd></div>`).join('')}</dl></header>
<main>${sections.join('\n')}</main></body></html>
`;
}

const CSS = `
:root{color-scheme:light;--fg:#0f172a;--muted:#64748b;--line:#e2e8f0;--ok:#16a34a;--bad:#dc2626}
*{box-sizing:border-box}body{margin:0 auto;max-width:1200px;padding:16px;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:#fff}
h1{font-size:1.5rem;margin:0 0 4px}h2{font-size:1.2rem;margin:28px 0 8px;border-bottom:2px solid var(--line);padding-bottom:4px}h3{font-size:1rem;margin:18px 0 6px}
.date{font-weight:400;color:var(--muted)}.muted{color:var(--muted)}small{color:var(--muted);font-weight:400}
.badge{font-size:.8rem;padding:2px 8px;border-radius:10px;color:#fff;vertical-align:middle}.badge.ok{background:var(--ok)}.badge.attention{background:var(--bad)}
.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:8px;margin:12px 0}.facts div{border:1px solid var(--line);border-radius:6px;padding:6px 10px}
dt{font-size:.75rem;text-transform:uppercase;color:var(--muted)}dd{margin:0;font-weight:600}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(460px,1fr));gap:12px}.grid.small{grid-template-columns:repeat(auto-fill,minmax(340px,1fr))}
figure.chart{margin:0;border:1px solid var(--line);border-radius:6px;padding:8px;break-inside:avoid;page-break-inside:avoid}
figcaption{font-weight:600;font-size:.9rem;margin-bottom:4px}figure.chart svg{display:block;width:100%;height:auto}
.pair{display:grid;grid-template-columns:repeat(auto-fit,minmax(460px,1fr));gap:12px}.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.85rem}th,td{text-align:left;padding:4px 6px;border-bottom:1px solid var(--line)}td.n,th.n{text-align:right}
td.up{color:var(--ok)}td.down{color:var(--bad)}tr.tracked td{font-weight:600;background:#eff6ff}
@media (max-width:700px){body{padding:10px;font-size:14px}.grid,.grid.small,.pair{grid-template-columns:1fr}}
@media print{body{max-width:none;padding:0;font-size:11px}.grid,.grid.small{grid-template-columns:1fr 1fr}.pair{grid-template-columns:1fr 1fr}h2{break-after:avoid}section{break-inside:auto}}
`;
