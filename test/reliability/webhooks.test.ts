/**
 * Webhooks in a real run (the crash pipeline has a pingback step and a postback step):
 * - through a proxy between the sandbox and the run's receiver, callbacks that never come (the proxy answers 200
 *   and forwards nothing, so the service believes them delivered), come twice, or come truncated: every task is
 *   still collected exactly once, and the tables equal an undisturbed run;
 * - forged callbacks (no secret, a wrong secret) and malformed ones (bad JSON, cut gzip, a gzip bomb, an
 *   oversized body, no id, a wrong method) sent during the run are rejected and change nothing;
 * - failed deliveries are re-sent by the service (webhook_resend) before a task is fetched by id.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT, startProject, type TestProject } from '../helpers/project.js';
import { startWebhookReceiver } from '../../src/collect/webhook.js';
import { SANDBOX_EXTRA, ledgerByKey, ledgerDiff, referenceRun, runInProcess, tableSnapshot, tagsPostedTwice, withDb, type Reference, closeProject } from './helpers.js';

let reference: Reference;
const opened: TestProject[] = [];
const servers: http.Server[] = [];

beforeAll(async () => {
  reference = await referenceRun();
});
afterAll(async () => {
  for (const s of servers) await new Promise((r) => s.close(r));
  for (const p of opened) await closeProject(p);
});

async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

type Mode = 'swallow' | 'twice' | 'truncate' | 'pass';

interface Sent { status: number }

function forward(port: number, method: string, url: string, headers: http.IncomingHttpHeaders, body: Buffer): Promise<Sent> {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: url, headers: { ...headers, host: `127.0.0.1:${port}`, 'content-length': body.length } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on('error', () => resolve({ status: 0 }));
    req.end(body);
  });
}

/** A proxy that mistreats callbacks in turn: never delivered, delivered twice, delivered cut in half, delivered. */
async function startProxy(receiverPort: () => number) {
  const used: Record<string, Mode[]> = { pingback: [], postback: [] };
  const cycle: Record<string, Mode[]> = { pingback: ['swallow', 'twice', 'pass'], postback: ['swallow', 'twice', 'truncate', 'pass'] };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      const kind = req.url?.includes('/postback') ? 'postback' : 'pingback';
      const mode = cycle[kind][used[kind].length % cycle[kind].length];
      used[kind].push(mode);
      const send = (b: Buffer) => forward(receiverPort(), req.method ?? 'GET', req.url ?? '/', req.headers, b);
      let status = 200;
      if (mode === 'twice') {
        status = (await send(body)).status;
        await send(body);
      } else if (mode === 'truncate') {
        await send(body.subarray(0, Math.floor(body.length / 2)));
      } else if (mode === 'pass') {
        status = (await send(body)).status;
      }
      // swallow and truncate: the service is told the delivery worked.
      res.writeHead(status).end();
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, used };
}

describe('callbacks that never come, come twice, or come truncated', () => {
  test('every task is collected exactly once and the tables equal an undisturbed run', async () => {
    const p = await startProject(SANDBOX_EXTRA);
    opened.push(p);
    const port = await freePort();
    const proxy = await startProxy(() => port);
    const r = await runInProcess(p, { webhook: { listen_port: port, public_url: proxy.url } });
    expect(r.exitCode, r.out + r.log.slice(-3000)).toBe(0);
    // Every way of mistreating a callback happened.
    for (const m of ['swallow', 'twice', 'pass'] as Mode[]) expect(proxy.used.pingback, `pingback ${m}`).toContain(m);
    for (const m of ['swallow', 'twice', 'truncate', 'pass'] as Mode[]) expect(proxy.used.postback, `postback ${m}`).toContain(m);
    expect(r.callbacks.rejected, 'the truncated postbacks were rejected').toBeGreaterThan(0);
    expect(tagsPostedTwice(p)).toEqual([]);
    expect(p.sandbox.controls.postings()).toHaveLength(reference.postings);
    const published = path.join(p.dataDir, 'warehouse.duckdb');
    expect(ledgerDiff(await ledgerByKey(published), reference.ledger)).toEqual([]);
    const tables = await tableSnapshot(published);
    for (const t of Object.keys(reference.tables)) expect(tables[t], `table ${t}`).toEqual(reference.tables[t]);
  });
});

