/**
 * Bad input met by `reprocess` and `ingest` (a line that is not JSON or cut short, a response that is no envelope, a
 * task without an id, with a `result` that is no list, or whose rows could not be made), said once each: in the
 * command's summary on stdout and as a warning in its log (`data/logs/<run>.log`, and stderr for people). Nothing of
 * such a line or task is loaded; every other task is, and the command exits 1 (EXIT.taskFailures). The cut last line
 * of a killed run's open `.partial` file is said apart and is no bad input: the run's resume fetches its task again.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { createLogger, logLevel } from '../log/logger.js';
import { logFormat, stderrLog } from '../log/log-output.js';
import type { ArchiveProblem } from '../archive/records.js';
import type { ResponseDoc } from '../archive/ingest.js';

/** Where a problem is, in words: `file:line`, and the task when its id could be read. Pure. */
export const placeOf = (p: { file: string; line: number; task?: string | null; item?: number }): string =>
  `${p.file}:${p.line}${p.item !== undefined ? ` [${p.item}]` : ''}${p.task ? `, task ${p.task}` : ''}`;

/** The problems that make a load unclean (exit 1): all but a killed run's cut last line. Pure. */
export const badInput = (problems: readonly ArchiveProblem[]): ArchiveProblem[] => problems.filter((p) => !p.crashTail);

/** The summary's lines for the problems (none when there are none). Pure. */
export function problemLines(problems: readonly ArchiveProblem[]): string[] {
  const bad = badInput(problems);
  const tails = problems.filter((p) => p.crashTail);
  return [
    ...(bad.length ? [`bad input, not loaded (${bad.length}; everything else loaded):`, ...bad.map((p) => `  ${placeOf(p)}: ${p.reason}`)] : []),
    ...(tails.length ? [`left by a killed run (${tails.length}):`, ...tails.map((p) => `  ${placeOf(p)}: ${p.reason}`)] : []),
  ];
}

/** Writes each problem as a warning to the command's log file under `dir/logs` and to stderr. */
export function logProblems(dir: string, runId: string, problems: readonly ArchiveProblem[]): void {
  if (!problems.length) return;
  const logDir = path.join(dir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const level = logLevel();
  const file = pino.destination({ dest: path.join(logDir, `${runId}.log`), sync: true, append: true });
  const streams = pino.multistream([{ level, stream: file }, stderrLog({ level, format: logFormat(process.env), warningsOnly: false })]);
  const log = createLogger({ level, destination: streams }).child({ run_id: runId });
  for (const p of problems) log.warn({ file: p.file, line: p.line, task: p.task, reason: p.reason }, p.crashTail ? 'left by a killed run' : 'bad input, not loaded');
  file.flushSync();
}

/**
 * Problems of an ingest's archive lines named by the ingested files they came from (the user's file and line), the
 * archived place kept in the reason. Lines were archived in `docs` order, `lines[k]` of them into `files[k]`. Pure.
 */
export function fromIngested(problems: readonly ArchiveProblem[], archived: { files: readonly string[]; lines: readonly number[] }, docs: readonly ResponseDoc[]): ArchiveProblem[] {
  const at = new Map<string, ResponseDoc>();
  let k = 0;
  archived.files.forEach((f, i) => {
    for (let line = 1; line <= archived.lines[i]; line++) at.set(`${f}\u0000${line}`, docs[k++]);
  });
  return problems.map((p) => {
    const d = at.get(`${p.file}\u0000${p.line}`);
    if (!d) return p;
    return { file: d.file, line: d.line, task: p.task, reason: `${d.item !== undefined ? `item ${d.item}: ` : ''}${p.reason} (archived as ${p.file}:${p.line})` };
  });
}
