/** Fault injection, the HTTP test controls, and inputs that must never crash the server. */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { useSandbox, call, pathOf } from './helpers.js';

const box = useSandbox({ completion_delay_ms: 0, rate_limit_calls: 100000 }, { reset: true });

const EVENTS = pathOf('serp.events.task_post');
const ev = (i: number) => ({ keyword: `jazz ${i}`, location_code: 2840 });

describe('faults', () => {
  it('http500 answers HTTP 500 before anything happens: no task is created', async () => {
    box.sandbox.controls.setFaults([{ path: '/v3/serp/', http500: 1 }]);
    const r = await box.api.post(EVENTS, [ev(1)]);
    expect([r.status, r.json.status_code]).toEqual([500, 50000]);
    expect(box.sandbox.controls.postings()).toEqual([]);
    expect((await box.api.get(pathOf('merchant.google.products.tasks_ready'))).status).toBe(200); // other prefixes untouched
  });
  it('drop destroys the connection without an answer and without side effects', async () => {
    box.sandbox.controls.setFaults([{ path: '*', drop: 1 }]);
    await expect(call(box.sandbox.url, 'POST', EVENTS, { body: [ev(1)] })).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect(box.sandbox.controls.postings()).toEqual([]);
    expect(box.sandbox.controls.calls().at(-1)).toMatchObject({ status: 0, endpointId: 'serp.events.task_post' });
  });
  it('dropAfter and malformed: the tasks ARE created and billed, but the answer is lost or unreadable', async () => {
    box.sandbox.controls.setFaults([{ path: EVENTS, dropAfter: 1 }]);
    await expect(call(box.sandbox.url, 'POST', EVENTS, { body: [ev(1)] })).rejects.toThrow();
    expect(box.sandbox.controls.postings()).toHaveLength(1);
    box.sandbox.controls.setFaults([{ path: EVENTS, malformed: 1 }]);
    const r = await box.api.post(EVENTS, [ev(2)]);
    expect(r.status).toBe(200);
    expect(r.json).toBeUndefined();
    expect(() => JSON.parse(r.text)).toThrow();
    expect(box.sandbox.controls.postings()).toHaveLength(2);
    expect(box.sandbox.controls.billed()).toBe(0.0012);
  });
  it('task50000 fails that share of tasks at task level; the others are created', async () => {
    box.sandbox.controls.setFaults([{ path: EVENTS, task50000: 0.5 }], 7);
    const r = await box.api.post(EVENTS, Array.from({ length: 100 }, (_, i) => ev(i)));
    const failed = r.json.tasks.filter((t: any) => t.status_code === 50000).length;
    expect(failed).toBeGreaterThan(25);
    expect(failed).toBeLessThan(75);
    expect(r.json.tasks_error).toBe(failed);
    expect(box.sandbox.controls.postings()).toHaveLength(100 - failed);
  });
  it('task50000 on task_get leaves the task uncollected', async () => {
    const id = (await box.api.post(EVENTS, [ev(1)])).json.tasks[0].id;
    box.sandbox.controls.setFaults([{ path: '/v3/serp/alpha/events/task_get/', task50000: 1 }]);
    expect((await box.api.get(pathOf('serp.events.task_get.advanced', id))).json.tasks[0].status_code).toBe(50000);
    expect((await box.api.get(pathOf('serp.events.tasks_ready'))).json.tasks[0].result.map((r: any) => r.id)).toEqual([id]);
  });
  it('rateLimitBurst answers the next N matching calls with 40202, then lets calls through', async () => {
    box.sandbox.controls.setFaults([{ path: '/v3/serp/endpoints', rateLimitBurst: 2 }]);
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await box.api.get('/v3/serp/endpoints')).json.status_code);
    expect(codes).toEqual([40202, 40202, 20000]);
    expect(box.sandbox.controls.rateLimitAnswers()).toBe(2);
  });
  it('slow holds the answer: a later call on another path is answered first', async () => {
    box.sandbox.controls.setFaults([{ path: '/v3/serp/endpoints', slow: 1, slowMs: 300 }]);
    const order: string[] = [];
    const slow = box.api.get('/v3/serp/endpoints').then((r) => order.push(`slow ${r.json.status_code}`));
    await new Promise((r) => setTimeout(r, 20));
    const fast = box.api.get(pathOf('serp.events.locations')).then((r) => order.push(`fast ${r.json.status_code}`));
    await Promise.all([slow, fast]);
    expect(order).toEqual(['fast 20000', 'slow 20000']);
  });
  it('the same seed gives the same fault sequence', async () => {
    const run = async () => {
      box.sandbox.controls.reset();
      box.sandbox.controls.setFaults([{ path: '*', http500: 0.3 }], 99);
      const out: number[] = [];
      for (let i = 0; i < 30; i++) out.push((await box.api.get('/v3/serp/endpoints')).status);
      return out;
    };
    const a = await run();
    expect(a).toContain(500);
    expect(a).toContain(200);
    expect(await run()).toEqual(a);
  });
  it('bad rules are refused naming the rule and field', () => {
    expect(() => box.sandbox.controls.setFaults([{ path: 'v3', http500: 2 } as never])).toThrow(/faults\[0\]\.path.*faults\[0\]\.http500/);
  });
});

