/**
 * docs/architecture.md's "Add a family", tried on a copy of the checkout as a clean clone has it: a family the
 * generator wrote a file for (here a fake one, `fake_family`, made of another family's operations under its own
 * path root) is added with one line of src/families/registry.ts and nothing else; `tables --available` lists its
 * endpoints and tables, `plan` plans a pipeline step on it, and a sandbox run loads its rows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { ROOT } from '../helpers/project.js';

const copy = mkdtempSync(path.join(os.tmpdir(), 'seo-etl-add-family-'));
const cli = (...args: string[]) => spawnSync(process.execPath, [path.join(copy, 'bin', 'seo-etl.js'), ...args], { cwd: copy, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });

beforeAll(() => {
  // The files a clean clone has (tracked, and new ones not ignored), without dist/: the CLI runs the sources.
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).split('\n')
    // A node_modules that is a symlink is no directory to .gitignore's `node_modules/`: it is linked below.
    .filter((f) => f && f !== 'node_modules');
  for (const f of files) {
    mkdirSync(path.dirname(path.join(copy, f)), { recursive: true });
    try { cpSync(path.join(ROOT, f), path.join(copy, f)); } catch { /* a file deleted in the working tree */ }
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));
  // What `make declarations` would write for a family of the client: here content_analysis's operations under /v3/fake_family/.
  const text = readFileSync(path.join(ROOT, 'src', 'families', 'generated', 'content_analysis.json'), 'utf8')
    .replaceAll('/v3/content_analysis/', '/v3/fake_family/').replaceAll('"content_analysis.', '"fake_family.').replace('"family": "content_analysis"', '"family": "fake_family"');
  writeFileSync(path.join(copy, 'src', 'families', 'generated', 'fake_family.json'), text);
  // The one line.
  appendFileSync(path.join(copy, 'src', 'families', 'registry.ts'),
    `export const fake_family = generatedFamily((await import('./generated/fake_family.json', { with: { type: 'json' } })).default, { prefix: 'fake', description: 'A family added in one line.' });\n`);
  writeFileSync(path.join(copy, 'pipelines', 'fake.yaml'), [
    'name: fake', 'budget_usd: 1', 'steps:', '  - name: citations', '    endpoint: fake_family.search.live', '    params: { keyword: running shoes, limit: 5 }', '',
  ].join('\n'));
});
afterAll(() => rmSync(copy, { recursive: true, force: true }));

describe('a family added with one registry line', () => {
  it('is listed with its endpoints and tables', () => {
    const r = cli('tables', '--available', '--json');
    expect(r.status, r.stderr).toBe(0);
    const text = r.stdout;
    expect(text).toContain('fake_family.search.live');
    expect(text).toContain('"fake_search"');
  });

  it('plans a step on it, and a sandbox run loads its rows', async () => {
    const plan = cli('plan', 'pipelines/fake.yaml');
    expect(plan.status, plan.stderr + plan.stdout).toBe(0);
    expect(plan.stdout).toContain('fake_family.search.live');
    const run = cli('run', 'pipelines/fake.yaml', '--sandbox');
    expect(run.status, run.stderr + run.stdout).toBe(0);
    const db = await DuckDBInstance.create(path.join(copy, 'data', 'sandbox', 'warehouse.duckdb'), { access_mode: 'READ_ONLY' });
    const conn = await db.connect();
    try {
      const rows = (await conn.runAndReadAll(`SELECT count(*)::INT AS n FROM fake_search__items`)).getRowObjectsJS();
      expect(rows[0].n).toBeGreaterThan(0);
    } finally {
      conn.closeSync();
      db.closeSync();
    }
  });
});
