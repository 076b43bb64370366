/**
 * The end-of-run notice: one Slack-compatible webhook call (`{"text": ...}`, which Slack, Mattermost and
 * Rocket.Chat incoming webhooks accept) with the run's outcome, cost and failures. A notice never changes how a run
 * ends: a receiver that is down costs a warning, not the night.
 */

export interface RunNotice {
  runId: string;
  pipeline: string;
  /** Which service the run talked to: `the embedded sandbox` or the live service's host. */
  service: string;
  exitCode: number;
  /** What the run did, in words: completed, completed with failures, stopped at budget, ... */
  outcome: string;
  tasks: number;
  loaded: number;
  failed: number;
  costUsd: number;
  budgetUsd: number | null;
  durationMs: number;
  failures: readonly { code: number | null; message: string | null; step: string; count: number }[];
  /** Planned tasks not posted (budget, or refusals), if any. */
  notPosted: number;
  /** Said after the cost: " (sandbox money: nothing was charged)" for a sandbox (src/config/service.ts). */
  costNote?: string;
  /** The run's biggest SERP movers, one line each (src/report/movers.ts). */
  movers?: readonly string[];
  /** Where the run's report is (src/report). */
  report?: string;
}

const usd = (n: number) => `$${n.toFixed(n < 1 ? 4 : 2)}`;

/** The notice's text: a headline a phone shows, then the figures and at most five failure groups. */
export function noticeText(n: RunNotice): string {
  const mark = n.exitCode === 0 ? 'ok' : 'attention';
  const lines = [
    `seo-etl ${n.pipeline}: ${n.outcome} (exit ${n.exitCode}, ${mark}) - run ${n.runId} against ${n.service}`,
    `tasks ${n.tasks}: ${n.loaded} loaded, ${n.failed} failed${n.notPosted ? `, ${n.notPosted} not posted` : ''}; cost ${usd(n.costUsd)}${n.budgetUsd !== null ? ` of ${usd(n.budgetUsd)}` : ''}${n.costNote ?? ''}; ${(n.durationMs / 1000).toFixed(1)} s`,
  ];
  for (const f of n.failures.slice(0, 5)) lines.push(`- ${f.count} x ${f.code ?? '-'} ${f.message ?? ''} (step ${f.step})`);
  if (n.failures.length > 5) lines.push(`- and ${n.failures.length - 5} more kinds of failure: seo-etl status`);
  if (n.movers?.length) lines.push('top movers:', ...n.movers.map((m) => `- ${m}`));
  if (n.report) lines.push(`report: ${n.report}`);
  return lines.join('\n');
}

/** A webhook URL for logs: its origin only (Slack's path is the secret). */
export function redactedWebhook(url: string): string {
  try { return `${new URL(url).origin}/...`; } catch { return '(not a URL)'; }
}

export interface SendOptions {
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** Posts the notice; resolves with what happened, never rejects. */
export async function sendNotice(url: string, n: RunNotice, o: SendOptions = {}): Promise<{ ok: true } | { ok: false; why: string }> {
  return postText(url, noticeText(n), o);
}

/** Posts `{"text": ...}` to a Slack-compatible webhook (the notice, alerts); resolves with what happened, never rejects. */
export async function postText(url: string, text: string, o: SendOptions = {}): Promise<{ ok: true } | { ok: false; why: string }> {
  const f = o.fetch ?? fetch;
  try {
    const res = await f(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text }),
      signal: AbortSignal.timeout(o.timeoutMs ?? 10_000),
    });
    await res.arrayBuffer();
    return res.ok ? { ok: true } : { ok: false, why: `${redactedWebhook(url)} answered HTTP ${res.status}` };
  } catch (err) {
    return { ok: false, why: `${redactedWebhook(url)}: ${(err as Error).message}` };
  }
}
