/**
 * `seo-etl reprocess` and `seo-etl ingest`: tables from the raw archive, no API call. Composed as the nightly is:
 * the archive is read by src/archive, loaded through src/load's writer and load channel, published by src/publish.
 */
import path from 'node:path';
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { shrunk } from '../load/parquet-sync.js';
import { loadConfig, type Config } from '../config/index.js';
import { Writer } from '../load/writer.js';
import type { ArchiveLoadResult } from '../load/archive-load.js';
import { listArchiveFiles } from '../archive/reader.js';
import { ArchiveWriter } from '../archive/writer.js';
import { entryOf, readResponseFile, type ResponseDoc } from '../archive/ingest.js';
import { documentProblem, type ArchiveProblem } from '../archive/records.js';
import { badInput, fromIngested, logProblems, placeOf, problemLines } from './bad-input.js';
import { UserError } from '../exit.js';
import { acquireRunLock } from '../ledger/lock.js';
import { warehousePaths, type WarehousePaths } from '../config/data-paths.js';
import { describeDestinations, destinationsFor, exitWithDestinations, publishAll, verifyDestinations } from '../publish/destination.js';
import { noPause } from '../pause.js';
import { EXIT } from '../exit.js';
import { useDuckdbThreads } from '../load/threads.js';
import { keptLines } from './kept.js';
import { dataFolders, requireWritableFolders, type FolderProbe } from '../config/writable.js';

export interface CommandStamp { base: string; n: number; stamp: string }

/**
 * A time stamp and the process id, which name a command's run, archive files and publish. A second command of the
 * same process within the same second is given `-2`, `-3`, ...: with the same id its rows would join the first's run
 * (the views that compare a target's last two runs then saw one). Pure.
 */
export function commandStamp(now: Date, pid: number, previous?: CommandStamp): CommandStamp {
  const base = `${now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '')}-${pid}`;
  const n = previous?.base === base ? previous.n + 1 : 1;
  return { base, n, stamp: n > 1 ? `${base}-${n}` : base };
}
let lastStamp: CommandStamp | undefined;
const stamp = () => (lastStamp = commandStamp(new Date(), process.pid, lastStamp)).stamp;

const pathsOf = (root: string, config: Config): WarehousePaths => warehousePaths(path.resolve(root, config.warehouse.dir));

/**
 * Writes to the working warehouse under the run lock (a run and a reprocess never write at once), rewrites the
 * Parquet export from it, then publishes it to every destination, as a run does; the exit code says whether a
 * destination beyond DuckDB failed. With `onCopy`, `write` works on a copy of the working warehouse that replaces it
 * only once `write` returns: it may refuse by throwing, and nothing is changed or published.
 */
async function writeAndPublish(paths: WarehousePaths, config: Config, runId: string, write: (writer: Writer) => Promise<ArchiveLoadResult>, opts: { onCopy?: boolean; rebuilt?: boolean; takeOver?: boolean } = {}): Promise<number> {
  useDuckdbThreads(config.warehouse.threads);
  const lock = acquireRunLock(paths.dir);
  const file = opts.onCopy ? `${paths.work}.reprocess-${process.pid}` : paths.work;
  const destinations = destinationsFor(config, paths, noPause, undefined, { takeOver: opts.takeOver });
  try {
    await verifyDestinations(destinations); // another data folder's destination refuses before anything is written
    if (opts.onCopy) copyWarehouse(paths.work, file);
    const writer = await Writer.open(file, config.warehouse.memory_limit);
    let loaded: ArchiveLoadResult;
    let parquet: Awaited<ReturnType<Writer['rewriteParquet']>>;
    try {
      loaded = await write(writer);
      parquet = await writer.rewriteParquet(paths.parquet);
      await writer.close();
    } finally {
      writer.abandon();
    }
    if (file !== paths.work) replaceFile(file, paths.work);
    logProblems(paths.dir, runId, loaded.problems);
    const runDate = new Date().toISOString().slice(0, 10);
    const published = await publishAll(destinations, { runId, runDate, status: 'completed' }, { warehouse: paths.work, parquet, rows: loaded.rows, rebuilt: opts.rebuilt === true });
    for (const line of describeDestinations(published)) process.stdout.write(`${line}\n`);
    // Bad input left out is not a clean load: exit 1, as a run's tasks that failed (bad-input.ts).
    return exitWithDestinations(badInput(loaded.problems).length ? EXIT.taskFailures : EXIT.ok, published);
  } finally {
    if (file !== paths.work) for (const f of [file, `${file}.wal`]) rmSync(f, { force: true });
    lock.release();
  }
}

/** A copy of a warehouse file and its log (a killed run's writes are replayed from it when the copy opens). */
function copyWarehouse(from: string, to: string): void {
  mkdirSync(path.dirname(to), { recursive: true });
  if (existsSync(from)) copyFileSync(from, to);
  if (existsSync(`${from}.wal`)) copyFileSync(`${from}.wal`, `${to}.wal`);
}

