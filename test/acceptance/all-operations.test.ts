/**
 * The official client (npm dataforseo-client), unmodified, against `seo-etl sandbox` in its default configuration,
 * started here on 127.0.0.1: every operation the client has - the list generated from the client itself
 * (src/families/generated/, `make declarations`), not picked by hand - is called through the client; task
 * families go through their lifecycle (task_post, tasks_ready, every task_get variant). Each answer must match
 * the client's models field by field and type by type, raw and as the client parsed it. The count is reported
 * as "N of N operations". Then every operation with a request body is called again with every field its request
 * model declares (the fields the client's own serializer sends), each a plausible value of its declared type
 * within the live service's documented limits: every one must be accepted and answer in the models.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientHttp } from '../helpers/official-client.js';
import * as dfs from 'dataforseo-client';
import { model, modelProblems } from '../helpers/client-models.js';
import { MODELS, type GeneratedFile, type GeneratedOperation } from '../../src/families/generated.js';
import { matchPath } from '../../src/api/catalog.js';
import { type FieldRule } from '../../src/catalog/endpoint.js';
import { loadConfig } from '../../src/config/index.js';
import { FAMILIES } from '../../src/families/index.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const GENERATED = path.join(ROOT, 'src', 'families', 'generated');
const LOGIN = 'sandbox_login';
const PASSWORD = 'sandbox_password';

const FILES: GeneratedFile[] = readdirSync(GENERATED).filter((f) => f.endsWith('.json') && f !== 'models.json')
  .map((f) => JSON.parse(readFileSync(path.join(GENERATED, f), 'utf8')));
const ALL: GeneratedOperation[] = FILES.flatMap((f) => f.operations);
/** The operations of the families the registry holds (all of the client's, once every family is registered). */
const OPERATIONS = ALL.filter((o) => FAMILIES.some((f) => f.name === o.path.split('/')[2]));

let child: ChildProcess;
let url = '';
const apis = new Map<string, Record<string, (...args: unknown[]) => Promise<unknown>>>();
let lastRaw: () => unknown = () => undefined;

beforeAll(async () => {
  child = spawn(process.execPath, [path.join(ROOT, 'bin', 'seo-etl.js'), 'sandbox', '--port', '0', '--host', '127.0.0.1'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /sandbox listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.stderr!.on('data', (b: Buffer) => { out += b.toString(); });
    child.once('exit', (code) => reject(new Error(`seo-etl sandbox exited ${code}: ${out}`)));
  });
  const client = clientHttp(LOGIN, PASSWORD);
  const http = client.http;
  lastRaw = client.lastRaw;
  for (const cls of new Set(OPERATIONS.map((o) => o.client.split('.')[0]))) {
    const Api = (dfs as unknown as Record<string, new (base: string, h: unknown) => Record<string, (...args: unknown[]) => Promise<unknown>>>)[cls];
    apis.set(cls, new Api(url, http));
  }
});
afterAll(() => { child?.kill('SIGTERM'); });

/** A value for a request field that keeps the rules the sandbox serves it with: what a user would send. */
function sample(name: string, rule: FieldRule): unknown {
  if ((rule.type === 'string' && rule.enum?.length)) return rule.enum[0];
  if (rule.type === 'integer' && rule.enum?.length) return rule.enum[0];
  switch (rule.type) {
    case 'string':
      if (/location_name/.test(name)) return 'United States';
      if (/language_name/.test(name)) return 'English';
      if (/language_code/.test(name)) return 'en';
      if (/location_coordinate/.test(name)) return rule.format === 'lat_lng' ? '40.7128,-74.006' : '40.7128,-74.006,2000';
      if (/(^|_)url$/.test(name) || rule.format === 'url') return 'https://example.com/';
      if (/target|domain|site/.test(name)) return 'example.com';
      // A task id: one this account posted (webhook_resend re-sends its callbacks).
      if (rule.format === 'uuid' || /^id$|_id$/.test(name)) return withPingback.id ?? postedIds[0] ?? '00000000-0000-0000-0000-000000000001';
      if (/date/.test(name) || rule.format === 'date') return '2026-01-01';
      return 'running shoes';
    case 'integer':
    case 'number':
      if (/location_code/.test(name)) return 2840;
      if ('min' in rule && rule.min !== undefined && rule.min > 0) return rule.min;
      return /bid|price/.test(name) ? 1 : 1;
    case 'boolean': return false;
    case 'string_array': return /target|domain|url|site/.test(name) ? ['example.com'] : ['running shoes'];
    case 'any': {
      // Lists of the models' objects (LLM mentions' targets): one element with the fields a user names first.
      const list = /^(\w+)\[\]$/.exec(rule.of ?? '');
      if (list && MODELS[list[1]]) {
        const fields = Object.keys(MODELS[list[1]].fields);
        const el: Record<string, unknown> = {};
        for (const f of fields) if (/^(domain|keyword|target)$/.test(f)) el[f] = f === 'keyword' ? 'running shoes' : 'example.com';
        if (Object.keys(el).length === 0 && fields[0]) el[fields[0]] = 'example.com';
        return [Object.keys(el).length > 1 ? { [Object.keys(el)[0]]: Object.values(el)[0] } : el];
      }
      if (rule.of?.endsWith('[]')) return ['example.com'];
      // Objects keyed by position (targets, asins, app_ids, pages of the intersection calls).
      return /target|page|domain/.test(name) ? { 1: 'example.com', 2: 'example.org' } : { 1: 'B000000001', 2: 'B000000002' };
    }
    default: return null;
  }
}

