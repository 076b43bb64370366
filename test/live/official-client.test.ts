/**
 * The official API client (npm dataforseo-client), unmodified, against the sandbox: merchant post, tasks_ready,
 * task_get advanced and html succeed, and every value it parses has the type its models declare (read from the
 * package's own .d.ts files); a task without a language and a depth of 121 are refused.
 * The engine override (engine_a: google) goes once the default configuration uses the live path names (kw branch).
 */
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as dfs from 'dataforseo-client';
import { loadConfig } from '../../src/config/index.js';
import { startSandbox, manualClock, type Sandbox } from '../../src/sandbox/index.js';
import { ROOT } from '../helpers/project.js';

const MODELS = path.join(path.dirname(createRequire(import.meta.url).resolve('dataforseo-client')), '..', 'esm', 'models');

/** Declared fields of model `name` (interface I<name>, in its own file or in `inFile`'s, as subclasses are), type without `| undefined`. */
const fieldCache = new Map<string, Map<string, string> | null>();
function fieldsOf(name: string, inFile = name): Map<string, string> | null {
  if (fieldCache.has(name)) return fieldCache.get(name)!;
  let out: Map<string, string> | null = null;
  for (const f of [name, inFile]) {
    const file = path.join(MODELS, `${f}.d.ts`);
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    const start = text.indexOf(`export interface I${name} `);
    if (start < 0) continue;
    const end = text.indexOf('\n}', start);
    const header = text.slice(start, text.indexOf('{', start));
    const body = text.slice(start, end).replace(/\/\*\*[\s\S]*?\*\//g, '');
    out = new Map();
    for (const m of body.matchAll(/^\s{4}(\w+)\?: ([^;]+?)(?: \| undefined)?;$/gm)) out.set(m[1], m[2].trim());
    fieldCache.set(name, out);
    // Fields the interface inherits (extends I<Base>).
    const ext = /extends I(\w+)/.exec(header);
    if (ext) for (const [k, v] of fieldsOf(ext[1]) ?? []) if (!out.has(k)) out.set(k, v);
    break;
  }
  fieldCache.set(name, out);
  return out;
}

/** Every place a value's type differs from the model's declaration, and every key the model does not declare. */
function mismatches(value: unknown, type: string, at: string, out: string[]): string[] {
  if (value === null || value === undefined || type === 'any') return out;
  if (type.endsWith('[]')) {
    if (!Array.isArray(value)) out.push(`${at}: expected ${type}, got ${typeof value}`);
    else value.forEach((v, i) => mismatches(v, type.slice(0, -2), `${at}[${i}]`, out));
    return out;
  }
  if (type === 'number' || type === 'string' || type === 'boolean') {
    if (typeof value !== type) out.push(`${at}: expected ${type}, got ${typeof value} ${JSON.stringify(value)}`);
    return out;
  }
  if (type.startsWith('{')) {
    if (typeof value !== 'object') out.push(`${at}: expected an object, got ${typeof value}`);
    return out;
  }
  if (typeof value !== 'object' || Array.isArray(value)) return out.push(`${at}: expected ${type}, got ${typeof value}`), out;
  // The client builds the subclass an item's `type` names; check against that one.
  const own = (value as object).constructor?.name;
  const model = own && own !== 'Object' && fieldsOf(own, type) ? own : type;
  const fields = fieldsOf(model);
  if (!fields) return out.push(`${at}: no model ${model}`), out;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    // `discriminator` is the client's own bookkeeping of the subclass, not a field of the answer.
    if (typeof v === 'function' || k === 'discriminator') continue;
    const declared = fields.get(k);
    if (!declared) out.push(`${at}.${k}: not in ${model}`);
    else mismatches(v, declared, `${at}.${k}`, out);
  }
  return out;
}

let sandbox: Sandbox;
let api: dfs.MerchantApi;
let appendix: dfs.AppendixApi;
const clock = manualClock(Date.UTC(2026, 10, 20, 12));
beforeAll(async () => {
  const config = loadConfig({ root: ROOT, env: {}, overrides: { sandbox: { login: 'official', password: 'client', completion_delay_ms: 1000 } } });
  sandbox = await startSandbox({ config, port: 0, clock });
  const token = Buffer.from('official:client').toString('base64');
  const authFetch = (url: string | URL | Request, init?: RequestInit) => fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), Authorization: `Basic ${token}` } });
  api = new dfs.MerchantApi(sandbox.url, { fetch: authFetch });
  appendix = new dfs.AppendixApi(sandbox.url, { fetch: authFetch });
});
afterAll(() => sandbox.close());

const request = (fields: Record<string, unknown>) => Object.assign(new dfs.MerchantGoogleProductsTaskPostRequestInfo(), fields);

