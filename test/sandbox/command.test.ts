/** `seo-etl sandbox`: the compiled CLI starts the sandbox, prints URL and credentials, answers E5, stops on SIGTERM. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { call } from './helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

it('starts, prints the URL and credentials, answers E5 with Basic auth and exits 0 on SIGTERM', async () => {
  const child = spawn(process.execPath, ['bin/seo-etl.js', 'sandbox', '--port', '0'], { cwd: ROOT, env: { ...process.env, SEO_ETL_SANDBOX_LOGIN: 'cli-user', SEO_ETL_SANDBOX_PASSWORD: 'cli-pass' } });
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (out += String(d)));
  try {
    while (!/credentials: .*\n/.test(out)) {
      if (child.exitCode !== null) throw new Error(`sandbox exited early: ${out}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1];
    expect(out).toContain('credentials: cli-user:cli-pass');
    const r = await call(url, 'GET', '/v3/serp/endpoints', { auth: `Basic ${Buffer.from('cli-user:cli-pass').toString('base64')}` });
    expect(r.status).toBe(200);
    expect(r.json.tasks[0].result[0]).toContain('v3/serp/google/events/task_post');
    const refused = await call(url, 'GET', '/v3/serp/endpoints', { auth: null });
    expect(refused.status).toBe(401);
  } finally {
    child.kill('SIGTERM');
  }
  const [code] = await once(child, 'exit');
  expect(code).toBe(0);
});
