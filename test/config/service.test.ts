/**
 * Sandbox data and live data never mix (issue 19, point 2): each has its own data folder by default, a folder holding
 * one kind refuses the other, a live set-up never falls back to the sandbox silently, and the summary, `status` and
 * `tables` say which service a run talked to, with sandbox costs labelled as such.
 */
import { afterAll, expect, test } from 'vitest';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/index.js';
import { bindDataFolder, dataDirFor, isSandboxAddress, refuseAccidentalSandbox, serviceOf } from '../../src/config/service.js';
import { ROOT, startProject } from '../helpers/project.js';
import { runCli } from '../reliability/helpers.js';

const dirs: string[] = [];
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });
const tmp = (name: string) => { const d = mkdtempSync(path.join(tmpdir(), `seo-etl-${name}-`)); dirs.push(d); return d; };

/** A project as a user has it: the code linked from this checkout, its own config, pipelines and data. */
function projectCopy(localYaml?: string): string {
  const p = tmp('svc');
  for (const shared of ['bin', 'dist', 'node_modules', 'package.json']) symlinkSync(path.join(ROOT, shared), path.join(p, shared));
  for (const f of ['default.yaml', 'prices.yaml']) cpSync(path.join(ROOT, 'config', f), path.join(p, 'config', f));
  cpSync(path.join(ROOT, 'pipelines'), path.join(p, 'pipelines'), { recursive: true });
  cpSync(path.join(ROOT, 'data', 'inputs'), path.join(p, 'data', 'inputs'), { recursive: true });
  if (localYaml) writeFileSync(path.join(p, 'config', 'local.yaml'), localYaml);
  return p;
}

/** A bare environment, as cron gives one: no SEO_ETL_* but what the test sets. */
const bare = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: process.env.HOME, ...extra });

test('which service a base URL is: the embedded sandbox, a sandbox on this machine or the service\'s own, or the live service', () => {
  expect(serviceOf('sandbox')).toEqual({ kind: 'sandbox', label: 'the embedded sandbox' });
  expect(serviceOf('http://127.0.0.1:8090')).toEqual({ kind: 'sandbox', label: 'the sandbox at http://127.0.0.1:8090' });
  expect(serviceOf('http://localhost:8090/')).toMatchObject({ kind: 'sandbox' });
  expect(serviceOf('https://sandbox.dataforseo.com')).toMatchObject({ kind: 'sandbox' });
  expect(serviceOf('https://api.dataforseo.com')).toEqual({ kind: 'live', label: 'api.dataforseo.com' });
  expect([undefined, 'nonsense', 'https://api.dataforseo.com', 'sandbox', 'http://127.0.0.1:8090'].map(isSandboxAddress)).toEqual([false, false, false, true, true]);
});

test('by default the live service\'s data goes to data/, a sandbox\'s to data/sandbox/; a set warehouse.dir is kept', () => {
  expect(dataDirFor('', 'https://api.dataforseo.com')).toBe('data');
  expect(dataDirFor('', 'sandbox')).toBe(path.join('data', 'sandbox'));
  expect(dataDirFor('', 'http://127.0.0.1:8090')).toBe(path.join('data', 'sandbox'));
  expect(dataDirFor('/srv/wh', 'sandbox')).toBe('/srv/wh');
  expect(loadConfig({ root: ROOT, env: { SEO_ETL_API_BASE_URL: 'https://api.dataforseo.com' } }).warehouse.dir).toBe('data');
  expect(loadConfig({ root: ROOT, env: {} }).warehouse.dir).toBe(path.join('data', 'sandbox'));
});

