/**
 * Commands work on the project they belong to, never on the working directory by accident: cron starts them in
 * $HOME, where a default of `.` built a second, empty warehouse and `status` said "no runs yet" with exit 0.
 */
import { afterAll, expect, test } from 'vitest';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findProject } from '../../src/config/project.js';
import { ROOT } from '../helpers/project.js';
import { runCli } from '../reliability/helpers.js';

const dirs: string[] = [];
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });
const tmp = (name: string) => { const d = mkdtempSync(path.join(tmpdir(), `seo-etl-${name}-`)); dirs.push(d); return d; };

/** A project as a user lays it out: the code (linked from this checkout), its config, pipelines and data. */
function projectCopy(): string {
  const p = tmp('proj');
  for (const shared of ['bin', 'dist', 'node_modules', 'package.json']) symlinkSync(path.join(ROOT, shared), path.join(p, shared));
  cpSync(path.join(ROOT, 'config', 'default.yaml'), path.join(p, 'config', 'default.yaml'));
  cpSync(path.join(ROOT, 'pipelines'), path.join(p, 'pipelines'), { recursive: true });
  cpSync(path.join(ROOT, 'data', 'inputs'), path.join(p, 'data', 'inputs'), { recursive: true });
  return p;
}

test('the project comes from --root, SEO_ETL_HOME, the pipeline file, then the working directory, and nowhere else', () => {
  const p = projectCopy();
  const elsewhere = tmp('home');
  const file = path.join(p, 'pipelines', 'nightly.yaml');
  expect(findProject({ cwd: elsewhere, file })).toBe(p);
  expect(findProject({ cwd: path.join(p, 'pipelines') })).toBe(p);
  expect(findProject({ cwd: elsewhere, home: p, file: path.join(ROOT, 'pipelines', 'nightly.yaml') })).toBe(p);
  expect(findProject({ cwd: elsewhere, root: ROOT, home: p })).toBe(ROOT);
  expect(() => findProject({ cwd: elsewhere })).toThrow(/no seo-etl project found at or above .*pass --root <dir>, or set SEO_ETL_HOME/);
  expect(() => findProject({ cwd: p, home: elsewhere })).toThrow(/SEO_ETL_HOME: .* is not a seo-etl project/);
});

test('outside any project, status exits 2 and names the way out instead of reporting "no runs yet"', async () => {
  const home = tmp('home');
  const r = await runCli(['status'], { env: { PATH: process.env.PATH, HOME: home }, timeoutMs: 30_000, cwd: home });
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(/no seo-etl project found at or above .*SEO_ETL_HOME/);
  expect(readdirSync(home)).toEqual([]);
});

test("the README's crontab line runs the nightly pipeline from $HOME with cron's bare environment", async () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const line = /<!-- crontab-line[^>]*-->\n```crontab\n(.+)\n```/.exec(readme)?.[1];
  expect(line, 'README has a crontab line').toBeTruthy();
  const command = line!.trim().split(/\s+/).slice(5).join(' ');
  const p = projectCopy();
  // The sandbox stands in for the live service here; everything else is the line as written.
  writeFileSync(path.join(p, '.env'), 'export SEO_ETL_API_BASE_URL=sandbox\n');
  const home = tmp('home');
  const out = await new Promise<{ code: number | null }>((resolve) => {
    execFile('/bin/sh', ['-c', command.replaceAll('/opt/seo-etl', p)], { cwd: home, env: { HOME: home, PATH: '/usr/bin:/bin', SHELL: '/bin/sh' }, timeout: 120_000 },
      (err) => resolve({ code: err ? (err as { code?: number }).code ?? 1 : 0 }));
  });
  const log = readFileSync(path.join(p, 'data', 'cron.log'), 'utf8');
  expect(out.code, log.slice(-2000)).toBe(0);
  // A sandbox's data has its own warehouse, apart from the live service's data/warehouse.duckdb.
  expect(existsSync(path.join(p, 'data', 'sandbox', 'warehouse.duckdb'))).toBe(true);
  expect(existsSync(path.join(p, 'data', 'warehouse.duckdb'))).toBe(false);
  expect(readdirSync(home)).toEqual([]);
  // --quiet: the cron mail is one line saying the outcome and the service, no JSON, no summary table.
  expect(log.trim().split('\n')).toEqual([expect.stringMatching(/^run nightly-\d{4}-\d{2}-\d{2} completed via the embedded sandbox, tasks \d+ \(loaded \d+\), \$[\d.]+ of \$1 \(sandbox money: nothing was charged\), exit 0, [\d.]+ s$/)]);
});
