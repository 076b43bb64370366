/** docs/api-live.md `## Limits and account`: a call the service did not do after a storm, and what a task echoes. */
import { describe, expect, it } from 'vitest';
import { ApiClient, nothingDone } from '../../src/api/client.js';
import { postbackMismatch } from '../../src/collect/vouch.js';
import { ENGINES, useSandbox } from '../sandbox/helpers.js';

const box = useSandbox({ completion_delay_ms: 0, rate_limit_calls: 100000 }, { reset: true });

function apiClient(): ApiClient {
  // A short window: a rate-limit answer pauses the endpoint a tenth of it.
  const config = { ...box.config, api: { ...box.config.api, retries: 1, retry_base_ms: 1 }, rate_limit: { ...box.config.rate_limit, window_ms: 200 } };
  return ApiClient.fromConfig(config, { baseUrl: box.sandbox.url });
}

describe('after the retries, and in the echo', () => {
  it('[limits.storm] a list call answered 40202 through its retries keeps 40202, counts as nothing done, bills nothing; asked again it answers', async () => {
    box.sandbox.controls.setFaults([{ path: '/v3/serp/endpoints', rateLimitBurst: 2 }]);
    const c = apiClient();
    const first = await c.list('serp.endpoints');
    expect(first.ok).toBe(false);
    if (first.ok) return;
    expect(first.error.code).toBe(40202);
    expect(nothingDone(first.error)).toBe(true);
    expect(box.sandbox.controls.billed()).toBe(0);
    const again = await c.list('serp.endpoints');
    expect(again.ok).toBe(true);
  });

  it("[callbacks.echo] a task's data echoes api, function, se, se_type and every parameter posted; task_get's answer (a postback's body) passes vouch", async () => {
    const c = apiClient();
    const params = { keyword: 'camping tent', location_code: 2840, language_code: 'en', tag: 'seo-etl/p/products/k1', priority: 2 };
    const [posted] = await c.postTasks('merchant.google.products.task_post', [params]);
    if (!posted.ok) throw new Error(posted.error.message);
    expect(posted.task.data).toMatchObject({ api: 'merchant', function: 'products', se: ENGINES.merchant, se_type: 'shopping', ...params });
    box.clock.advance(60_000);
    const got = await c.taskGet('merchant.google.products.task_get.advanced', posted.task.id);
    if (!got.ok) throw new Error(got.error.message);
    const ledger = { endpointId: 'merchant.google.products.task_post', tag: params.tag, params };
    expect(postbackMismatch(ledger, got.task, ENGINES)).toBeUndefined();
    expect(postbackMismatch(ledger, { ...got.task, data: { ...(got.task.data as object), priority: undefined } }, ENGINES)).toMatch(/priority/);
  });
});