const postedIds: string[] = [];
/** The task posted with a pingback address (the first post whose rules take one). */
const withPingback: { asked?: string; id?: string } = {};
const ENGINES = loadConfig({ root: ROOT, env: {} }).paths;

function requestOf(op: GeneratedOperation): Record<string, unknown> {
  const served = matchPath(op.method, op.path.replace(/\{\w+\}/g, 'x'), ENGINES)?.def;
  const rules: Record<string, FieldRule> = served?.fields ?? {};
  const out: Record<string, unknown> = {};
  for (const [name, rule] of Object.entries(rules)) if ('required' in rule && rule.required) out[name] = sample(name, rule);
  // The first task posted asks for a pingback (an address nothing listens on), so webhook_resend has one to re-send.
  if (op.kind === 'task_post' && !withPingback.asked && rules.pingback_url) {
    out.pingback_url = 'http://127.0.0.1:9/pingback?id=$id';
    withPingback.asked = op.id;
  }
  for (const c of served?.cross ?? []) {
    if (c.rule === 'one_of_required' && !c.fields.some((f) => out[f] !== undefined)) out[c.fields[0]] = sample(c.fields[0], rules[c.fields[0]]);
  }
  return out;
}

const m = dfs as unknown as Record<string, new (data: Record<string, unknown>) => unknown>;

/** Problems found, by operation id. */
const problemsOf = new Map<string, string[]>();

async function call(op: GeneratedOperation, arg?: unknown): Promise<{ problems: string[]; value: any }> {
  const r = await callOnce(op, arg);
  problemsOf.set(op.id, [...(problemsOf.get(op.id) ?? []), ...r.problems]);
  return r;
}

async function callOnce(op: GeneratedOperation, arg?: unknown): Promise<{ problems: string[]; value: any }> {
  const [cls, method] = op.client.split('.');
  const fn = apis.get(cls)![method];
  let value: any;
  try {
    value = await fn.call(apis.get(cls), ...(arg === undefined ? [] : [arg]));
  } catch (e) {
    return { problems: [`${op.id}: the client threw ${(e as Error).message?.slice(0, 200)}`], value: null };
  }
  const problems = [...modelProblems(op.response!, lastRaw()), ...modelProblems(op.response!, value, op.response!, true)];
  const task = value?.tasks?.[0];
  if (value?.status_code !== 20000) problems.push(`${op.id}: status ${value?.status_code} ${value?.status_message}`);
  if (task && task.status_code >= 40000) problems.push(`${op.id}: task status ${task.status_code} ${task.status_message}`);
  return { problems, value };
}

// fromJS, as the client reads JSON: the request's nested models and the JSON names (`target1`) map as the client maps them.
const fromJS = (name: string, data: Record<string, unknown>) => (m[name] as unknown as { fromJS(d: unknown): unknown }).fromJS(data);
const argFor = (op: GeneratedOperation) => (op.method === 'POST' ? [fromJS(op.request!, requestOf(op))] : /\{(country|\w+)\}$/.test(op.path) && !op.path.endsWith('{id}') ? 'us' : undefined);