describe('the official client against the sandbox', () => {
  it('[client.merchant] merchant post, tasks_ready, task_get advanced and html succeed and match the models type for type', async () => {
    const posted = await api.googleProductsTaskPost([request({ keyword: 'camping tent', location_code: 2840, language_code: 'en', depth: 80, max_crawl_pages: 2, search_param: '&tbs=p_ord:rv', tag: 'official' })]);
    expect(posted?.tasks?.[0].status_code).toBe(20100);
    expect(mismatches(posted, 'MerchantGoogleProductsTaskPostResponseInfo', 'post', [])).toEqual([]);
    const id = posted!.tasks![0].id!;
    clock.advance(2000);
    const ready = await api.googleProductsTasksReady();
    expect(ready?.tasks?.[0].result?.map((r: { id?: string }) => r.id)).toEqual([id]);
    expect(ready!.tasks![0].result![0]).toMatchObject({ endpoint_advanced: `/v3/merchant/google/products/task_get/advanced/${id}`, endpoint_html: `/v3/merchant/google/products/task_get/html/${id}` });
    expect(mismatches(ready, 'MerchantGoogleProductsTasksReadyResponseInfo', 'ready', [])).toEqual([]);
    const seen = new Set<string>();
    for (let k = 0; k < 12 && seen.size < 5; k++) {
      const taskId = k === 0 ? id : (await api.googleProductsTaskPost([request({ keyword: `product ${k}`, location_code: 2840, language_code: 'en' })]))!.tasks![0].id!;
      clock.advance(2000);
      const adv = await api.googleProductsTaskGetAdvanced(taskId);
      expect(adv?.tasks?.[0].status_code).toBe(20000);
      expect(mismatches(adv, 'MerchantGoogleProductsTaskGetAdvancedResponseInfo', `advanced ${k}`, [])).toEqual([]);
      for (const item of adv!.tasks![0].result![0].items ?? []) seen.add(item.constructor.name);
    }
    // The client typed every item kind, the product carousel included (none fell back to the base class).
    expect([...seen].sort()).toEqual(['GoogleShoppingCarouselElementItem', 'GoogleShoppingPaidElementItem', 'GoogleShoppingSerpElementItem', 'GoogleShoppingSponsoredCarouselElementItem', 'RelatedSearchesElementItem']);
    const html = await api.googleProductsTaskGetHtml(id);
    expect(html?.tasks?.[0].status_code).toBe(20000);
    expect(html!.tasks![0].result![0].items!.map((p: { page?: number }) => p.page)).toEqual([1, 2]);
    // The check itself catches what the client silently accepted before: a count or a rating value sent as text.
    expect(mismatches(Object.assign(new dfs.StoresCountInfo(), { count: '5' }), 'StoresCountInfo', 's', [])).toEqual(['s.count: expected number, got string "5"']);
    expect(mismatches({ value: '4.5', shoe_size: 9 }, 'RatingElement', 'r', [])).toEqual(['r.value: expected number, got string "4.5"', 'r.shoe_size: not in RatingElement']);
    expect(mismatches(html, 'MerchantGoogleProductsTaskGetHtmlResponseInfo', 'html', [])).toEqual([]);
  });

  it('[client.refusals] a task without a language and a depth of 121 are refused, and nothing is billed for them', async () => {
    sandbox.controls.reset();
    const r = await api.googleProductsTaskPost([request({ keyword: 'tent', location_code: 2840 }), request({ keyword: 'tent', location_code: 2840, language_code: 'en', depth: 121 })]);
    expect(r!.tasks!.map((t: { status_code?: number }) => t.status_code)).toEqual([40501, 40501]);
    expect(r!.tasks![0].status_message).toContain('language_code');
    expect(r!.tasks![1].status_message).toContain("'depth' must be at most 120");
    expect(sandbox.controls.postings()).toEqual([]);
    expect(sandbox.controls.billed()).toBe(0);
  });

  it('[client.user_data] the client reads user_data and webhook_resend answers in its own models', async () => {
    const u = await appendix.userData();
    expect(u?.tasks?.[0].result?.[0].money?.balance).toBe(1000);
    expect(mismatches(u, 'AppendixUserDataResponseInfo', 'user_data', [])).toEqual([]);
    const w = await appendix.webhookResend([Object.assign(new dfs.AppendixWebhookResendRequestInfo(), { id: '00000000-0000-0000-0000-000000000001' })]);
    expect(w?.tasks?.[0].status_code).toBe(40401);
    expect(mismatches(w, 'AppendixWebhookResendResponseInfo', 'resend', [])).toEqual([]);
  });
});