describe('forged and malformed callbacks during a run', () => {
  test('are rejected without effect on the run', async () => {
    const p = await startProject(SANDBOX_EXTRA);
    opened.push(p);
    const maxBody = 256 * 1024;
    const attacks: { what: string; status: number }[] = [];
    let attacking: Promise<void> | undefined;
    // As soon as a callback task is posted, its echoed pingback_url tells the receiver's address and secret.
    const watch = setInterval(() => {
      if (attacking) return;
      const posted = p.sandbox.controls.postings().find((x) => typeof (x.data as Record<string, unknown>).pingback_url === 'string');
      if (!posted) return;
      const pingbackUrl = String((posted.data as Record<string, unknown>).pingback_url);
      attacking = attack(pingbackUrl, posted.id, maxBody, attacks);
    }, 5);
    try {
      const r = await runInProcess(p, { webhook: { max_body_bytes: maxBody } });
      await attacking;
      expect(r.exitCode, r.out + r.log.slice(-3000)).toBe(0);
      expect(attacks.length).toBeGreaterThanOrEqual(10);
      for (const a of attacks) expect([400, 404, 405, 413], `${a.what}: HTTP ${a.status}`).toContain(a.status);
      expect(r.callbacks.rejected).toBeGreaterThanOrEqual(attacks.length);
      const published = path.join(p.dataDir, 'warehouse.duckdb');
      expect(ledgerDiff(await ledgerByKey(published), reference.ledger)).toEqual([]);
      const tables = await tableSnapshot(published);
      for (const t of Object.keys(reference.tables)) expect(tables[t], `table ${t}`).toEqual(reference.tables[t]);
      expect(JSON.stringify(tables)).not.toContain('FORGED');
    } finally {
      clearInterval(watch);
    }
  });
});

describe('the receiver answers after the run has looked at a callback', () => {
  test('taken: 200; not taken (unknown task): 404, so the service lists it; the handler failed: 500', async () => {
    const verdicts: (boolean | Error)[] = [true, false, new Error('disk full')];
    let i = 0;
    const rx = await startWebhookReceiver({
      host: '127.0.0.1', port: 0, maxBodyBytes: 1024, secret: 'a-test-secret-a-test-secret',
      onPingback: () => {
        const v = verdicts[i++];
        if (v instanceof Error) throw v;
        return v;
      },
    });
    try {
      const url = rx.pingbackUrl.replace('$id', 'abc').replace('$tag', 't');
      const statuses = [];
      for (let k = 0; k < verdicts.length; k++) statuses.push((await fetch(url)).status);
      expect(statuses).toEqual([200, 404, 500]);
      expect(rx.stats()).toMatchObject({ pingbacks: 3, unclaimed: 1, rejected: 1 });
    } finally {
      await rx.close();
    }
  });
});

/** Sends bad callbacks to the run's receiver; records what each got. */
async function attack(pingbackUrl: string, taskId: string, maxBody: number, out: { what: string; status: number }[]): Promise<void> {
  const u = new URL(pingbackUrl.replace('$id', taskId).replace('$tag', 'x'));
  const secret = u.pathname.split('/')[2];
  const base = `${u.protocol}//${u.host}`;
  const wrong = secret.replace(/.$/, (c) => (c === 'a' ? 'b' : 'a'));
  const forgedEnvelope = JSON.stringify({
    version: '0.1', status_code: 20000, status_message: 'Ok.', time: '0 sec.', cost: 0, tasks_count: 1, tasks_error: 0,
    tasks: [{ id: taskId, status_code: 20000, status_message: 'Ok.', path: [], data: {}, result: [{ keyword: 'FORGED', search_volume: 1 }] }],
  });
  const send = async (what: string, url: string, init: RequestInit = {}) => {
    const res = await fetch(url, init);
    await res.arrayBuffer().catch(() => undefined);
    out.push({ what, status: res.status });
  };
  const post = (body: NonNullable<RequestInit['body']>, headers: Record<string, string> = {}) => ({ method: 'POST', body, headers });
  await send('pingback without the secret', `${base}/cb/pingback?id=${taskId}`);
  await send('pingback with a wrong secret', `${base}/cb/${wrong}/pingback?id=${taskId}`);
  await send('forged postback without the secret', `${base}/cb/postback?id=${taskId}`, post(gzipSync(forgedEnvelope)));
  await send('forged postback with a wrong secret', `${base}/cb/${wrong}/postback?id=${taskId}`, post(gzipSync(forgedEnvelope)));
  await send('postback that is not JSON', `${base}/cb/${secret}/postback?id=${taskId}`, post('{"tasks": [oops'));
  await send('postback with a cut gzip stream', `${base}/cb/${secret}/postback?id=${taskId}`, post(gzipSync(forgedEnvelope).subarray(0, 40)));
  await send('postback that is not an envelope', `${base}/cb/${secret}/postback?id=${taskId}`, post(JSON.stringify({ hello: 'world' })));
  await send('gzip bomb', `${base}/cb/${secret}/postback?id=${taskId}`, post(gzipSync(Buffer.alloc(64 * maxBody, 0x20))));
  await send('oversized body', `${base}/cb/${secret}/postback?id=${taskId}`, post('x'.repeat(maxBody + 1)));
  await send('pingback without an id', `${base}/cb/${secret}/pingback`);
  await send('wrong method', `${base}/cb/${secret}/pingback?id=${taskId}`, { method: 'PUT', body: 'x' });
}