describe('every operation of the official client against seo-etl sandbox', () => {
  it('succeeds and answers in the client\'s models, field by field and type by type', async () => {
    const failures: string[] = [];
    problemsOf.clear();
    problemsOf.clear();
    const done = new Set<string>();
    const byId = new Map(OPERATIONS.map((o) => [o.id, o]));
    const posted: { op: GeneratedOperation; id: string }[] = [];
    // Task posts first (their lifecycle below), then everything that needs no task.
    for (const op of OPERATIONS.filter((o) => o.kind === 'task_post')) {
      const r = await call(op, argFor(op));
      failures.push(...r.problems);
      done.add(op.id);
      const id = r.value?.tasks?.[0]?.id;
      if (r.value?.tasks?.[0]?.status_code === 20100 && id) {
        posted.push({ op, id });
        postedIds.push(id);
        if (withPingback.asked === op.id) withPingback.id = id;
      }
      else problemsOf.get(op.id)!.push(`${op.id}: no task created`);
    }
    for (const op of OPERATIONS.filter((o) => o.kind !== 'task_post' && !o.path.endsWith('{id}') && o.kind !== 'tasks_ready')) {
      const r = await call(op, argFor(op));
      failures.push(...r.problems);
      done.add(op.id);
    }
    // The lifecycle: each posted task appears in its family's ready list, then every task_get variant returns it.
    await new Promise((r) => setTimeout(r, 400));
    for (const { op, id } of posted) {
      const base = op.id.replace(/\.task_post$/, '');
      const ready = byId.get(`${base}.tasks_ready`) ?? OPERATIONS.find((o) => o.kind === 'tasks_ready' && o.path === op.path.replace(/task_post$/, 'tasks_ready'));
      if (ready) {
        const r = await call(ready);
        failures.push(...r.problems);
        done.add(ready.id);
        if (!r.value?.tasks?.[0]?.result?.some((x: { id: string }) => x.id === id)) problemsOf.get(ready.id)!.push(`${ready.id}: task ${id} not listed`);
      }
      for (const get of OPERATIONS.filter((o) => o.kind === 'task_get' && o.id.startsWith(`${base}.task_get`))) {
        const r = await call(get, id);
        failures.push(...r.problems);
        done.add(get.id);
      }
    }
    // Operations whose path takes a task id of another kind (a crawl, a ready list of the whole family) and the rest.
    for (const op of OPERATIONS.filter((o) => !done.has(o.id))) {
      const id = posted.find((p) => p.op.path.split('/')[2] === op.path.split('/')[2])?.id ?? '00000000-0000-0000-0000-000000000001';
      const r = await call(op, op.path.includes('{') ? id : undefined);
      failures.push(...r.problems);
      done.add(op.id);
    }
    const failed = [...problemsOf].filter(([, p]) => p.length > 0);
    console.log(`official client against seo-etl sandbox: ${OPERATIONS.length - failed.length} of ${OPERATIONS.length} operations answered in the client's models (the client has ${ALL.length})`);
    expect(done.size).toBe(OPERATIONS.length);
    expect(failed.map(([id, p]) => `${id}: ${p[0]}`)).toEqual([]);
  });

  it('accepts every field each request model declares, and answers in the models', async () => {
    const clock = await (await fetch(`${url}/_sandbox/clock`)).json() as { now: number };
    const day = (offset: number) => new Date(clock.now + offset * 86_400_000).toISOString().slice(0, 10);
    const problems = new Map<string, string[]>();
    const posted: { op: GeneratedOperation; id: string }[] = [];
    // Task posts first: a field naming a task (webhook_resend's id) names one posted here.
    const withBody = OPERATIONS.filter((o) => o.method === 'POST' && o.request).sort((a, b) => Number(b.kind === 'task_post') - Number(a.kind === 'task_post'));
    for (const op of withBody) {
      const body = fullRequestOf(op, day);
      // A paging token is one the endpoint gave out: the same call without it hands one over.
      for (const token of ['search_after_token', 'offset_token'].filter((k) => k in body)) {
        const first = await callOnce(op, [fromJS(op.request!, { ...body, [token]: undefined })]);
        body[token] = first.value?.tasks?.[0]?.result?.[0]?.[token] ?? `(no ${token} in the answer without it)`;
      }
      const r = await callOnce(op, [fromJS(op.request!, body)]);
      // The client sent each field: a field it dropped would not have been tried.
      const sent = Object.keys(body).filter((k) => body[k] !== undefined);
      const missing = Object.keys(new (m[op.request!] as unknown as new () => { toJSON(): Record<string, unknown> })().toJSON()).filter((k) => !sent.includes(k));
      problems.set(op.id, [...r.problems, ...missing.map((k) => `${op.id}: ${k} not sent`)]);
      const id = r.value?.tasks?.[0]?.id;
      if (op.kind === 'task_post' && r.value?.tasks?.[0]?.status_code === 20100 && id) {
        posted.push({ op, id });
        withPingback.id ??= id;
      }
    }
    // A task posted with every field is collected like any other: each of its task_get variants answers in the models.
    await new Promise((r) => setTimeout(r, 400));
    for (const { op, id } of posted) {
      const base = op.id.replace(/\.task_post$/, '');
      for (const get of OPERATIONS.filter((o) => o.kind === 'task_get' && o.id.startsWith(`${base}.task_get`))) {
        const r = await callOnce(get, id);
        problems.get(op.id)!.push(...r.problems);
      }
    }
    const failed = [...problems].filter(([, p]) => p.length > 0);
    console.log(`official client with every declared request field: ${withBody.length - failed.length} of ${withBody.length} operations with a request body accepted them and answered in the client's models`);
    expect(withBody.length).toBe(OPERATIONS.filter((o) => o.method === 'POST').length);
    expect(failed.map(([id, p]) => `${id}: ${p.slice(0, 3).join(' | ')}`)).toEqual([]);
  });
});