test('a sandbox run is refused where the configuration names the live service or live credentials are set, unless asked for', () => {
  const sandbox = serviceOf('sandbox');
  expect(() => refuseAccidentalSandbox({ service: sandbox, fileBaseUrl: 'https://api.dataforseo.com', env: { SEO_ETL_API_BASE_URL: 'sandbox' }, sandboxOnPurpose: false }))
    .toThrow(/the configuration names the live service \(api.base_url: https:\/\/api.dataforseo.com\), but SEO_ETL_API_BASE_URL=sandbox would run against the embedded sandbox: nothing was posted.*--sandbox/);
  expect(() => refuseAccidentalSandbox({ service: sandbox, fileBaseUrl: 'sandbox', env: { SEO_ETL_LOGIN: 'me', SEO_ETL_PASSWORD: 'pw' }, sandboxOnPurpose: false }))
    .toThrow(/SEO_ETL_LOGIN and SEO_ETL_PASSWORD are set for the live service, but api.base_url is 'sandbox' \(SEO_ETL_API_BASE_URL is not set\)/);
  expect(() => refuseAccidentalSandbox({ service: sandbox, fileBaseUrl: 'https://api.dataforseo.com', env: { SEO_ETL_LOGIN: 'me' }, sandboxOnPurpose: true })).not.toThrow();
  expect(() => refuseAccidentalSandbox({ service: sandbox, fileBaseUrl: 'sandbox', env: {}, sandboxOnPurpose: false })).not.toThrow();
  expect(() => refuseAccidentalSandbox({ service: serviceOf('https://api.dataforseo.com'), fileBaseUrl: 'sandbox', env: { SEO_ETL_LOGIN: 'me' }, sandboxOnPurpose: false })).not.toThrow();
});

test('a data folder that holds one kind of data refuses the other kind, including a folder the embedded sandbox wrote before this rule', () => {
  const d = tmp('bind');
  bindDataFolder(d, serviceOf('sandbox'));
  expect(() => bindDataFolder(d, serviceOf('https://api.dataforseo.com'))).toThrow(/holds sandbox data, and this run talks to api.dataforseo.com: sandbox and live data never share a warehouse/);
  expect(() => bindDataFolder(d, serviceOf('http://127.0.0.1:9000'))).not.toThrow();
  const old = tmp('old');
  mkdirSync(path.join(old, 'sandbox'));
  writeFileSync(path.join(old, 'sandbox', 'tasks.ndjson'), '');
  expect(() => bindDataFolder(old, serviceOf('https://api.dataforseo.com'))).toThrow(/holds sandbox data/);
  writeFileSync(path.join(d, 'service.json'), '{"kind": "sand');
  expect(() => bindDataFolder(d, serviceOf('sandbox'))).toThrow(/service.json: not the record of which service/);
});

test('cron without SEO_ETL_API_BASE_URL but with the live credentials: exit 2, nothing posted, no warehouse written', async () => {
  const p = projectCopy();
  const r = await runCli(['run', path.join(p, 'pipelines', 'nightly.yaml'), '--quiet'], { env: bare({ SEO_ETL_LOGIN: 'me', SEO_ETL_PASSWORD: 'secret' }), timeoutMs: 60_000, cwd: p });
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(/SEO_ETL_LOGIN and SEO_ETL_PASSWORD are set for the live service, but api.base_url is 'sandbox'/);
  expect(readdirSync(path.join(p, 'data'))).toEqual(['inputs']);
});

