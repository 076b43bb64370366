/** The end-of-run notice reaches a Slack-compatible receiver with the outcome, cost and failures, and never throws. */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { noticeText, redactedWebhook, sendNotice, type RunNotice } from '../../src/run/notify.js';

const received: { path: string; type: string | undefined; body: unknown }[] = [];
let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer(async (req: IncomingMessage, res) => {
    let body = '';
    for await (const c of req) body += c;
    received.push({ path: req.url ?? '', type: req.headers['content-type'], body: JSON.parse(body) });
    res.statusCode = req.url?.includes('broken') ? 500 : 200;
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const notice: RunNotice = {
  runId: 'nightly-2026-11-23', pipeline: 'nightly', service: 'the embedded sandbox', exitCode: 4, outcome: 'stopped at budget',
  tasks: 40, loaded: 30, failed: 2, costUsd: 0.9912, budgetUsd: 1, durationMs: 12_340, notPosted: 8,
  failures: [{ code: 40501, message: 'Invalid Field', step: 'ideas', count: 2 }],
};

test('the text says outcome, exit code, service, counts, cost against budget and the failure groups', () => {
  expect(noticeText(notice).split('\n')).toEqual([
    'seo-etl nightly: stopped at budget (exit 4, attention) - run nightly-2026-11-23 against the embedded sandbox',
    'tasks 40: 30 loaded, 2 failed, 8 not posted; cost $0.9912 of $1.00; 12.3 s',
    '- 2 x 40501 Invalid Field (step ideas)',
  ]);
  const many = { ...notice, failures: Array.from({ length: 7 }, (_, i) => ({ code: 40000 + i, message: 'm', step: 's', count: 1 })) };
  expect(noticeText(many).split('\n').at(-1)).toBe('- and 2 more kinds of failure: seo-etl status');
});

test('the top movers and the report close the text', () => {
  const lines = noticeText({ ...notice, movers: ['shop.example +3 for "boots" (2840, mobile): 7 -> 4 [tracked]'], report: '/srv/seo/data/reports/nightly-2026-11-23.html' }).split('\n');
  expect(lines.slice(-3)).toEqual(['top movers:', '- shop.example +3 for "boots" (2840, mobile): 7 -> 4 [tracked]', 'report: /srv/seo/data/reports/nightly-2026-11-23.html']);
  expect(noticeText({ ...notice, movers: [] })).not.toContain('top movers');
});

test('it is posted as Slack-compatible JSON {text}', async () => {
  const r = await sendNotice(`${base}/services/T000/B000/secret`, notice);
  expect(r).toEqual({ ok: true });
  expect(received.at(-1)).toEqual({ path: '/services/T000/B000/secret', type: 'application/json', body: { text: noticeText(notice) } });
});

test('a receiver that fails or is unreachable is reported without the secret path, never thrown', async () => {
  expect(await sendNotice(`${base}/broken/secret`, notice)).toEqual({ ok: false, why: `${base}/... answered HTTP 500` });
  const down = await sendNotice('http://127.0.0.1:9/hooks/secret', notice, { timeoutMs: 2000 });
  expect(down.ok).toBe(false);
  expect(JSON.stringify(down)).not.toContain('secret');
  expect(redactedWebhook('https://hooks.slack.com/services/T/B/X')).toBe('https://hooks.slack.com/...');
});
