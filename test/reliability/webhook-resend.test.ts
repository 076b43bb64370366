/**
 * Failed callback deliveries are re-sent by the service (free) before a task is fetched by id (issue 17): the live
 * service lists them (appendix/errors, E13) and re-sends up to 100 per call with `/v3/appendix/webhook_resend`,
 * "will not be double-charged" (docs.dataforseo.com/v3/appendix/webhook_resend; docs/api-live.md
 * [account.webhook_resend]). A proxy in front of the run's receiver refuses each task's first postback (HTTP 500):
 * the run re-sends them and loads the second delivery, with no task_get at all. A task whose re-sent callback does
 * not come either is still fetched by id.
 */
import { afterAll, expect, test } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ROOT, startProject, type TestProject } from '../helpers/project.js';
import { SANDBOX_EXTRA, closeProject, runInProcess, withDb } from './helpers.js';

const PIPELINE = path.join(ROOT, 'test', 'reliability', 'pipelines', 'postback.yaml');
const opened: TestProject[] = [];
const servers: http.Server[] = [];
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
  const r = await runInProcess(p, { webhook: { listen_port: listen, public_url: `http://127.0.0.1:${proxy.port}` } }, PIPELINE);
  expect(r.exitCode, r.log.slice(-3000)).toBe(0);
  await withDb(path.join(p.dataDir, 'warehouse.duckdb'), async (query) => {
    expect(await query(`SELECT state, count(*)::INT AS n FROM _tasks GROUP BY ALL`)).toEqual([{ state: 'loaded', n: 4 }]);
  });
  const calls = p.sandbox.controls.calls();
  return { p, proxy, taskGets: calls.filter((c) => /task_get/.test(c.path)).length, resends: calls.filter((c) => c.endpointId === 'appendix.webhook_resend').length };
}

test('a failed postback is re-sent by the service, not fetched by id', async () => {
  const { p, proxy, taskGets, resends } = await runBehindProxy(1);
  expect(resends, 'webhook_resend calls').toBeGreaterThanOrEqual(1);
  expect(taskGets, 'tasks fetched by id').toBe(0);
  expect([...proxy.seen.values()].every((n) => n === 2)).toBe(true);
  expect(p.sandbox.controls.billed()).toBeGreaterThan(0);
}, 120_000);

test('a task whose re-sent postback fails too is fetched by id', async () => {
  const { taskGets, resends } = await runBehindProxy(100);
  expect(resends).toBeGreaterThanOrEqual(1);
  expect(taskGets).toBe(4);
}, 120_000);
