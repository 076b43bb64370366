/**
 * The rules declared from the models are enforced before any money is spent: a pipeline asking Labs for more
 * than its `limit` of 1000 rows, or leaving out a required field, exits 2 naming file:line, the field and the
 * rule, and the sandbox is never called; a field sent as null counts as absent.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import * as dfs from 'dataforseo-client';
import { ENDPOINTS, endpoint } from '../../src/api/catalog.js';
import { type FieldRule } from '../../src/catalog/endpoint.js';
import { validateTask } from '../../src/api/validate.js';
import { model } from '../helpers/client-models.js';
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

  test('every field a request model declares has a rule taking its declared type', () => {
    // The rule types that take a value of each declared type (a hand rule may narrow it: integer, enum, format).
    const takes = (declared: string, rule: FieldRule) => {
      if (declared === 'number') return rule.type === 'number' || rule.type === 'integer';
      if (declared === 'string') return rule.type === 'string' || (rule.type === 'integer' && rule.digits === true);
      if (declared === 'boolean') return rule.type === 'boolean';
      if (declared === 'string[]') return ['string_array', 'filters', 'order_by'].includes(rule.type);
      return ['any', 'object_array', 'filters', 'order_by', 'string_array'].includes(rule.type);
    };
    const problems: string[] = [];
    let checked = 0;
    for (const def of ENDPOINTS) {
      if (!def.model?.request) continue;
      // The client's own serializer names every field it sends (null when unset), independently of any parser.
      const Request = (dfs as unknown as Record<string, new () => { toJSON(): Record<string, unknown> }>)[def.model.request];
      const declared = model(def.model.request).fields;
      for (const name of Object.keys(new Request().toJSON())) {
        checked++;
        const rule = def.fields?.[name];
        if (!rule) problems.push(`${def.id}: ${name} has no rule (answered 40506)`);
        else if (!takes(declared.get(name) ?? 'any', rule)) problems.push(`${def.id}: ${name} is ${declared.get(name)} in ${def.model.request}, its rule takes ${rule.type}`);
      }
    }
    expect(checked).toBeGreaterThan(2500);
    expect(problems).toEqual([]);
  });

  test('On-Page takes check_spell and tag, Google Trends a numeric location_code, limits still hold', () => {
    const issues = (id: string, task: Record<string, unknown>) => validateTask(endpoint(id), task).map((i) => `${i.code} ${i.field} ${i.rule}`);
    expect(issues('on_page.task_post', { target: 'example.com', max_crawl_pages: 10, check_spell: true, check_spell_exceptions: ['SERP'], tag: 'crawl-1', pingback_url: 'https://example.com/p?id=$id' })).toEqual([]);
    expect(issues('on_page.instant_pages', { url: 'https://example.com/', check_spell: true, switch_pool: false })).toEqual([]);
    expect(issues('on_page.task_post', { target: 'example.com', max_crawl_pages: 10, tag: 'x'.repeat(256) })).toEqual(['40501 tag must be at most 255 characters']);
    expect(issues('on_page.task_post', { target: 'example.com', max_crawl_pages: 10, check_spell: 'yes' })).toEqual(['40501 check_spell must be true or false']);
    // The note's limits on the spell check's exceptions: words of at most 100 characters, at most 1000 words.
    expect(issues('on_page.task_post', { target: 'example.com', max_crawl_pages: 10, check_spell_exceptions: ['x'.repeat(101)] })).toEqual(['40501 check_spell_exceptions[0] must be at most 100 characters']);
    expect(issues('on_page.task_post', { target: 'example.com', max_crawl_pages: 10, check_spell_exceptions: Array.from({ length: 1001 }, (_, i) => `w${i}`) })).toEqual(['40501 check_spell_exceptions must hold at most 1000 items']);
    for (const id of ['keywords_data.google_trends.explore.task_post', 'keywords_data.google_trends.explore.live']) {
      expect(issues(id, { keywords: ['rugby'], location_code: 2840 })).toEqual([]);
      expect(issues(id, { keywords: ['rugby'], location_code: '2840' })).toEqual([]);
      expect(issues(id, { keywords: ['rugby'], location_code: 'United States' })).toEqual(['40501 location_code must be an integer (or a string of its digits)']);
      expect(issues(id, { keywords: ['rugby'], location_code: 28.4 })).toEqual(['40501 location_code must be an integer']);
    }
  });
});