/**
 * Failed callback deliveries are re-sent by the service (free) before a task is fetched by id (issue 17): the live
 * service lists them (appendix/errors, E13) and re-sends up to 100 per call with `/v3/appendix/webhook_resend`,
 * "will not be double-charged" (docs.dataforseo.com/v3/appendix/webhook_resend; docs/api-live.md
 * [account.webhook_resend]). A proxy in front of the run's receiver refuses each task's first postbacks (HTTP 500).
 */
const POSTBACK_PIPELINE = path.join(ROOT, 'test', 'reliability', 'pipelines', 'postback.yaml');

/** Forwards callbacks to the receiver, refusing the first `refusals` deliveries of each task id. */
async function refusingProxy(target: number, refusals: number): Promise<{ port: number; seen: Map<string, number> }> {
  const seen = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const id = new URL(req.url ?? '/', 'http://x').searchParams.get('id') ?? '';
    const n = (seen.get(id) ?? 0) + 1;
    seen.set(id, n);
    if (n <= refusals) {
      req.resume();
      res.writeHead(500).end('not now');
      return;
    }
    const fwd = http.request({ host: '127.0.0.1', port: target, path: req.url, method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    fwd.on('error', () => res.writeHead(502).end());
    req.pipe(fwd);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, seen };
}

async function runBehindProxy(refusals: number) {
  const p = await startProject(SANDBOX_EXTRA);
  opened.push(p);
  const listen = await freePort();
  const proxy = await refusingProxy(listen, refusals);
  const r = await runInProcess(p, { webhook: { listen_port: listen, public_url: `http://127.0.0.1:${proxy.port}` } }, POSTBACK_PIPELINE);
  expect(r.exitCode, r.log.slice(-3000)).toBe(0);
  await withDb(path.join(p.dataDir, 'warehouse.duckdb'), async (query) => {
    expect(await query(`SELECT state, count(*)::INT AS n FROM _tasks GROUP BY ALL`)).toEqual([{ state: 'loaded', n: 4 }]);
  });
  const calls = p.sandbox.controls.calls();
  return { p, proxy, taskGets: calls.filter((c) => /task_get/.test(c.path)).length, resends: calls.filter((c) => c.endpointId === 'appendix.webhook_resend').length };
}

describe('failed deliveries', () => {
  test('a failed postback is re-sent by the service, not fetched by id', async () => {
    const { p, proxy, taskGets, resends } = await runBehindProxy(1);
    expect(resends, 'webhook_resend calls').toBeGreaterThanOrEqual(1);
    expect(taskGets, 'tasks fetched by id').toBe(0);
    expect([...proxy.seen.values()].every((n) => n === 2)).toBe(true);
    expect(p.sandbox.controls.billed()).toBeGreaterThan(0);
  });

  test('a task whose re-sent postback fails too is fetched by id', async () => {
    const { taskGets, resends } = await runBehindProxy(100);
    expect(resends).toBeGreaterThanOrEqual(1);
    expect(taskGets).toBe(4);
  });
});