test('local.yaml names the live service and SEO_ETL_API_BASE_URL=sandbox: refused, and --sandbox runs it on purpose', async () => {
  const p = projectCopy('api:\n  base_url: https://api.dataforseo.com\n');
  const pipeline = path.join(p, 'pipelines', 'nightly.yaml');
  const refused = await runCli(['run', pipeline, '--quiet'], { env: bare({ SEO_ETL_API_BASE_URL: 'sandbox' }), timeoutMs: 60_000, cwd: p });
  expect(refused.code, refused.stderr).toBe(2);
  expect(refused.stderr).toContain('the configuration names the live service (api.base_url: https://api.dataforseo.com), but SEO_ETL_API_BASE_URL=sandbox would run against the embedded sandbox');
  expect(readdirSync(path.join(p, 'data'))).toEqual(['inputs']);

  // `make run`: the embedded sandbox on purpose, even with live credentials in the shell; its data in data/sandbox/.
  const ran = await runCli(['--sandbox', 'run', pipeline, '--no-progress'], { env: bare({ SEO_ETL_LOGIN: 'me', SEO_ETL_PASSWORD: 'secret' }), timeoutMs: 120_000, cwd: p });
  expect(ran.code, ran.stderr.slice(-2000)).toBe(0);
  expect(ran.stdout).toMatch(/^service: the embedded sandbox/m);
  expect(ran.stdout).toMatch(/^cost: \$\d+\.\d{4} of a \$1 budget \(sandbox money: nothing was charged\)$/m);
  expect(ran.stdout).toContain(`published: ${path.join(p, 'data', 'sandbox', 'warehouse.duckdb')}`);
  expect(existsSync(path.join(p, 'data', 'warehouse.duckdb'))).toBe(false);
  expect(existsSync(path.join(p, 'data', 'sandbox', 'parquet', 'keyword_data'))).toBe(true);
  expect(JSON.parse(readFileSync(path.join(p, 'data', 'sandbox', 'service.json'), 'utf8'))).toMatchObject({ kind: 'sandbox' });

  // status and tables say where the data came from; the live configuration's own status points at the sandbox's runs.
  const status = await runCli(['--sandbox', 'status'], { env: bare(), timeoutMs: 30_000, cwd: p });
  expect(status.code, status.stderr).toBe(0);
  expect(status.stdout).toMatch(/^nightly-\d{4}-\d{2}-\d{2}  completed  tasks \d+ \(loaded \d+\)  \$\d+\.\d{4} \(sandbox money: nothing was charged\)  started .*  via the embedded sandbox$/m);
  const statusJson = JSON.parse((await runCli(['--sandbox', 'status', '--json'], { env: bare(), timeoutMs: 30_000, cwd: p })).stdout);
  expect(statusJson.runs[0].service).toEqual({ kind: 'sandbox', label: 'the embedded sandbox' });
  const tables = await runCli(['--sandbox', 'tables'], { env: bare(), timeoutMs: 30_000, cwd: p });
  expect(tables.stdout).toMatch(/^data from: the embedded sandbox \(sandbox data: nothing was charged\)$/m);
  const tablesJson = JSON.parse((await runCli(['--sandbox', 'tables', '--json'], { env: bare(), timeoutMs: 30_000, cwd: p })).stdout);
  expect(tablesJson.service).toEqual({ kind: 'sandbox', label: 'the embedded sandbox' });
  const plan = await runCli(['--sandbox', 'plan', pipeline], { env: bare(), timeoutMs: 30_000, cwd: p });
  expect(plan.stdout).toContain(`Service: the embedded sandbox; data folder ${path.join(p, 'data', 'sandbox')}; costs (sandbox money: nothing was charged)`);
  const liveStatus = await runCli(['status'], { env: bare(), timeoutMs: 30_000, cwd: p });
  expect(liveStatus.stdout).toContain('no runs yet');
  expect(liveStatus.stdout).toContain(`sandbox runs are in ${path.join(p, 'data', 'sandbox')}: seo-etl --sandbox status`);
  const liveTables = await runCli(['tables'], { env: bare(), timeoutMs: 30_000, cwd: p });
  expect(liveTables.stdout).toContain('no published warehouse yet');
  expect(liveTables.stdout).toContain(`Sandbox data is in ${path.join(p, 'data', 'sandbox')}: seo-etl --sandbox tables`);
});

test('with a live local.yaml, --sandbox runs against the sandbox SEO_ETL_API_BASE_URL names (seo-etl sandbox), not the embedded one', async () => {
  const p = projectCopy('api:\n  base_url: https://api.dataforseo.com\n');
  const pipeline = path.join(p, 'pipelines', 'tiny.yaml');
  writeFileSync(pipeline, 'name: tiny\nbudget_usd: 1\nsteps:\n  - name: volumes\n    endpoint: keywords_data.google_ads.search_volume.task_post\n    params: { location_code: 2840, language_code: en, keywords: [shoes] }\n    collect: tasks_ready\n');
  const project = await startProject();
  try {
    const env = bare({ SEO_ETL_API_BASE_URL: project.sandbox.url, SEO_ETL_LOGIN: project.config.sandbox.login, SEO_ETL_PASSWORD: project.config.sandbox.password, SEO_ETL_COLLECT_POLL_MIN_MS: '20', SEO_ETL_COLLECT_POLL_MAX_MS: '200' });
    const refused = await runCli(['run', pipeline, '--quiet'], { env, timeoutMs: 60_000, cwd: p });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`would run against the sandbox at ${project.sandbox.url}`);
    const ran = await runCli(['--sandbox', 'run', pipeline, '--quiet'], { env, timeoutMs: 60_000, cwd: p });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain(`completed via the sandbox at ${project.sandbox.url}, tasks 1 (loaded 1)`);
    expect(project.sandbox.controls.postings().length).toBe(1);
    expect(existsSync(path.join(p, 'data', 'sandbox', 'warehouse.duckdb'))).toBe(true);
  } finally {
    await project.close();
  }
});
