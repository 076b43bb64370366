/**
 * Issue 19 point 3: a POST whose connection is refused never reached the service, so nothing can have been created:
 * its tasks go back to `planned` with the reason (a later pass or `resume` posts them), not to the ambiguous lookup
 * that polled tasks_ready until the drain timeout, and not to `failed`.
 */
import { describe, expect, test } from 'vitest';
import { createServer } from 'node:net';
import { DuckDBInstance } from '@duckdb/node-api';
import { ApiClient } from '../../src/api/client.js';
import { createLogger } from '../../src/log/logger.js';
import { loadConfig } from '../../src/config/index.js';
import { Ledger } from '../../src/ledger/index.js';
import { Budget, loadPipeline, planPipeline } from '../../src/pipeline/index.js';
import { postStep } from '../../src/post/index.js';
import { newStops } from '../../src/post/stop.js';
import { noPause } from '../../src/pause.js';
import { RateLimiter } from '../../src/queue/index.js';
import { ROOT, pipelineFile } from '../helpers/project.js';

const closedPort = () => new Promise<number>((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => { const a = s.address() as { port: number }; s.close(() => resolve(a.port)); });
});

describe('posting into a refused connection', () => {
  test('the batch goes back to planned with the reason: nothing ambiguous, nothing failed, nothing left posting', async () => {
    const config = loadConfig({ root: ROOT, overrides: { api: { base_url: 'http://127.0.0.1:9', retries: 1, retry_base_ms: 5 } } });
    const pipeline = loadPipeline(pipelineFile('name: sites\nbudget_usd: 10\nsteps:\n  - name: sites\n    endpoint: keywords_for_site.task_post\n    params: { location_code: 2840 }\n    for_each:\n      target: [a.example.com, b.example.com, c.example.com]\n'), config);
    const runId = 'sites-2026-03-01';
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    const ledger = await Ledger.open(conn);
    await ledger.openRun({ runId, pipeline: pipeline.name, runDate: '2026-03-01' });
    const plan = await planPipeline(pipeline, { runId });
    await ledger.planTasks(plan.steps[0].tasks);
    const client = new ApiClient({
      baseUrl: `http://127.0.0.1:${await closedPort()}`, credentials: { login: 'l', password: 'p' }, engines: config.paths,
      limiter: RateLimiter.fromConfig(config), timeoutMs: 2000, retries: 1, retryBaseMs: 5, tasksPerPost: 100,
    });
    const ambiguous: unknown[] = [];
    const tracked: unknown[] = [];
    const stops = newStops();
    await postStep(
      { config, pipeline, runId, ledger, client, logger: createLogger({ level: 'silent' }), progress: { add: () => undefined, counts: { planned: 0, posted: 0, ready: 0, collected: 0, loaded: 0, failed: 0, costUsd: 0 } }, budget: new Budget(pipeline.budgetUsd, () => ledger.spentUsd(runId)), pause: noPause, rest: async () => undefined, stops },
      pipeline.steps[0],
      { track: (t) => void tracked.push(...t), awaitTags: (t) => void ambiguous.push(...t), callbacksFor: () => undefined },
    );
    expect(ambiguous).toEqual([]);
    expect(tracked).toEqual([]);
    const rows = (await conn.runAndReadAll(`SELECT state, error_code, error_message FROM _tasks WHERE run_id = '${runId}'`)).getRowObjectsJS();
    expect(rows).toHaveLength(3);
    for (const r of rows) {
      expect(r.state).toBe('planned');
      expect(String(r.error_message)).toMatch(/not sent: .*ECONNREFUSED/);
    }
    expect(stops.account).toBeUndefined();
    conn.closeSync();
    db.closeSync();
  });
});
