/** Envelope, authentication, routing and body handling: what every endpoint shares. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ENDPOINTS, resolvePath } from '../../src/api/catalog.js';
import { STATUS } from '../../src/api/status.js';
import { start, client, pathOf, ENGINES, TIME, ZERO, type Started } from './helpers.js';

let s: Started;
let api: ReturnType<typeof client>;
beforeAll(async () => {
  s = await start();
  api = client(s.sandbox);
});
afterAll(() => s.sandbox.close());
beforeEach(() => s.sandbox.controls.reset());

function expectEnvelope(json: any) {
  expect(Object.keys(json)).toEqual(['version', 'status_code', 'status_message', 'time', 'cost', 'tasks_count', 'tasks_error', 'tasks']);
  expect(json.time).toMatch(TIME);
  expect(json.tasks_count).toBe(json.tasks.length);
  for (const t of json.tasks) {
    expect(Object.keys(t)).toEqual(['id', 'status_code', 'status_message', 'time', 'cost', 'result_count', 'path', 'data', 'result']);
    expect(t.time).toMatch(TIME);
    expect(t.result_count).toBe(t.result === null ? 0 : t.result.length);
  }
  expect(json.tasks_error).toBe(json.tasks.filter((t: any) => t.status_code >= 40000).length);
}

describe('authentication', () => {
  it('missing credentials: HTTP 401 and 40100 naming the header', async () => {
    const r = await api.get(pathOf('serp.endpoints'), { auth: null });
    expect(r.status).toBe(401);
    expectEnvelope(r.json);
    expect(r.json.status_code).toBe(40100);
    expect(r.json.status_message).toContain('Authorization header is missing');
  });
  it('wrong password and a non-Basic scheme are refused the same way', async () => {
    const wrong = await api.get(pathOf('serp.endpoints'), { auth: `Basic ${Buffer.from('tester:nope').toString('base64')}` });
    expect([wrong.status, wrong.json.status_code]).toEqual([401, 40100]);
    expect(wrong.json.status_message).toContain('wrong');
    const bearer = await api.get(pathOf('serp.endpoints'), { auth: 'Bearer abc' });
    expect([bearer.status, bearer.json.status_code]).toEqual([401, 40100]);
    expect(s.sandbox.controls.calls().map((c) => c.status)).toEqual([401, 401]);
  });
});

describe('credentials option', () => {
  it('startSandbox({credentials}) accepts those instead of the configured ones', async () => {
    const { startSandbox } = await import('../../src/sandbox/index.js');
    const other = await startSandbox({ config: s.config, port: 0, credentials: { login: 'env-login', password: 'env-pass' } });
    try {
      const { call: raw } = await import('./helpers.js');
      const ok = await raw(other.url, 'GET', '/v3/serp/endpoints', { auth: `Basic ${Buffer.from('env-login:env-pass').toString('base64')}` });
      expect(ok.json.status_code).toBe(20000);
      expect((await raw(other.url, 'GET', '/v3/serp/endpoints')).status).toBe(401);
    } finally {
      await other.close();
    }
  });
});

describe('routing from the catalog with configured engines', () => {
  it('E5 lists SERP paths with the configured engine segments and no placeholder', async () => {
    const r = await api.get('/v3/serp/endpoints');
    expect(r.status).toBe(200);
    expectEnvelope(r.json);
    const [task] = r.json.tasks;
    expect(task.path).toEqual(['v3', 'serp', 'endpoints']);
    expect(task.data).toMatchObject({ api: 'serp', function: 'endpoints' });
    const paths: string[] = task.result[0];
    expect(paths).toContain('v3/serp/alpha/organic/task_get/advanced/$id');
    expect(paths).toContain('v3/serp/bravo/local_pack/task_post');
    expect(paths).toContain('v3/serp/charlie/organic/live/regular');
    expect(paths).toContain('v3/serp/alpha/events/tasks_fixed');
    expect(paths.some((p) => p.includes('engine_'))).toBe(false);
    expect(paths).not.toContain('v3/serp/bravo/local_pack/live/advanced');
  });
  it('every catalog endpoint answers at its configured path (none unimplemented)', async () => {
    for (const def of ENDPOINTS) {
      const path = resolvePath(def, ENGINES, { id: ZERO });
      const r = def.method === 'GET' ? await api.get(path) : await api.post(path, [{}]);
      expect(r.status, def.id).toBe(200);
      expectEnvelope(r.json);
      expect(r.json.version, def.id).toBe(def.version);
      expect(r.json.tasks[0].status_code, def.id).not.toBe(50100);
      expect(r.json.tasks[0].path.join('/'), def.id).toBe(path.slice(1));
    }
  });
  it('an unknown path is HTTP 404 with 40400; the reference engine token is 40402 when engines are configured', async () => {
    const unknown = await api.get('/v3/nothing/here');
    expect([unknown.status, unknown.json.status_code]).toEqual([404, 40400]);
    expect(unknown.json.status_message).toContain('/v3/nothing/here');
    const token = await api.get('/v3/serp/engine_a/events/locations');
    expect(token.json.status_code).toBe(40402);
    expect(token.json.status_message).toContain("'engine_a'");
    expect(token.json.status_message).toContain("'alpha'");
  });
  it('a bad variant segment is 40402 naming the segment; the wrong method names the right one', async () => {
    const variant = await api.get(`/v3/serp/alpha/events/task_get/fancy/${ZERO}`);
    expect(variant.json.status_code).toBe(40402);
    expect(variant.json.status_message).toContain("'fancy'");
    const method = await api.get(pathOf('serp.events.task_post'));
    expect([method.status, method.json.status_code]).toEqual([405, 40400]);
    expect(method.json.status_message).toContain('takes POST');
    const other = await call('DELETE', '/v3/serp/endpoints');
    expect(other.json.status_code).toBe(40400);
  });
});

async function call(method: string, path: string) {
  const { call: raw } = await import('./helpers.js');
  return raw(s.sandbox.url, method, path);
}

describe('POST bodies', () => {
  const post = pathOf('serp.events.task_post');
  it('invalid JSON is 40503 naming the parse problem', async () => {
    const r = await api.post(post, undefined, { raw: '[{"keyword": "x",' });
    expect([r.status, r.json.status_code]).toEqual([200, 40503]);
    expect(r.json.status_message).toContain('not valid JSON');
    expect(r.json.tasks).toEqual([]);
  });
  it('an empty body and an empty array are 40502', async () => {
    expect((await api.post(post, undefined, { raw: '' })).json.status_code).toBe(40502);
    expect((await api.post(post, undefined, { raw: '  \n' })).json.status_code).toBe(40502);
    const empty = await api.post(post, []);
    expect(empty.json.status_code).toBe(40502);
    expect(empty.json.status_message).toContain('empty array');
  });
  it('a non-array body is 40503 saying what came instead', async () => {
    const obj = await api.post(post, { keyword: 'x', location_code: 2840 });
    expect(obj.json.status_code).toBe(40503);
    expect(obj.json.status_message).toContain('JSON array');
    expect(obj.json.status_message).toContain('an object');
    expect((await api.post(post, 'text')).json.status_message).toContain('string');
    expect((await api.post(post, null)).json.status_message).toContain('null');
  });
  it('a task that is not an object is a task-level 40503 beside valid siblings', async () => {
    const r = await api.post(post, [42, { keyword: 'jazz', location_code: 2840 }, ['x']]);
    expectEnvelope(r.json);
    expect(r.json.tasks.map((t: any) => t.status_code)).toEqual([40503, 20100, 40503]);
    expect(r.json.tasks_error).toBe(2);
  });
  it('gzip request bodies are accepted', async () => {
    const { gzipSync } = await import('node:zlib');
    const r = await api.post(post, undefined, { raw: gzipSync(JSON.stringify([{ keyword: 'jazz', location_code: 2840 }])), headers: { 'content-encoding': 'gzip' } });
    expect(r.json.tasks[0].status_code).toBe(20100);
  });
});

describe('task objects', () => {
  it('task_post answers 20100 with result null, cost, path and the data echo with api/function/se/se_type, device and os', async () => {
    const r = await api.post(pathOf('serp.events.task_post'), [{ keyword: 'jazz', location_name: 'California,United States', tag: 'ev-1', depth: 30 }]);
    expectEnvelope(r.json);
    const [t] = r.json.tasks;
    expect(t).toMatchObject({ status_code: 20100, status_message: STATUS[20100], result: null, result_count: 0, cost: 0.0018 });
    expect(t.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(t.path).toEqual(['v3', 'serp', 'alpha', 'events', 'task_post']);
    expect(t.data).toEqual({ api: 'serp', function: 'task_post', se: 'alpha', se_type: 'events', keyword: 'jazz', location_name: 'California,United States', tag: 'ev-1', depth: 30, location_code: 21137, language_code: 'en', device: 'desktop', os: 'windows' });
    expect(r.json.cost).toBe(0.0018);
  });
});
