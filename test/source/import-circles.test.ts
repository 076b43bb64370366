/**
 * The import graph of src/ (issue 45): no import circle spans more than one folder, the catalog (src/catalog)
 * imports nothing outside itself, and the families' declarations import only the catalog. Every kind of import
 * counts, `import type` and `import()` included: a circle of types is still one a reader has to hold in mind.
 * The sources are parsed by the installed `typescript` package's API, as in function-length.test.ts.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API } from 'typescript/unstable/sync';
import { SyntaxKind, type Node, type SourceFile } from 'typescript/unstable/ast';

const ROOT = path.resolve(new URL('../..', import.meta.url).pathname);
const SRC = path.join(ROOT, 'src');
const rel = (f: string) => path.relative(ROOT, f);

/** The files a source file imports, by any form, resolved to files of src/ (packages and node: left out). */
function importsOf(file: SourceFile, abs: string): string[] {
  const specs: string[] = [];
  const visit = (node: Node): void => {
    const n = node as { moduleSpecifier?: Node; arguments?: readonly Node[]; expression?: Node; argument?: Node; literal?: Node };
    if ((node.kind === SyntaxKind.ImportDeclaration || node.kind === SyntaxKind.ExportDeclaration) && n.moduleSpecifier) specs.push(text(n.moduleSpecifier, file));
    if (node.kind === SyntaxKind.CallExpression && n.expression?.kind === SyntaxKind.ImportKeyword && n.arguments?.[0]) specs.push(text(n.arguments[0], file));
    if (node.kind === SyntaxKind.ImportType && n.argument) specs.push(text((n.argument as { literal?: Node }).literal ?? n.argument, file));
    node.forEachChild(visit);
  };
  file.forEachChild(visit);
  return specs.filter((s) => s.startsWith('.')).map((s) => resolve(abs, s)).filter((f): f is string => f !== null);
}

const text = (node: Node, file: SourceFile) => node.getText(file).replace(/^['"`]|['"`]$/g, '');

function resolve(from: string, spec: string): string | null {
  const base = path.resolve(path.dirname(from), spec);
  for (const f of [base.replace(/\.js$/, '.ts'), base, path.join(base.replace(/\.js$/, ''), 'index.ts')]) if (f.endsWith('.ts') && existsSync(f)) return f;
  return null;
}

/** The strongly connected components of more than one file (Tarjan), each a circle of imports. */
export function circles(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, next); low.set(v, next); next++;
    stack.push(v); onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) { connect(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do { w = stack.pop()!; onStack.delete(w); component.push(w); } while (w !== v);
    if (component.length > 1) out.push(component.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) connect(v);
  return out;
}

describe('the import graph of src/', () => {
  const api = new API({ cwd: ROOT });
  const edges = new Map<string, string[]>();
  beforeAll(() => {
    const project = api.updateSnapshot({ openProject: path.join(ROOT, 'tsconfig.json') }).getProjects()[0];
    for (const f of project.program.getSourceFileNames().filter((x) => x.startsWith(SRC + path.sep))) edges.set(f, importsOf(project.program.getSourceFile(f)!, f));
  });
  afterAll(() => api.close());

  it('finds circles, as the check below relies on', () => {
    const g = new Map([['a/x', ['b/y']], ['b/y', ['a/x', 'c/z']], ['c/z', []]]);
    expect(circles(g)).toEqual([['a/x', 'b/y']]);
    expect(edges.size).toBeGreaterThan(100);
    expect(edges.get(path.join(SRC, 'api', 'catalog.ts'))).toContain(path.join(SRC, 'families', 'index.ts'));
  });

  it('has no import circle spanning more than one folder', () => {
    const spanning = circles(edges).filter((c) => new Set(c.map((f) => path.dirname(f))).size > 1);
    expect(spanning.map((c) => c.map(rel))).toEqual([]);
  });

  it('keeps src/catalog a leaf: it imports nothing outside itself', () => {
    const catalog = path.join(SRC, 'catalog') + path.sep;
    const outside = [...edges].filter(([f]) => f.startsWith(catalog)).flatMap(([f, to]) => to.filter((t) => !t.startsWith(catalog)).map((t) => `${rel(f)} -> ${rel(t)}`));
    expect(outside).toEqual([]);
  });

  it('keeps the families\' declarations free of any stage: they import the catalog and each other only', () => {
    const families = path.join(SRC, 'families') + path.sep;
    const catalog = path.join(SRC, 'catalog') + path.sep;
    const stages = [...edges].filter(([f]) => f.startsWith(families)).flatMap(([f, to]) => to.filter((t) => !t.startsWith(families) && !t.startsWith(catalog)).map((t) => `${rel(f)} -> ${rel(t)}`));
    expect(stages).toEqual([]);
  });
});
