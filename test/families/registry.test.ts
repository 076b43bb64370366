/**
 * The registry of families: every endpoint, table and view comes from one family's folder; the result kinds the
 * endpoints name have their tables; the sandbox answers every endpoint from the families' declarations; and the
 * declarations never import the sandbox (no import cycle between the catalog and the sandbox).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAMILIES } from '../../src/families/index.js';
import { ENDPOINTS } from '../../src/api/catalog.js';
import { TABLES, rootTableFor } from '../../src/normalize/catalog.js';
import { VIEWS } from '../../src/publish/views.js';
import { loadFamilySandboxes } from '../../src/sandbox/families/index.js';
import { handlerFor } from '../../src/sandbox/routes.js';

const SRC = new URL('../../src', import.meta.url).pathname;
const REGISTRY = path.join(SRC, 'families', 'registry.ts');

/** Kinds whose `result` has no table of a family: task creation answers and the core lists. */
const CORE_KINDS = new Set(['task_created', 'ready_list']);

describe('the registry', () => {
  it('lists each family in one line, every folder registered, a generated-only family by its file', () => {
    const lines = readFileSync(REGISTRY, 'utf8').split('\n').filter((l) => l.startsWith('export '));
    // generated/ holds the declarations the generator writes for every family, registered or not.
    const folders = readdirSync(path.dirname(REGISTRY)).filter((d) => d !== 'generated' && statSync(path.join(path.dirname(REGISTRY), d)).isDirectory()).sort();
    // A family of its own declarations is its folder; one declared wholly from its generated file is that file.
    const folder = (l: string) => /'\.\/([^/]+)\/index\.js'/.exec(l)?.[1];
    const generated = (l: string) => /^export const (\w+) = generatedFamily\(.*'\.\/generated\/\1\.json'/.exec(l)?.[1];
    expect(lines.filter((l) => !folder(l) && !generated(l))).toEqual([]);
    expect(lines.map(folder).filter(Boolean).sort()).toEqual(folders);
    expect(FAMILIES.map((f) => f.name).sort()).toEqual(lines.map((l) => folder(l) ?? generated(l)).sort());
  });

  it('gives every endpoint to exactly one family, whose name is its path root', () => {
    const owners = new Map<string, string[]>();
    for (const f of FAMILIES) for (const e of f.endpoints) owners.set(e.id, [...(owners.get(e.id) ?? []), f.name]);
    expect(ENDPOINTS.length).toBe(owners.size);
    expect([...owners].filter(([, o]) => o.length !== 1)).toEqual([]);
    for (const f of FAMILIES) for (const e of f.endpoints) expect(e.path.split('/')[2], e.id).toBe(f.name);
  });

  it('has a root table for every result kind an endpoint names, and the catalog holds exactly the families\' tables and views', () => {
    const missing = [...new Set(ENDPOINTS.map((e) => e.result))].filter((k) => !CORE_KINDS.has(k) && !rootTableFor(k));
    expect(missing).toEqual([]);
    const familyTables = FAMILIES.flatMap((f) => (f.tables ?? []).map((t) => t.name));
    for (const t of familyTables) expect(TABLES.some((x) => x.name === t), t).toBe(true);
    const familyViews = FAMILIES.flatMap((f) => (f.views ?? []).map((v) => v.name));
    for (const v of familyViews) expect(VIEWS.some((x) => x.name === v), v).toBe(true);
  });

  it('lets the sandbox answer every endpoint from the loaded declarations', async () => {
    const loaded = await loadFamilySandboxes();
    for (const e of ENDPOINTS) expect(typeof handlerFor(e, loaded), e.id).toBe('function');
    // Every task result kind has its generator: a task_get never reaches "no result generator".
    const taskKinds = new Set(ENDPOINTS.filter((e) => e.kind === 'task_get').map((e) => e.result));
    const withoutGenerator = [...taskKinds].filter((k) => !loaded.results.has(k) && !loaded.fallbacks.some((f) => ENDPOINTS.some((e) => e.result === k && f(e)?.result)));
    expect(withoutGenerator).toEqual([]);
  });
});

/** Static value imports (not `import type`, not dynamic import()) of a module, resolved to files. */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^(?:import|export)\s+(?!type\b)[^'";]*?from\s+'(\.[^']+)'/gm)) {
    out.push(path.resolve(path.dirname(file), m[1].replace(/\.js$/, '.ts')));
  }
  return out;
}

function cycleFrom(start: string): string[] | null {
  const stack: string[] = [];
  const done = new Set<string>();
  const visit = (f: string): string[] | null => {
    const at = stack.indexOf(f);
    if (at >= 0) return [...stack.slice(at), f];
    if (done.has(f)) return null;
    stack.push(f);
    for (const g of imports(f)) {
      const c = visit(g);
      if (c) return c;
    }
    stack.pop();
    done.add(f);
    return null;
  };
  return visit(start);
}

describe('imports', () => {
  it('form no cycle from the catalogs, the routes or the results', () => {
    for (const start of ['api/catalog.ts', 'normalize/catalog.ts', 'publish/views.ts', 'sandbox/routes.ts', 'sandbox/results.ts', 'sandbox/server.ts']) {
      const cycle = cycleFrom(path.join(SRC, start));
      expect(cycle?.map((f) => path.relative(SRC, f)) ?? null, start).toBeNull();
    }
  });

  it('keep the declarations free of sandbox code (sandbox parts live under src/sandbox/families)', () => {
    const seen = new Set<string>();
    const walk = (f: string) => {
      if (seen.has(f)) return;
      seen.add(f);
      imports(f).forEach(walk);
    };
    walk(path.join(SRC, 'families', 'index.ts'));
    expect([...seen].map((f) => path.relative(SRC, f)).filter((f) => f.startsWith('sandbox/'))).toEqual([]);
  });
});
