/**
 * What the embedded sandbox serves, so a reader can see it is not what limits the other figures: keep-alive
 * requests per second on keywords_for_site task_get (the call a polling run makes once per task; 20 keyword
 * items, about 13 KB an answer) and on E5 (a small fixed answer), load generated from a child process.
 */
import path from 'node:path';
import { loadConfig } from '../config/index.js';
import { basicAuthHeader, startSandbox } from '../sandbox/index.js';
import { endpoint, resolvePath } from '../api/catalog.js';
import { runChild } from './child.js';
import type { RpsChildResult, RpsChildSpec } from './rps-child.js';
import type { Figures } from './figures.js';

const TASKS = 1000;
const CONNECTIONS = 32;

export async function benchSandboxRps(o: { root: string; quick: boolean; dir: string }): Promise<Figures> {
  const config = loadConfig({ root: o.root, env: {}, overrides: { sandbox: { rate_limit_calls: 1_000_000_000, completion_delay_ms: 0 } } });
  const sandbox = await startSandbox({ config, port: 0 });
  try {
    const authorization = basicAuthHeader(config.sandbox.login, config.sandbox.password);
    const postPath = resolvePath(endpoint('keywords_for_site.task_post'), config.paths);
    const ids: string[] = [];
    for (let b = 0; b < TASKS / 100; b++) {
      const body = Array.from({ length: 100 }, (_, i) => ({ target: `rps-${b}-${i}.example.com`, location_code: 2840, language_code: 'en' }));
      const r = await fetch(sandbox.url + postPath, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const env = (await r.json()) as { tasks?: { id: string; status_code: number; status_message: string }[] };
      const bad = env.tasks?.find((t) => t.status_code !== 20100);
      if (bad || !env.tasks?.length) throw new Error(`sandbox rps: posting the tasks failed (${bad ? `${bad.status_code} ${bad.status_message}` : 'no tasks in the answer'})`);
      ids.push(...env.tasks.map((t) => t.id));
    }
    const getDef = endpoint('keywords_for_site.task_get');
    const durationMs = o.quick ? 1000 : 3000;
    const spec: RpsChildSpec = {
      url: sandbox.url,
      authorization,
      e5Path: resolvePath(endpoint('serp.endpoints'), config.paths),
      taskGetPaths: ids.map((id) => resolvePath(getDef, config.paths, { id })),
      connections: CONNECTIONS,
      durationMs,
      resultFile: path.join(o.dir, 'rps-result.json'),
    };
    const r = await runChild<RpsChildResult>('rps-child', { ...spec }, { timeoutMs: 120_000 });
    const errors = r.taskGet.errors + r.taskGet.non2xx;
    return {
      sandbox_requests_per_s: {
        value: r.taskGet.rps,
        unit: 'requests/s',
        goal: '>= 33 (the live limit, 2000/min)',
        how: `keywords_for_site task_get cycling over ${TASKS} completed tasks (${config.sandbox.keywords_per_site_task} keyword items each), ${CONNECTIONS} keep-alive connections from a child process for ${durationMs / 1000} s: p50 ${r.taskGet.p50ms} ms, p99 ${r.taskGet.p99ms} ms, ${errors} errors; E5 (small fixed answer) ${r.e5.rps} requests/s`,
      },
    };
  } finally {
    await sandbox.close();
  }
}
