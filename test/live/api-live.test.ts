/**
 * Walks docs/api-live.md: every fact tagged `[area.name]` in its Merchant, Events and Limits-and-account sections has
 * a test of that name in test/live/ that asserts it against the sandbox, and every such test is documented there.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/project.js';

const DOC = readFileSync(path.join(ROOT, 'docs', 'api-live.md'), 'utf8');
const SECTIONS = ['## Merchant', '## Events', '## Limits and account'];

/** The text of each of our sections, up to the next top-level heading. */
function section(title: string): string {
  const start = DOC.indexOf(`\n${title}\n`);
  if (start < 0) return '';
  const next = DOC.indexOf('\n## ', start + title.length + 2);
  return DOC.slice(start, next < 0 ? undefined : next);
}

const tagsIn = (text: string, re: RegExp) => new Set([...text.matchAll(re)].map((m) => m[1]));

describe('docs/api-live.md against the tests', () => {
  const documented = new Set(SECTIONS.flatMap((s) => [...tagsIn(section(s), /^- \[([a-z_]+\.[a-z_]+)\]/gm)]));
  const dir = path.join(ROOT, 'test', 'live');
  const tested = new Map<string, string>();
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.test.ts'))) {
    for (const tag of tagsIn(readFileSync(path.join(dir, f), 'utf8'), /\bit\(['"`]\[([a-z_]+\.[a-z_]+)\]/g)) tested.set(tag, f);
  }

  it('has the three sections, each with its sources and tagged facts', () => {
    for (const s of SECTIONS) {
      const text = section(s);
      expect(text, s).not.toBe('');
      expect(text, s).toMatch(/Sources?:/);
      expect(tagsIn(text, /^- \[([a-z_]+\.[a-z_]+)\]/gm).size, s).toBeGreaterThan(1);
    }
  });

  it('every documented fact has a test against the sandbox, and every test names a documented fact', () => {
    expect([...documented].filter((t) => !tested.has(t))).toEqual([]);
    expect([...tested.keys()].filter((t) => !documented.has(t))).toEqual([]);
    expect(documented.size).toBeGreaterThanOrEqual(20);
  });
});
