import { formatIssues, type PositionedIssue } from '../config/yaml.js';
import { EXIT } from '../exit.js';

export type { PositionedIssue };

/** Every problem of a pipeline at once, each as `file:line:column: key: rule`; the CLI exits 2 with it. */
export class PipelineError extends Error {
  readonly exitCode: number = EXIT.badInput;
  readonly issues: PositionedIssue[];
  constructor(issues: PositionedIssue[]) {
    const sorted = sortIssues(dedupeIssues(issues));
    super(`${sorted.length} problem${sorted.length === 1 ? '' : 's'} in the pipeline:\n${formatIssues(sorted)}`);
    this.name = 'PipelineError';
    this.issues = sorted;
  }
}

export function dedupeIssues(issues: PositionedIssue[]): PositionedIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const k = `${i.file}\u0000${i.line}\u0000${i.column}\u0000${i.key}\u0000${i.rule}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Files in order of first mention, then line and column, so the message reads top to bottom like the file. */
function sortIssues(issues: PositionedIssue[]): PositionedIssue[] {
  const fileRank = new Map<string, number>();
  for (const i of issues) if (!fileRank.has(i.file)) fileRank.set(i.file, fileRank.size);
  return issues
    .map((i, n) => ({ i, n }))
    .sort((a, b) => fileRank.get(a.i.file)! - fileRank.get(b.i.file)! || a.i.line - b.i.line || a.i.column - b.i.column || a.n - b.n)
    .map(({ i }) => i);
}
