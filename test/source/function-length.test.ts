/**
 * No function of src/ runs over 100 lines (issue 45): function declarations, methods, constructors, accessors,
 * arrow functions and function expressions, measured from their first token to their last. Generated files
 * (`*.generated.ts`) aside. The sources are parsed by the installed `typescript` package's API.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { API } from 'typescript/unstable/sync';
import { SyntaxKind, type Node, type SourceFile } from 'typescript/unstable/ast';

const ROOT = path.resolve(new URL('../..', import.meta.url).pathname);
const MAX_LINES = 100;

const FUNCTION_KINDS = new Set<SyntaxKind>([
  SyntaxKind.FunctionDeclaration,
  SyntaxKind.MethodDeclaration,
  SyntaxKind.Constructor,
  SyntaxKind.GetAccessor,
  SyntaxKind.SetAccessor,
  SyntaxKind.ArrowFunction,
  SyntaxKind.FunctionExpression,
]);

interface LongFunction { where: string; lines: number }

/** A function's name as a reader finds it: its own, or the variable, property or class member holding it. */
function nameOf(node: Node, file: SourceFile): string {
  const named = (n: Node | undefined): string | undefined => {
    const name = (n as { name?: Node } | undefined)?.name;
    return name ? name.getText(file) : undefined;
  };
  if (node.kind === SyntaxKind.Constructor) return 'constructor';
  return named(node) ?? named(node.parent) ?? '(anonymous)';
}

/** Every function of a file longer than MAX_LINES lines, nested ones included. */
function longFunctions(file: SourceFile, rel: string): LongFunction[] {
  const out: LongFunction[] = [];
  const visit = (node: Node): void => {
    if (FUNCTION_KINDS.has(node.kind)) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const last = file.getLineAndCharacterOfPosition(node.end).line;
      const lines = last - first + 1;
      if (lines > MAX_LINES) out.push({ where: `${rel}:${first + 1} ${nameOf(node, file)}`, lines });
    }
    node.forEachChild(visit);
  };
  file.forEachChild(visit);
  return out;
}

describe('the sources', () => {
  const api = new API({ cwd: ROOT });
  afterAll(() => api.close());

  it(`have no function over ${MAX_LINES} lines, generated files aside`, () => {
    const project = api.updateSnapshot({ openProject: path.join(ROOT, 'tsconfig.json') }).getProjects()[0];
    const files = project.program.getSourceFileNames().filter((f) => f.startsWith(path.join(ROOT, 'src') + path.sep) && !f.endsWith('.generated.ts'));
    expect(files.length).toBeGreaterThan(100);
    const long = files.flatMap((f) => longFunctions(project.program.getSourceFile(f)!, path.relative(ROOT, f)));
    expect(long.sort((a, b) => b.lines - a.lines).map((l) => `${l.where}: ${l.lines} lines`)).toEqual([]);
  });
});
