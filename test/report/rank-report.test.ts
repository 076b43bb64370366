/**
 * Acceptance: the rank-tracking example with an `alerts:` section over three fixed sandbox days (the sandbox's
 * clock at each run's day). The expected alerts are worked out here from v_serp_rank_history, not from the
 * movement view the alerts read; they reach a local webhook receiver and a local SMTP server once each, a receiver
 * that was down gets its message after the next run, and a resume of the last day sends nothing again. The last
 * day's report, opened offline in headless Chromium, draws every chart with its data points and logs no error.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { collectStream, queryFile, ROOT } from '../helpers/project.js';
import { EXAMPLE, rankTrackingPipeline, removePipelines, startHistory, type History } from './helpers.js';
import { openReport, SCREENSHOTS, type Rendered } from './browser.js';
import type { RunJobResult } from '../../src/run/job.js';

const DAYS = ['2026-11-20', '2026-11-21', '2026-11-22'];
/** The example's targets' domains: trailhub's subdomains (blog.trailhub.com) count for it. */
const TRACKED = ['trailhub.com', 'fitlab.io'];
const DROP = 1;
const LEAVES = 3;
const ENTERS = 3;
const COST = 0.01;

// No alerts.domains: the tracked domains are the example's targets' (trailhub and fitlab).
const ALERTS = `alerts:
  rules:
    - position_drop: ${DROP}
    - leaves_top: ${LEAVES}
    - enters_top: ${ENTERS}
    - ai_citation_gained: true
    - ai_citation_lost: true
    - run_failed: true
    - budget_stopped: true
    - cost_above_usd: ${COST}
  send_to:
    - webhook: $REPORT_TEST_ALERT_WEBHOOK
    - email: [seo-team@example.com, client@example.org]
`;

let h: History;
let hook: http.Server;
let hookDown = 1; // the first delivery finds the receiver down
const hooks: { status: number; text: string }[] = [];
/** End-of-run notices (notify.webhook_url), on their own path of the same receiver. */
const notices: string[] = [];
let smtp: SMTPServer;
const mails: string[] = [];
const runs: RunJobResult[] = [];
const summaries: string[] = [];
let resumed: RunJobResult;
let published: string;

beforeAll(async () => {
  hook = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.url === '/notice') {
        notices.push(JSON.parse(body).text);
        return res.writeHead(200).end();
      }
      const status = hookDown-- > 0 ? 503 : 200;
      hooks.push({ status, text: JSON.parse(body).text });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  smtp = new SMTPServer({
    authOptional: true, disabledCommands: ['STARTTLS'], logger: false,
    onData(stream, _session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => { mails.push(Buffer.concat(chunks).toString('utf8')); cb(); });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
  const smtpPort = (smtp.server.address() as AddressInfo).port;
  h = await startHistory(rankTrackingPipeline(ALERTS), {
    env: { REPORT_TEST_ALERT_WEBHOOK: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hooks/T000/secret` },
    overrides: { notify: { webhook_url: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/notice`, smtp_url: `smtp://127.0.0.1:${smtpPort}`, email_from: 'seo-etl <seo-etl@example.com>' } },
  });
  for (const day of DAYS) {
    const out = collectStream();
    // The last day stops right after its report and alerts, before it counts as published: `resume` finishes it.
    const last = day === DAYS[DAYS.length - 1];
    const run = h.run(day, { out, ...(last ? { pause: async (p: string) => { if (p === 'report') throw new Error('killed at report'); } } : {}) });
    if (last) await expect(run).rejects.toThrow('killed at report');
    else runs.push(await run);
    summaries.push(out.text());
  }
  const out = collectStream();
  resumed = await h.run(DAYS[2], { resume: true, out });
  summaries.push(out.text());
  published = resumed.publishedPath;
});

afterAll(async () => {
  await h?.close();
  await new Promise((r) => hook?.close(r));
  await new Promise((r) => smtp?.close(r as () => void));
  if (h) rmSync(h.dataDir, { recursive: true, force: true });
  removePipelines();
});