/** A warehouse file (checkpointed and closed) renamed over another, whose stale log goes with it. */
function replaceFile(from: string, to: string): void {
  rmSync(`${to}.wal`, { force: true });
  renameSync(from, to);
}

export function describeLoad(r: ArchiveLoadResult): string {
  const lines = [
    `${r.files.length} file(s), ${r.lines} line(s); tasks ${r.tasks} (${r.failedTasks} failed)`,
  ];
  for (const [t, n] of Object.entries(r.rows).sort()) lines.push(`  ${t}: ${n} row(s)`);
  lines.push(...keptLines(r));
  lines.push(...problemLines(r.problems));
  return lines.join('\n');
}

/**
 * Rebuilds every catalog table from the raw archive (the ledger's tables are left alone), in a copy of the working
 * warehouse: when a table would end with fewer rows than it has (data/raw missing or cut), nothing changes and the
 * command exits 2, unless `allowFewer` says to publish the smaller tables.
 */
export async function reprocessCommand(opts: { root: string; allowFewer?: boolean; takeOver?: boolean; folderProbe?: FolderProbe; worker?: boolean }): Promise<number> {
  const config = loadConfig({ root: opts.root });
  const paths = pathsOf(opts.root, config);
  requireWritableFolders(dataFolders(paths), opts.folderProbe); // before the lock: exit 2 naming the folder
  const files = listArchiveFiles(paths.raw);
  return writeAndPublish(paths, config, `reprocess-${stamp()}`, async (writer) => {
    const before = await writer.tableCounts();
    await writer.resetTables();
    const r = await writer.loadArchive(files, { engines: config.paths, worker: opts.worker });
    const fewer = shrunk(before, await writer.tableCounts());
    if (fewer.length && !opts.allowFewer) {
      throw new UserError(`reprocess: the raw archive (${path.relative(process.cwd(), paths.raw) || paths.raw}, ${files.length} file(s)) gives fewer rows than the warehouse has: ${fewer.slice(0, 8).join(', ')}${fewer.length > 8 ? `, and ${fewer.length - 8} more tables` : ''}. Nothing was changed or published; restore the archive, or run 'seo-etl reprocess --allow-fewer' to publish the smaller tables${r.problems.length ? `\n${problemLines(r.problems).join('\n')}` : ''}`);
    }
    process.stdout.write(`reprocess: ${describeLoad(r)}\n${fewer.length ? `fewer rows than before (--allow-fewer): ${fewer.join(', ')}\n` : ''}published: ${paths.published}\n`);
    return r;
  }, { onCopy: true, rebuilt: true, takeOver: opts.takeOver });
}

/** Archives the given response files, then loads them. (`worker`, for tests: prepare on a worker thread or not, whatever the size.) */
export async function ingestCommand(opts: { root: string; files: string[]; takeOver?: boolean; folderProbe?: FolderProbe; worker?: boolean }): Promise<number> {
  if (!opts.files?.length) throw new UserError('ingest: files: give at least one response file');
  const config = loadConfig({ root: opts.root });
  const paths = pathsOf(opts.root, config);
  requireWritableFolders(dataFolders(paths), opts.folderProbe); // before anything is archived: exit 2 naming the folder
  // Read everything first: a file that cannot be read stops the command before anything is archived. A line or
  // document that is not JSON, or no envelope, is named and left out; the rest is archived.
  const read = opts.files.map((f) => readResponseFile(f));
  const problems: ArchiveProblem[] = read.flatMap((r) => r.problems);
  const docs: ResponseDoc[] = [];
  for (const d of read.flatMap((r) => r.docs)) {
    const why = documentProblem(d.doc);
    if (why) problems.push({ file: d.file, line: d.line, task: null, reason: `${d.item !== undefined ? `item ${d.item}: ` : ''}${why}` });
    else docs.push(d);
  }
  const entries = docs.map((d) => entryOf(d.doc, placeOf(d), config.paths));
  const runId = `ingest-${stamp()}`;
  const writer = new ArchiveWriter({ dir: paths.raw, runId });
  for (const e of entries) await writer.append(e);
  await writer.close();
  return writeAndPublish(paths, config, runId, async (warehouse) => {
    const r = await warehouse.loadArchive(writer.closedFiles, { engines: config.paths, worker: opts.worker });
    const order = new Map(opts.files.map((f, i) => [f, i]));
    r.problems = [...problems, ...fromIngested(r.problems, { files: writer.closedFiles, lines: writer.closedLines }, docs)]
      .sort((a, b) => (order.get(a.file) ?? -1) - (order.get(b.file) ?? -1) || a.line - b.line);
    process.stdout.write(`ingest: ${entries.length} response(s) archived under ${path.relative(process.cwd(), paths.raw) || paths.raw} as run ${runId}\n${describeLoad(r)}\npublished: ${paths.published}\n`);
    return r;
  }, { takeOver: opts.takeOver });
}
