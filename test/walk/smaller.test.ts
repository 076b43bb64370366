/**
 * Issue 32, point 10: the smaller things an analyst met on a fresh clone. Each is checked where a user meets it:
 * git, make's install command, the CLI, the README and the analysis page.
 */
import { expect, test } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../reliability/helpers.js';
import { ROOT, pipelineFile } from '../helpers/project.js';

const env = { ...process.env, SEO_ETL_API_BASE_URL: 'sandbox' };

test('.env, where the README puts credentials, is ignored by git', () => {
  const r = spawnSync('git', ['check-ignore', '-q', '.env'], { cwd: ROOT });
  expect(r.status).toBe(0);
  expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toContain('/opt/seo-etl/.env');
});

test("make's install leaves package-lock.json as it is, even when npm would add entries to it", () => {
  // The command `make run` installs with, as make prints it.
  const dry = execFileSync('make', ['-n', '-B', '-s', 'install'], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').find((l) => l.startsWith('npm install'))!;
  expect(dry).toBeTruthy();
  const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-lock-'));
  try {
    copyFileSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
    // A lock npm wants to change (as another platform's npm wants to add its optional binaries): a root entry out of date.
    const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
    lock.packages[''].description = 'stale';
    lock.packages[''].keywords = ['stale'];
    const text = `${JSON.stringify(lock, null, 2)}\n`;
    writeFileSync(path.join(dir, 'package-lock.json'), text);
    const args = [...dry.split(/\s+/).slice(1), '--package-lock-only', '--offline', '--ignore-scripts'];
    const r = spawnSync('npm', args, { cwd: dir, encoding: 'utf8', timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(path.join(dir, 'package-lock.json'), 'utf8')).toBe(text);
    // Without --no-save the same npm rewrites it: the check above can fail.
    const plain = spawnSync('npm', args.filter((a) => a !== '--no-save'), { cwd: dir, encoding: 'utf8', timeout: 120_000 });
    expect(plain.status, plain.stderr).toBe(0);
    expect(readFileSync(path.join(dir, 'package-lock.json'), 'utf8')).not.toBe(text);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--version prints the version', async () => {
  const r = await runCli(['--version'], { env, timeoutMs: 30_000 });
  expect(r.code).toBe(0);
  expect(r.stdout.trim()).toBe(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
});

test('an unknown endpoint is answered with the did-you-mean, not every id on one line', async () => {
  const file = pipelineFile('name: typo\nbudget_usd: 1\nsteps:\n  - name: s\n    endpoint: serp.event.task_post\n    params: { keyword: k, location_code: 2840 }\n');
  const r = await runCli(['plan', file], { env, timeoutMs: 30_000 });
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/unknown endpoint "serp\.event\.task_post" \(did you mean serp\.events\.task_post\?\)/);
  expect(r.stderr.length, r.stderr).toBeLessThan(300);
});

test('run --help lists --sandbox and the exit codes', async () => {
  const r = await runCli(['run', '--help'], { env, timeoutMs: 30_000 });
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/--sandbox/);
  expect(r.stdout).toMatch(/Exit codes:/);
  for (const code of [0, 1, 2, 3, 4, 5, 6, 7, 130]) expect(r.stdout).toMatch(new RegExp(`^\\s+${code}  \\S`, 'm'));
});

test("the README's first lines say the tool is for DataForSEO API users, in the words they search for", () => {
  const head = readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').slice(0, 5).join(' ');
  expect(head).toMatch(/DataForSEO API/);
  expect(head).toMatch(/SERP/);
  expect(head).toMatch(/keyword/i);
  expect(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).keywords).toContain('dataforseo');
});

test("the notebook section says Python's duckdb needs pytz for timestamps", () => {
  const analysis = readFileSync(path.join(ROOT, 'docs', 'analysis.md'), 'utf8');
  expect(analysis).toMatch(/pip install duckdb pytz/);
});