/** The alert lines (without the leading "- ") of one message text. */
const alertLines = (text: string) => text.split('\n').filter((l) => l.startsWith('- ')).map((l) => l.slice(2));

/** A mail's text part, its quoted-printable soft breaks and escapes undone. */
function mailText(raw: string): string {
  const part = raw.split(/\r?\n\r?\n/).slice(1).join('\n\n');
  return part.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, x) => String.fromCharCode(parseInt(x, 16))).replace(/\r/g, '');
}

/**
 * Every alert the rules should raise, worked out from the views: each tracked domain's rank per series and day as
 * v_serp_tracked_ranks has it (the client's rank, its subdomains counted in), compared day by day here; the AI
 * Overview citations per target from v_serp_ai_visibility.
 */
async function expectedAlerts(): Promise<Map<string, string[]>> {
  const rows = await queryFile(published, `SELECT DISTINCT tracked_domain, keyword, location_code, language_code, device, CAST(date AS VARCHAR) AS date, position FROM v_serp_tracked_ranks`);
  const pos = new Map(rows.map((r) => [`${r.keyword}|${r.location_code}|${r.language_code}|${r.device}|${r.tracked_domain}|${r.date}`, r.position === null ? null : Number(r.position)]));
  const series = new Set(rows.map((r) => `${r.keyword}|${r.location_code}|${r.language_code}|${r.device}|${r.tracked_domain}`));
  const usd = (n: number) => `$${n.toFixed(n < 1 ? 4 : 2)}`;
  const costs = new Map((await queryFile(published, `SELECT run_id, spent_usd FROM v_runs`)).map((r) => [String(r.run_id), Number(r.spent_usd)]));
  const out = new Map<string, string[]>(DAYS.map((d) => [`rank-tracking-${d}`, costs.get(`rank-tracking-${d}`)! > COST ? [`run rank-tracking-${d} cost ${usd(costs.get(`rank-tracking-${d}`)!)}, above ${usd(COST)}`] : []]));
  // AI Overview citations: cited one collected day and not the next (or the reverse), per target and tracked series.
  const cites = await queryFile(published, `SELECT target, tracked_domain, keyword, location_code, language_code, device, CAST(date AS VARCHAR) AS date, cited, ai_overview_shown, citation_position FROM v_serp_ai_visibility`);
  const citeKey = (c: Record<string, unknown>, date: unknown) => `${c.target}|${c.tracked_domain}|${c.keyword}|${c.location_code}|${c.language_code}|${c.device}|${date}`;
  const cited = new Map(cites.map((c) => [citeKey(c, c.date), c]));
  for (let i = 1; i < DAYS.length; i++) {
    for (const c of cites.filter((x) => x.date === DAYS[i])) {
      const before = cited.get(citeKey(c, DAYS[i - 1]));
      if (!before) continue;
      const where = `"${c.keyword}" (${c.location_code}, ${c.language_code}, ${c.device})`;
      if (c.cited && !before.cited) out.get(`rank-tracking-${DAYS[i]}`)!.push(`${c.tracked_domain} is cited in the AI Overview for ${where}${c.citation_position !== null ? ` (reference ${c.citation_position})` : ''}; target ${c.target}`);
      if (!c.cited && before.cited) out.get(`rank-tracking-${DAYS[i]}`)!.push(`${c.tracked_domain} lost its AI Overview citation for ${where}${c.ai_overview_shown ? '' : ' (no AI Overview showed)'}; target ${c.target}`);
    }
  }
  for (let i = 1; i < DAYS.length; i++) {
    for (const s of series) {
      if (!pos.has(`${s}|${DAYS[i - 1]}`) || !pos.has(`${s}|${DAYS[i]}`)) continue; // a day the series was not collected
      const [keyword, location, language, device, domain] = s.split('|');
      const was = pos.get(`${s}|${DAYS[i - 1]}`) ?? null;
      const now = pos.get(`${s}|${DAYS[i]}`) ?? null;
      const where = `"${keyword}" (${location}, ${language}, ${device})`;
      const list = out.get(`rank-tracking-${DAYS[i]}`)!;
      if (was !== null && now === null) list.push(`${domain} left the collected results for ${where}: was ${was}`);
      if (was !== null && now !== null && now - was > DROP) list.push(`${domain} fell ${now - was} positions for ${where}: ${was} -> ${now}`);
      if (was !== null && was <= LEAVES && (now === null || now > LEAVES)) list.push(`${domain} left the top ${LEAVES} for ${where}: ${was} -> ${now ?? 'not in the results'}`);
      if (now !== null && now <= ENTERS && (was === null || was > ENTERS)) list.push(`${domain} entered the top ${ENTERS} for ${where}: ${was ?? 'not in the results'} -> ${now}`);
    }
  }
  return out;
}

