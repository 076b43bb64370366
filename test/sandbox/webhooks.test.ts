/** Pingback and postback against a real receiving server on 127.0.0.1, and E13's listing of failed deliveries. */
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { formatTimestamp } from '../../src/api/envelope.js';
import { start, client, pathOf, TIMESTAMP, type Started } from './helpers.js';

interface Received { method: string; url: string; headers: http.IncomingHttpHeaders; body: Buffer }

let s: Started;
let api: ReturnType<typeof client>;
let receiver: http.Server;
let base: string;
let received: Received[];

beforeAll(async () => {
  s = await start({ completion_delay_ms: 1000 }, { callbackTimeoutMs: 300 });
  api = client(s.sandbox);
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      const u = new URL(req.url ?? '/', 'http://x');
      if (u.pathname.startsWith('/hang')) return; // never answers: the sandbox must time out
      const status = Number(u.searchParams.get('status') ?? 200);
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status >= 400 ? 'receiver says no' : 'ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await s.sandbox.close();
  receiver.closeAllConnections();
  await new Promise((r) => receiver.close(r));
});
beforeEach(() => {
  s.sandbox.controls.reset();
  received = [];
});

const EVENTS = pathOf('serp.events.task_post');
const READY = pathOf('serp.events.tasks_ready');
const readyIds = async () => (await api.get(READY)).json.tasks[0].result.map((r: any) => r.id);
async function postAndComplete(task: Record<string, unknown>, path = EVENTS): Promise<string> {
  const r = await api.post(path, [{ keyword: 'jazz & blues', location_code: 2840, ...task }]);
  expect(r.json.tasks[0].status_code).toBe(20100);
  s.clock.advance(1000);
  await s.sandbox.controls.settle();
  return r.json.tasks[0].id;
}
const errorsOf = async (task: Record<string, unknown> = {}) => (await api.post(pathOf('domain_analytics.errors'), [task])).json.tasks[0].result;

describe('pingback', () => {
  it('GET with $id and the url-encoded $tag filled in, special characters encoded; delivered tasks are not listed', async () => {
    const id = await postAndComplete({ tag: 'a b&c/é', pingback_url: `${base}/ping?id=$id&tag=$tag#frag` });
    expect(received).toHaveLength(1);
    expect(received[0].method).toBe('GET');
    expect(received[0].body.length).toBe(0);
    expect(received[0].url).toBe(`/ping?id=${id}&tag=${encodeURIComponent('a b&c/é')}%23frag`);
    expect(await readyIds()).toEqual([]);
    expect((await api.get(pathOf('serp.events.task_get.advanced', id))).json.tasks[0].status_code).toBe(20000);
    expect(await errorsOf()).toEqual([]);
  });
  it('nothing is sent before completion', async () => {
    await api.post(EVENTS, [{ keyword: 'x', location_code: 2840, pingback_url: `${base}/ping?id=$id` }]);
    s.clock.advance(999);
    await s.sandbox.controls.settle();
    expect(received).toHaveLength(0);
    s.clock.advance(1);
    await s.sandbox.controls.settle();
    expect(received).toHaveLength(1);
  });
  it('a non-2xx answer lists the task and records the failure for E13 with every field', async () => {
    const id = await postAndComplete({ tag: 't', pingback_url: `${base}/ping?id=$id&status=503` });
    expect(await readyIds()).toEqual([id]);
    const [e] = await errorsOf();
    expect(e).toEqual({
      id, datetime: expect.stringMatching(TIMESTAMP), function: 'pingback_url', error_code: 503, error_message: expect.stringContaining('HTTP 503'),
      http_url: `${base}/ping?id=${id}&status=503`, http_method: 'GET', http_code: 503, http_time: expect.any(Number), http_response: 'receiver says no',
    });
  });
  it('a refused connection lists the task too', async () => {
    const id = await postAndComplete({ pingback_url: 'http://127.0.0.1:1/nobody-listens?id=$id' });
    expect(await readyIds()).toEqual([id]);
    expect((await errorsOf())[0]).toMatchObject({ id, function: 'pingback_url', http_code: 0, error_code: 50000 });
  });
});