describe('HTTP controls under /_sandbox/', () => {
  it('read-outs and controls work over HTTP without credentials from loopback', async () => {
    const c = (method: string, path: string, body?: unknown) => call(box.sandbox.url, method, `/_sandbox/${path}`, { body, auth: null });
    await box.api.post(EVENTS, [ev(1), ev(2)]);
    expect((await c('GET', 'postings')).json).toHaveLength(2);
    expect((await c('GET', 'billed')).json).toEqual({ billed: 0.0012 });
    expect((await c('GET', 'calls')).json.map((x: any) => x.endpointId)).toEqual(['serp.events.task_post']);
    expect((await c('POST', 'faults', { rules: [{ path: '*', rateLimitBurst: 1 }], seed: 3 })).status).toBe(200);
    expect((await box.api.get('/v3/serp/endpoints')).json.status_code).toBe(40202);
    expect((await c('GET', 'rate-limit-answers')).json).toEqual({ count: 1 });
    const before = (await c('GET', 'clock')).json.now;
    expect((await c('POST', 'clock', { advance_ms: 86_400_000 })).json.now).toBe(before + 86_400_000);
    expect((await c('POST', 'completion-delay', { ms: 5000 })).json).toEqual({ ms: 5000 });
    expect(box.sandbox.controls.completionDelay()).toBe(5000);
    const id = box.sandbox.controls.postings()[0].id;
    expect((await c('POST', 'reparse', { ids: [id, 'missing'] })).json).toEqual({ reparsed: [id] });
    expect((await c('POST', 'settle')).json).toEqual({ settled: true });
    expect((await c('POST', 'reset')).json).toEqual({ reset: true });
    expect((await c('GET', 'postings')).json).toEqual([]);
    const bad = await c('POST', 'faults', { rules: [{ path: '*', drop: 'always' }] });
    expect([bad.status, bad.json.error]).toEqual([400, 'faults[0].drop: must be a share from 0 to 1']);
    expect((await c('GET', 'nothing')).status).toBe(404);
    expect((await c('POST', 'clock', { advance_ms: 'soon' })).json.error).toContain('advance_ms');
    // Control calls are not API calls.
    expect(box.sandbox.controls.calls()).toEqual([]);
  });
});

describe('no input crashes the server', () => {
  it('malformed bodies, odd tasks and odd paths are all answered, and the server keeps serving', async () => {
    const bodies = ['{', '[', ']', 'null', '0', '"x"', '[null]', '[[]]', '[{"keyword": {}}]', '[{"keyword": "x", "location_code": "2840"}]',
      '[{"keyword": "x", "location_code": 1e400}]', '[{"__proto__": {"polluted": true}, "keyword": "x", "location_code": 2840}]',
      JSON.stringify([{ keyword: 'x', location_coordinate: 'a,b,c' }]), JSON.stringify([{ keyword: 'x'.repeat(100000), location_code: 2840 }]),
      '\u0000\u0001', '[' + '['.repeat(5000) + ']'.repeat(5000) + ']'];
    const paths = [EVENTS, pathOf('on_page.resources'), pathOf('domain_analytics.technologies.domains_by_html_terms.live'), pathOf('domain_analytics.errors'), pathOf('content_generation.paraphrase.live')];
    for (const path of paths) {
      for (const raw of bodies) {
        const r = await box.api.post(path, undefined, { raw });
        expect(r.status, `${path} ${raw.slice(0, 30)}`).toBe(200);
        expect(r.json.status_code).toBeGreaterThanOrEqual(20000);
        if (r.json.status_code === 20000) for (const t of r.json.tasks) expect(t.status_code === 20000 || t.status_code === 20100 || t.status_message.length > 10).toBe(true);
      }
    }
    const odd = await box.api.post(pathOf('on_page.resources'), [{ id: '11111111-2222-3333-4444-555555555555', filters: [['size', 'in', { a: 1 }]], order_by: [null] }]);
    expect(odd.json.tasks[0].status_code).toBe(40501);
    for (const p of ['/', '//', '/v3', '/v3/../../etc/passwd', '/v3/serp/alpha/events/task_get/advanced/%E0%A4%A', '/v3/serp/alpha/events/task_get/advanced/' + 'a'.repeat(5000), '/%00']) {
      const r = await box.api.get(p);
      expect(r.json, p).toBeDefined();
    }
    expect(({} as any).polluted).toBeUndefined();
    expect((await box.api.get('/v3/serp/endpoints')).json.status_code).toBe(20000);
  });
  it('a garbage request line and a half-sent body do not take it down', async () => {
    await new Promise<void>((resolve) => {
      const sock = net.connect(box.sandbox.port, '127.0.0.1', () => sock.end('NOT HTTP AT ALL\r\n\r\n'));
      let answer = '';
      sock.on('data', (d) => (answer += String(d)));
      sock.on('end', () => {
        expect(answer).toMatch(/^HTTP\/1\.1 400/);
        sock.destroy();
        resolve();
      });
      sock.on('close', () => resolve());
      sock.on('error', () => resolve());
    });
    await new Promise<void>((resolve) => {
      const sock = net.connect(box.sandbox.port, '127.0.0.1', () => {
        sock.write(`POST ${EVENTS} HTTP/1.1\r\nhost: x\r\ncontent-length: 1000\r\n\r\n[{"keyw`);
        setTimeout(() => sock.destroy(), 50);
      });
      sock.on('close', () => resolve());
      sock.on('error', () => resolve());
    });
    expect((await box.api.get('/v3/serp/endpoints')).json.status_code).toBe(20000);
  });
});
