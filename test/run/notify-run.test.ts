/** The end-of-run notice of a real run: a budget stop reaches a local Slack-compatible receiver with its outcome. */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runJob } from '../../src/run/job.js';
import { EXIT } from '../../src/exit.js';
import { ROOT, collectStream, startProject, type TestProject } from '../helpers/project.js';

let p: TestProject;
let server: Server;
let hook = '';
const notices: { text: string }[] = [];
const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-notify-'));
beforeAll(async () => {
  p = await startProject({ sandbox: { reparse_share: 0 } });
  server = createServer(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    notices.push(JSON.parse(body));
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/secret`;
});
afterAll(async () => {
  await p?.close();
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

test('a run stopped at its budget tells the webhook: outcome, exit code, service, counts and cost against budget', async () => {
  const file = path.join(dir, 'p.yaml');
  const targets = Array.from({ length: 6 }, (_, i) => `site${i}.example.com`);
  // Two tasks fit a budget of 0.16 at 0.075 each; a batch of three would pass it.
  writeFileSync(file, `name: notify\nbudget_usd: 0.16\nsteps:\n  - name: sites\n    endpoint: keywords_for_site.task_post\n    params: { location_code: 2840 }\n    for_each:\n      target: [${targets.join(', ')}]\n`);
  const overrides = { ...p.overrides, notify: { webhook_url: hook }, api: { ...(p.overrides.api as object), tasks_per_post: 2 } };
  const r = await runJob({ root: ROOT, pipelineFile: file, runDate: '2026-01-05', env: p.env, configOverrides: overrides, progress: false, out: collectStream(), logDestination: collectStream() });
  expect(r.exitCode).toBe(EXIT.budget);
  expect(notices).toHaveLength(1);
  const [head, figures] = notices[0].text.split('\n');
  expect(head).toBe(`seo-etl notify: stopped at budget (exit 4, attention) - run notify-2026-01-05 against the sandbox at ${new URL(p.sandbox.url).origin}`);
  expect(figures).toMatch(/^tasks 6: 2 loaded, 0 failed, 4 not posted; cost \$0\.1500 of \$0\.1600 \(sandbox money: nothing was charged\); /);
});
