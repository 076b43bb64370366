/**
 * The rules declared from the models are enforced before any money is spent: a pipeline asking Labs for more
 * than its `limit` of 1000 rows, or leaving out a required field, exits 2 naming file:line, the field and the
 * rule, and the sandbox is never called; a field sent as null counts as absent.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { endpoint } from '../../src/api/catalog.js';
import { validateTask } from '../../src/api/validate.js';
import { runCli } from '../reliability/helpers.js';

const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-rules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('declared rules of a generated family', () => {
  test('a pipeline breaking them exits 2 with file:line, field and rule, before posting anything', async () => {
    const file = path.join(dir, 'labs.yaml');
    writeFileSync(file, [
      'name: labs-too-much',
      'budget_usd: 5',
      'steps:',
      '  - name: ranked',
      '    endpoint: dataforseo_labs.google.ranked_keywords.live',
      '    params: { target: example.com, location_code: 2840, language_code: en, limit: 5000 }',
      '  - name: competitors',
      '    endpoint: dataforseo_labs.google.competitors_domain.live',
      '    params: { location_code: 2840, language_code: en }',
      '',
    ].join('\n'));
    const r = await runCli(['run', file, '--sandbox'], { env: { ...process.env, SEO_ETL_WAREHOUSE_DIR: path.join(dir, 'data') }, timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/labs\.yaml:6/);
    expect(r.stderr).toMatch(/limit.*must be at most 1000/);
    expect(r.stderr).toMatch(/labs\.yaml:(8|9)/);
    expect(r.stderr).toMatch(/target.*is required/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).not.toMatch(/embedded sandbox started/);
  });

  test('null counts as absent; the rules come from the models (required, limits, unknown fields)', () => {
    const def = endpoint('dataforseo_labs.google.ranked_keywords.live');
    expect(validateTask(def, { target: 'example.com', location_code: 2840, language_code: 'en', limit: null, filters: null, unknown_thing: null })).toEqual([]);
    expect(validateTask(def, { target: null }).map((i) => `${i.field} ${i.rule}`)).toContain('target is required');
    expect(validateTask(def, { target: 'example.com', limit: 1001 }).map((i) => `${i.field} ${i.rule}`)).toContain('limit must be at most 1000');
    expect(validateTask(def, { target: 'example.com', limitt: 5 }).map((i) => i.code)).toContain(40506);
  });
});
