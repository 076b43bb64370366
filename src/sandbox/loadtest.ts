/**
 * A small keep-alive load generator (autocannon-style, node:http only) for the sandbox's own throughput figure.
 * `node dist/sandbox/loadtest.js [--connections 32] [--seconds 5] [--url http://127.0.0.1:8090]` measures
 * requests per second on E5 and on keywords task_get (after posting 1000 tasks), against the sandbox at --url
 * or, without it, an in-process one (client and server then share a core). `measureThroughput` is exported
 * for the benchmarks.
 */
import http from 'node:http';
import { pathToFileURL } from 'node:url';

export interface LoadOptions {
  url: string;
  path: string;
  method?: 'GET' | 'POST';
  body?: string;
  /** Paths to cycle through instead of `path` (e.g. task_get of many ids). */
  paths?: string[];
  authorization: string;
  connections: number;
  durationMs: number;
}

export interface LoadResult {
  requests: number;
  errors: number;
  non2xx: number;
  seconds: number;
  rps: number;
  p50ms: number;
  p99ms: number;
}

export async function measureThroughput(o: LoadOptions): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.connections });
  const target = new URL(o.url);
  const latencies: number[] = [];
  let requests = 0;
  let errors = 0;
  let non2xx = 0;
  let next = 0;
  const deadline = performance.now() + o.durationMs;
  const one = () =>
    new Promise<void>((resolve) => {
      const path = o.paths ? o.paths[next++ % o.paths.length] : o.path;
      const t0 = performance.now();
      const req = http.request({ host: target.hostname, port: target.port, path, method: o.method ?? 'GET', agent, headers: { authorization: o.authorization, ...(o.body ? { 'content-type': 'application/json' } : {}) } }, (res) => {
        res.on('data', () => {});
        res.on('end', () => {
          requests++;
          if ((res.statusCode ?? 0) >= 300) non2xx++;
          latencies.push(performance.now() - t0);
          resolve();
        });
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(o.body);
    });
  const started = performance.now();
  await Promise.all(Array.from({ length: o.connections }, async () => {
    while (performance.now() < deadline) await one();
  }));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const q = (p: number) => Math.round((latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0) * 100) / 100;
  return { requests, errors, non2xx, seconds: Math.round(seconds * 100) / 100, rps: Math.round(requests / seconds), p50ms: q(0.5), p99ms: q(0.99) };
}

async function main(): Promise<void> {
  const arg = (name: string, dflt: number) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : dflt;
  };
  const connections = arg('connections', 32);
  const durationMs = arg('seconds', 5) * 1000;
  const { loadConfig } = await import('../config/index.js');
  const { startSandbox } = await import('./index.js');
  const { resolvePath, endpoint } = await import('../api/catalog.js');
  const config = loadConfig({ overrides: { sandbox: { rate_limit_calls: 100_000_000, completion_delay_ms: 0 } } });
  const urlIdx = process.argv.indexOf('--url');
  const sandbox = urlIdx > 0 ? { url: process.argv[urlIdx + 1].replace(/\/+$/, ''), close: async () => {} } : await startSandbox({ config, port: 0 });
  const authorization = `Basic ${Buffer.from(`${config.sandbox.login}:${config.sandbox.password}`).toString('base64')}`;
  const post = async (path: string, body: unknown) => {
    const r = await fetch(sandbox.url + path, { method: 'POST', headers: { authorization }, body: JSON.stringify(body) });
    return (await r.json()) as { tasks: { id: string }[] };
  };
  const ids: string[] = [];
  for (let b = 0; b < 10; b++) {
    const r = await post(resolvePath(endpoint('keywords_for_site.task_post'), config.paths), Array.from({ length: 100 }, (_, i) => ({ target: `site-${b}-${i}.example.com`, location_code: 2840 })));
    ids.push(...r.tasks.map((t) => t.id));
  }
  // Let the tasks complete (an external sandbox runs with its own configured delay).
  await new Promise((r) => setTimeout(r, 1000));
  const getPaths = ids.map((id) => resolvePath(endpoint('keywords_for_site.task_get'), config.paths, { id }));
  const e5 = await measureThroughput({ url: sandbox.url, path: '/v3/serp/endpoints', authorization, connections, durationMs });
  const get = await measureThroughput({ url: sandbox.url, path: getPaths[0], paths: getPaths, authorization, connections, durationMs });
  const results = { sandbox: urlIdx > 0 ? sandbox.url : 'in-process', connections, seconds: durationMs / 1000, keywordsPerTask: config.sandbox.keywords_per_site_task, e5, keywords_task_get: get };
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  await sandbox.close();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((e) => {
    process.stderr.write(`${e?.stack ?? e}\n`);
    process.exitCode = 1;
  });
}