/** Every alert line the webhook delivered, over the three runs. */
const deliveredLines = () => hooks.filter((x) => x.status === 200).flatMap((x) => alertLines(x.text));

describe('alerts of the rank-tracking example over three sandbox days', () => {
  test('every run completed; the resume published the last day without posting anything', () => {
    expect(runs.map((r) => r.exitCode)).toEqual([0, 0]);
    expect(resumed.exitCode).toBe(0);
    expect(resumed.resumed).toBe(true);
    expect(h.sandbox.controls.postings()).toHaveLength(3 * 18); // the shared keyword posted once a day
  });

  test('the webhook got each run\'s alerts once, in one message per run; the day it was down was sent after the next run', async () => {
    const expected = await expectedAlerts();
    // The fixture moves: each domain rule fires on the last day, each AI citation rule on some day.
    const last = expected.get(`rank-tracking-${DAYS[2]}`)!;
    for (const phrase of [' positions for ', `left the top ${LEAVES}`, `entered the top ${ENTERS}`]) expect(last.some((l) => l.includes(phrase)), phrase).toBe(true);
    const all = [...expected.values()].flat();
    for (const phrase of ['is cited in the AI Overview', 'lost its AI Overview citation', 'cost $']) expect(all.some((l) => l.includes(phrase)), phrase).toBe(true);
    // Both clients have alerts, the second one's on the keyword it shares with the first among them.
    expect(all.some((l) => l.startsWith('trailhub.com '))).toBe(true);
    expect(all.some((l) => l.startsWith('fitlab.io ') && l.includes('"running shoes" (2840,'))).toBe(true);

    expect(hooks.map((x) => x.status)).toEqual([503, 200, 200, 200]);
    const delivered = hooks.filter((x) => x.status === 200);
    // The first day's message failed on day one and went out after day two, before day two's own.
    expect(delivered.map((x) => x.text.split('\n')[0])).toEqual(DAYS.map((d) => `seo-etl rank-tracking: ${expected.get(`rank-tracking-${d}`)!.length} alert${expected.get(`rank-tracking-${d}`)!.length === 1 ? '' : 's'} for run rank-tracking-${d}`));
    delivered.forEach((x, i) => expect(alertLines(x.text).sort()).toEqual([...expected.get(`rank-tracking-${DAYS[i]}`)!].sort()));
    // The current run's message links its report; a late message names none rather than the wrong one.
    expect(delivered[2].text).toContain(`report: ${path.join(h.dataDir, 'reports', `rank-tracking-${DAYS[2]}.html`)}`);
    expect(delivered[0].text).not.toContain('report:');
  });

  test('issue 47.1: an alert states the client\'s rank as v_serp_tracked_ranks has it, never a host\'s apart', async () => {
    // The fixture: for "hiking boots" blog.trailhub.com holds trailhub's best spot while the host trailhub.com moves in
    // and out of the top 3 (a rule judging hosts apart alerts on it), and fitlab.io has its own hosts.
    const hostMoves = await queryFile(published, `SELECT keyword, location_code, device, CAST(date AS VARCHAR) AS date, previous_position, position FROM v_serp_domain_movement
      WHERE domain = 'trailhub.com' AND keyword = 'hiking boots' AND previous_position IS NOT NULL AND position IS NOT NULL
        AND ((previous_position > ${ENTERS}) <> (position > ${ENTERS}))`);
    expect(hostMoves.length).toBeGreaterThan(0);
    const ranks = await queryFile(published, `SELECT keyword, location_code, device, CAST(date AS VARCHAR) AS date, position, previous_position FROM v_serp_tracked_ranks
      WHERE target = 'trailhub' AND keyword = 'hiking boots' AND position IS NOT NULL AND (previous_position IS NULL OR previous_position <= ${ENTERS}) AND position <= ${ENTERS}`);
    const inTop = new Set(ranks.map((r) => `${r.location_code}|${r.device}|${r.date}`));
    const contradicted = hostMoves.filter((m) => inTop.has(`${m.location_code}|${m.device}|${m.date}`));
    expect(contradicted.length, 'a host crossed the top 3 while the client stayed in it').toBeGreaterThan(0);
    const lines = deliveredLines();
    for (const m of contradicted) {
      const where = `"hiking boots" (${m.location_code}, en, ${m.device})`;
      expect(lines.filter((l) => l.includes(`top ${ENTERS} for ${where}`) && l.startsWith('trailhub.com ')), `${where} ${m.date}`).toEqual([]);
    }
    // Every domain alert names a tracked domain as the targets list it, with the view's positions.
    const domainLines = lines.filter((l) => / (fell|left|entered) /.test(l));
    expect(domainLines.length).toBeGreaterThan(0);
    for (const l of domainLines) expect(TRACKED, l).toContain(l.split(' ')[0]);
    const expected = [...(await expectedAlerts()).values()].flat();
    expect(domainLines.sort()).toEqual(expected.filter((l) => / (fell|left|entered) /.test(l)).sort());
  });

  test('alerts.domains in place of targets: the same rule and SQL, so the same ranks for the series the targets track', async () => {
    const { rankRows } = await import('../../src/report/alerts/index.js');
    const { withPublished } = await import('../../src/report/index.js');
    const key = (r: { domain: string; keyword: string; se: string | null; location_code: number | null; device: string; date: string }) => [r.domain, r.keyword, r.se, r.location_code, r.device, r.date].join('|');
    for (const day of DAYS.slice(1)) {
      const [fromTargets, fromDomains] = await withPublished(published, async (q) => [
        await rankRows(q, { domains: TRACKED, targets: ['trailhub', 'fitlab'], pipeline: 'rank-tracking' }, day),
        await rankRows(q, { domains: TRACKED, pipeline: 'rank-tracking' }, day),
      ]);
      expect(fromTargets.length).toBeGreaterThan(10);
      // alerts.domains watches every SERP task of the pipeline for each domain: fitlab.io on trailhub's keywords too.
      expect(fromDomains.length).toBeGreaterThan(fromTargets.length);
      const listed = new Map(fromDomains.map((r) => [key(r), r]));
      for (const r of fromTargets) expect(listed.get(key(r)), key(r)).toEqual(r);
      // blog.trailhub.com's #1 is trailhub.com's rank either way.
      expect(fromDomains.find((r) => r.domain === 'trailhub.com' && r.keyword === 'hiking boots' && r.location_code === 2840 && r.device === 'mobile')?.position).toBe(1);
    }
  });

  test('issue 47.2: a keyword two clients ask for is posted once a day and tracked for both; plan says it is shared', async () => {
    const shared = `keyword = 'running shoes' AND location_code = 2840`;
    const tasks = await queryFile(published, `SELECT run_id, step, count(*)::INT AS n FROM _tasks WHERE params LIKE '%"running shoes"%' AND params LIKE '%2840%' GROUP BY ALL ORDER BY run_id`);
    expect(tasks.map((t) => [t.run_id, t.step, t.n])).toEqual(DAYS.map((d) => [`rank-tracking-${d}`, 'ranks', 2]));
    const rows = await queryFile(published, `SELECT target, device, CAST(date AS VARCHAR) AS date, position FROM v_serp_tracked_ranks WHERE ${shared} ORDER BY target, device, date`);
    for (const target of ['trailhub', 'fitlab']) {
      expect(rows.filter((r) => r.target === target).map((r) => `${r.device} ${r.date}`), target).toEqual(['desktop', 'mobile'].flatMap((d) => DAYS.map((day) => `${d} ${day}`)));
    }
    // fitlab ranks on those pages, and its rows say where, as the pages have it.
    expect(rows.filter((r) => r.target === 'fitlab').every((r) => r.position !== null)).toBe(true);
    const [{ best }] = await queryFile(published, `SELECT min(rank_group)::INT AS best FROM serp_results s JOIN serp_results__items i ON i._parent_id = s._id
      WHERE s.keyword = 'running shoes' AND s.location_code = 2840 AND i.item_type = 'organic' AND i.domain = 'fitlab.io' AND CAST(s.datetime AS DATE) = DATE '${DAYS[0]}'
        AND s._task_id IN (SELECT service_id FROM _tasks WHERE params LIKE '%"desktop"%')`);
    expect(Number(rows.find((r) => r.target === 'fitlab' && r.device === 'desktop' && r.date === DAYS[0])!.position)).toBe(best);
    // The features view names both targets on the shared pages.
    const [{ targets }] = await queryFile(published, `SELECT string_agg(DISTINCT target, ';') AS targets FROM v_serp_features_daily WHERE ${shared}`);
    expect(targets).toBe('fitlab, trailhub');
    // plan: the second step plans what is its own and says which step posts the rest, for which targets.
    const { loadPipeline, planPipeline, estimatePlan, formatPlan } = await import('../../src/pipeline/index.js');
    const { loadConfig } = await import('../../src/config/index.js');
    const config = loadConfig({ root: ROOT, env: h.env, overrides: h.overrides });
    const e = estimatePlan(await planPipeline(loadPipeline(EXAMPLE, config), { runId: 'rank-tracking-2026-11-23' }), config);
    expect(e.steps.map((st) => [st.step, st.tasks])).toEqual([['ranks', 16], ['fitlab-ranks', 2]]);
    expect(e.steps[1].shared).toEqual([{ step: 'ranks', target: 'trailhub', tasks: 2 }]);
    expect(formatPlan(e)).toContain('Step fitlab-ranks: 2 tasks shared with step ranks: posted and paid once, by ranks; their results are tracked for targets trailhub and fitlab.');
  });

  test('email got the same alerts once, each run\'s message with its report attached', async () => {
    const expected = await expectedAlerts();
    expect(mails).toHaveLength(3);
    mails.forEach((raw, i) => {
      const runId = `rank-tracking-${DAYS[i]}`;
      expect(raw).toMatch(/^To: seo-team@example\.com, client@example\.org$/m);
      expect(raw).toMatch(/^From: "?seo-etl"? <seo-etl@example\.com>$/m);
      expect(raw).toContain(`Subject: seo-etl rank-tracking: ${expected.get(runId)!.length} alert`);
      expect(alertLines(mailText(raw)).sort()).toEqual([...expected.get(runId)!].sort());
      expect(raw).toContain(`filename=${runId}.html`);
    });
  });

  test('the outbox records each alert raised once and each delivery; the resume of the last day added nothing', async () => {
    const events = readFileSync(path.join(h.dataDir, 'reports', 'alerts.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const raised = events.filter((e) => e.event === 'raised');
    expect(new Set(raised.map((e) => e.key)).size).toBe(raised.length);
    const expected = await expectedAlerts();
    expect(raised).toHaveLength([...expected.values()].reduce((n, l) => n + l.length, 0));
    expect(events.filter((e) => e.event === 'sent')).toHaveLength(6); // 3 runs x 2 channels
    // No secret is kept: the webhook's channel is a hash of its address.
    expect(readFileSync(path.join(h.dataDir, 'reports', 'alerts.jsonl'), 'utf8')).not.toContain('secret');
    // The last message was sent by the killed attempt; the resume found every alert already raised and sent.
    expect(hooks).toHaveLength(4);
    expect(mails).toHaveLength(3);
  });

  test('a pipeline with a broken alerts section is refused with file:line before anything is posted', async () => {
    const bad = rankTrackingPipeline(`alerts:
  domains: [not a domain]
  rules:
    - position_drops: 3
    - leaves_top: 0
    - run_failed: false
  send_to:
    - webhook: $REPORT_TEST_UNSET_WEBHOOK
    - email: [nobody]
`);
    const before = h.sandbox.controls.postings().length;
    const { loadPipeline } = await import('../../src/pipeline/index.js');
    const { loadConfig } = await import('../../src/config/index.js');
    const config = loadConfig({ root: ROOT, overrides: { notify: { webhook_url: '', smtp_url: '', email_from: 'x' } } });
    let message = '';
    try { loadPipeline(bad, config, { env: {} }); } catch (err) { message = (err as Error).message; }
    const base = path.basename(bad);
    const lines = readFileSync(bad, 'utf8').split('\n');
    const lineOf = (s: string) => lines.findIndex((l) => l.includes(s)) + 1;
    expect(message).toContain(`${base}:${lineOf('[not a domain]')}:`);
    expect(message).toMatch(new RegExp(`${base}:${lineOf('position_drops')}:\\d+: alerts\\.rules\\[0\\]\\.position_drops: unknown rule \\(did you mean position_drop\\?\\)`));
    expect(message).toMatch(new RegExp(`${base}:${lineOf('leaves_top: 0')}:\\d+: alerts\\.rules\\[1\\]\\.leaves_top: must be from 1 to 700 \\(got 0\\)`));
    expect(message).toMatch(/alerts\.rules\[2\]\.run_failed: must be true/);
    expect(message).toMatch(new RegExp(`${base}:${lineOf('REPORT_TEST_UNSET_WEBHOOK')}:\\d+: alerts\\.send_to\\[0\\]\\.webhook: environment variable REPORT_TEST_UNSET_WEBHOOK is not set`));
    expect(message).toMatch(/alerts\.send_to\[1\]\.email\[0\]: must be an email address \(got "nobody"\)/);
    expect(h.sandbox.controls.postings().length).toBe(before);
  });
});

describe('the report of the last day', () => {
  let page: Rendered;
  const file = () => path.join(h.dataDir, 'reports', `rank-tracking-${DAYS[2]}.html`);
  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    page = await openReport(file(), { screenshot: path.join(SCREENSHOTS, 'rank-tracking.png') });
  });

  test('each run wrote its report; latest.html is the last one; the summary ends with its path', () => {
    for (const d of DAYS) expect(existsSync(path.join(h.dataDir, 'reports', `rank-tracking-${d}.html`)), d).toBe(true);
    expect(readFileSync(path.join(h.dataDir, 'reports', 'latest.html'), 'utf8')).toBe(readFileSync(file(), 'utf8'));
    for (const s of [summaries[0], summaries[1], summaries[3]]) expect(s.trimEnd().split('\n').at(-1)).toMatch(/^report: .*rank-tracking-2026-11-2\d\.html$/);
  });

  test('opens offline with no error and draws every chart with its data points', async () => {
    expect(page.errors).toEqual([]);
    expect(page.requests).toEqual([]);
    expect(page.title).toBe(`rank-tracking ${DAYS[2]}: completed`);
    const ids = page.charts.map((c) => c.id);
    // A small multiple per keyword, location and device where a tracked domain ranks; movers; one features chart
    // per keyword; and the night's.
    const [{ panels }] = await queryFile(published, `SELECT count(DISTINCT (keyword, location_code, device))::INT AS panels FROM v_serp_tracked_ranks WHERE position IS NOT NULL`);
    expect(panels).toBeGreaterThan(4);
    expect(ids.filter((i) => i.startsWith('rank-'))).toHaveLength(panels as number);
    expect(ids.filter((i) => i.startsWith('features-'))).toHaveLength(5); // the pipeline's five keywords
    expect(ids).toEqual(expect.arrayContaining(['cost-per-step', 'cost-per-night', 'tasks-by-state', 'calls-per-minute', 'rows-per-table', 'movers', 'ai-overview']));
    for (const c of page.charts) {
      expect(c.declared, c.id).toBeGreaterThan(0);
      expect(c.drawn, c.id).toBe(c.declared);
      expect(c.width, c.id).toBeGreaterThan(200);
      expect(c.height, c.id).toBeGreaterThan(50);
    }
    expect(statSync(path.join(SCREENSHOTS, 'rank-tracking.png')).size).toBeGreaterThan(10_000);
  });

  test('the small multiples hold each tracked domain\'s rank per day, as the tracked-ranks view has it', async () => {
    const html = readFileSync(file(), 'utf8');
    const rows = await queryFile(published, `SELECT count(*)::INT AS n FROM (SELECT DISTINCT keyword, location_code, device, date, tracked_domain FROM v_serp_tracked_ranks WHERE position IS NOT NULL)`);
    const declared = [...html.matchAll(/data-chart="rank-\d+" data-points="(\d+)"/g)].reduce((n, m) => n + Number(m[1]), 0);
    expect(declared).toBe(rows[0].n);
    expect(page.text).toContain(`tracked domains (alerts.domains, else the targets'; subdomains count): ${TRACKED.join(', ')}`);
  });

  test('the end-of-run notice names the top movers, tracked domains first, and the report', () => {
    // Days one and two, and the resume of day three (its killed attempt sent none).
    expect(notices).toHaveLength(3);
    const last = notices[2].split('\n');
    const movers = last.slice(last.indexOf('top movers:') + 1).filter((l) => l.startsWith('- '));
    expect(movers.length).toBeGreaterThan(0);
    expect(movers.length).toBeLessThanOrEqual(5);
    expect(movers[0]).toMatch(/^- \S+ [+-]\d+ for ".+" \(\d+, (desktop|mobile)\): \d+ -> \d+ \[tracked\]$/);
    expect(last.at(-1)).toBe(`report: ${file()}`);
    // A domain that moved is named with the positions the report's movers table shows.
    const html = readFileSync(file(), 'utf8');
    const [, domain, sign, , , was, now] = /^- (\S+) ([+-]\d+) for "(.+)" \((\d+), \w+\): (\d+) -> (\d+)/.exec(movers[0])!;
    const tracked = html.slice(html.indexOf('<h3>Tracked domains on'), html.indexOf('<figure class="chart" data-chart="movers"'));
    expect(tracked).toContain(`<tr class="tracked"><td>${domain}</td>`);
    expect(tracked).toContain(`<td class="n">${was}</td><td class="n">${now}</td><td class="n ${sign.startsWith('+') ? 'up' : 'down'}">${sign}</td>`);
  });

  test('reads on a phone: one column, no chart wider than the screen; prints with no chart cut by a page break', async () => {
    const phone = await openReport(file(), { width: 390, screenshot: path.join(SCREENSHOTS, 'rank-tracking-phone.png'), pdf: path.join(SCREENSHOTS, 'rank-tracking.pdf') });
    expect(phone.errors).toEqual([]);
    for (const c of phone.charts) expect(c.width, c.id).toBeLessThanOrEqual(390);
    expect(phone.printed!.unbreakable).toBe(phone.charts.length);
    expect(phone.printed!.pages).toBeGreaterThan(1);
  });
});