/**
 * Every field the client's request model sends, each with a value of its declared type that keeps the rule the
 * sandbox serves it with (dates relative to the sandbox's own clock, so the call means the same on any day).
 */
function fullRequestOf(op: GeneratedOperation, day: (offset: number) => string): Record<string, unknown> {
  const served = matchPath(op.method, op.path.replace(/\{\w+\}/g, 'x'), ENGINES)?.def;
  const rules: Record<string, FieldRule> = served?.fields ?? {};
  const declared = model(op.request!).fields;
  const names = Object.keys(new (m[op.request!] as unknown as new () => { toJSON(): Record<string, unknown> })().toJSON());
  const out: Record<string, unknown> = {};
  const ranges = new Map<string, 'past' | 'future'>();
  for (const c of served?.cross ?? []) if (c.rule === 'date_range') { ranges.set(c.from, c.window); ranges.set(c.to, c.window); }
  for (const name of names) {
    const rule = rules[name] ?? declaredRule(declared.get(name) ?? 'any');
    out[name] = fullSample(name, rule, ranges.get(name), day);
  }
  for (const c of served?.cross ?? []) {
    // Two lists that may not share a value (find and ignore): the second takes another value its rule allows.
    if (c.rule !== 'disjoint') continue;
    const rule = rules[c.fields[1]];
    out[c.fields[1]] = [rule?.type === 'string_array' && rule.itemEnum ? rule.itemEnum[1] : 'example.org'];
  }
  // Filters and sorting name a field of the answer; the hand-declared families check theirs against their own lists.
  Object.assign(out, ANSWER_FIELDS[op.id]);
  return out;
}

/** Filters and sorting where the answer's fields are not `rank` (the sandbox knows each hand-declared family's). */
const ANSWER_FIELDS: Record<string, Record<string, unknown[]>> = {
  // Conditions every resource and page meets: the first page holds a full page, so a token follows.
  'on_page.resources': { filters: [['size', '>=', 0]], relevant_pages_filters: [['status_code', '>', 0]], order_by: ['size,desc'] },
  'domain_analytics.technologies.domains_by_html_terms.live': { filters: [['domain_rank', '>', 0]] },
};

/** The rule a declared type would have if the sandbox served none (the call then fails as it should). */
function declaredRule(type: string): FieldRule {
  if (type === 'number') return { type: 'number' };
  if (type === 'string') return { type: 'string' };
  if (type === 'boolean') return { type: 'boolean' };
  if (type === 'string[]') return { type: 'string_array' };
  return { type: 'any', of: type };
}

function fullSample(name: string, rule: FieldRule, range: 'past' | 'future' | undefined, day: (offset: number) => string): unknown {
  if (/date_from$/.test(name)) return range === 'future' ? day(7) : day(-60);
  if (/date_to$/.test(name)) return range === 'future' ? day(30) : day(-30);
  if (rule.type === 'string' && rule.format === 'timestamp') return `${day(/_to$/.test(name) ? -1 : -2)} 00:00:00 +00:00`;
  if (/pingback_url|postback_url/.test(name)) return `http://127.0.0.1:9/${name}?id=$id`;
  // A location code is an integer as users send it, whatever type the model gives it (Google Trends: a string).
  if (name === 'location_code') return 2840;
  switch (rule.type) {
    case 'object_array': {
      const el: Record<string, unknown> = {};
      for (const [k, r] of Object.entries(rule.fields)) el[k] = fullSample(k, r, undefined, day);
      return Array.from({ length: rule.minItems ?? 1 }, () => el);
    }
    case 'string_array': return rule.itemEnum ? [rule.itemEnum[0]] : sample(name, rule);
    case 'filters': return [['rank', '>', 0]];
    case 'order_by': return [`${rule.fields?.[0] ?? 'rank'},desc`];
    default: return sample(name, rule);
  }
}