describe('postback', () => {
  it('POST of the gzip JSON envelope task_get would return, in the postback_data variant; not listed', async () => {
    const id = await postAndComplete({ tag: 'pb', postback_url: `${base}/post/$id?tag=$tag`, postback_data: 'regular' });
    expect(received).toHaveLength(1);
    const r = received[0];
    expect([r.method, r.url, r.headers['content-encoding'], r.headers['content-type']]).toEqual(['POST', `/post/${id}?tag=pb`, 'gzip', 'application/json']);
    const env = JSON.parse(gunzipSync(r.body).toString('utf8'));
    expect(env).toMatchObject({ status_code: 20000, tasks_count: 1 });
    expect(env.tasks[0]).toMatchObject({ id, status_code: 20000, path: ['v3', 'serp', 'alpha', 'events', 'task_get', 'regular', id] });
    expect(env.tasks[0].result[0].item_types).toEqual(['event_item']);
    expect(env.tasks[0].result[0].items[0].information_and_tickets).toBeUndefined(); // regular, not advanced
    expect(await readyIds()).toEqual([]);
    const got = await api.get(pathOf('serp.events.task_get.regular', id));
    expect(got.json.tasks[0].result).toEqual(env.tasks[0].result);
  });
  it('keywords and merchant postbacks carry their task_get envelopes', async () => {
    const k = await postAndComplete({ keyword: undefined, location_code: undefined, target: 'example.com', postback_url: `${base}/k/$id` }, pathOf('keywords_for_site.task_post'));
    const m = await postAndComplete({ keyword: 'shoes', language_code: 'en', postback_url: `${base}/m/$id`, postback_data: 'advanced' }, pathOf('merchant.google.products.task_post'));
    const bodies = received.map((r) => JSON.parse(gunzipSync(r.body).toString('utf8')).tasks[0]);
    expect(bodies[0]).toMatchObject({ id: k, result_count: 20 });
    expect(bodies[1].id).toBe(m);
    expect(bodies[1].result[0].item_types).toContain('alpha_shopping_serp');
  });
  it('HTTP 300 counts as delivered, 500 and 199-range do not: only below 200 or above 300 lists the task', async () => {
    const ok300 = await postAndComplete({ postback_url: `${base}/p?status=300`, postback_data: 'advanced' });
    const bad = await postAndComplete({ postback_url: `${base}/p?status=500`, postback_data: 'advanced' });
    const redirect = await postAndComplete({ postback_url: `${base}/p?status=301`, postback_data: 'advanced' });
    expect(await readyIds()).toEqual([bad, redirect]);
    expect(await readyIds()).not.toContain(ok300);
    const errors = await errorsOf({ filtered_function: 'postback_url' });
    expect(errors.map((e: any) => [e.id, e.http_code, e.http_method])).toEqual([[redirect, 301, 'POST'], [bad, 500, 'POST']]);
  });
  it('no answer within the callback timeout: aborted, listed, recorded with http_code 0', async () => {
    const id = await postAndComplete({ postback_url: `${base}/hang/$id`, postback_data: 'advanced' });
    expect(await readyIds()).toEqual([id]);
    const [e] = await errorsOf();
    expect(e).toMatchObject({ id, function: 'postback_url', error_code: 50401, http_code: 0, http_response: '' });
    expect(e.error_message).toContain('300 ms');
    expect(e.http_time).toBeGreaterThanOrEqual(0.29);
  });
});

describe('E13 errors endpoint', () => {
  it('limit, offset, filtered_function and datetime_from/to select from the last 7 days, newest first', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(await postAndComplete({ pingback_url: `${base}/ping?status=500&n=${i}` }));
      s.clock.advance(3_600_000);
    }
    ids.push(await postAndComplete({ postback_url: `${base}/p?status=404`, postback_data: 'advanced' }));
    const all = await errorsOf();
    expect(all.map((e: any) => e.id)).toEqual([...ids].reverse());
    expect((await errorsOf({ limit: 2, offset: 1 })).map((e: any) => e.id)).toEqual([ids[2], ids[1]]);
    expect((await errorsOf({ filtered_function: 'pingback_url' })).map((e: any) => e.id)).toEqual([ids[2], ids[1], ids[0]]);
    const now = s.clock.now();
    const from = formatTimestamp(new Date(now - 2.5 * 3_600_000));
    const to = formatTimestamp(new Date(now - 0.5 * 3_600_000));
    expect((await errorsOf({ datetime_from: from, datetime_to: to })).map((e: any) => e.id)).toEqual([ids[2], ids[1]]);
    s.clock.advance(7 * 86_400_000 - 2 * 3_600_000);
    expect((await errorsOf()).map((e: any) => e.id)).toEqual([ids[3], ids[2]]);
  });
  it('domains by HTML terms task errors are listed under their function', async () => {
    await api.post(pathOf('domain_analytics.technologies.domains_by_html_terms.live'), [{ search_terms: ['<b>'], limit: 20000 }]);
    const [e] = await errorsOf({ filtered_function: 'domain_analytics/technologies/domains_by_html_terms/live' });
    expect(e).toMatchObject({ error_code: 40501, http_method: 'POST', http_code: 200 });
    expect(e.error_message).toContain("'limit'");
  });
});
