/** `seo-etl reprocess` and `seo-etl ingest`: tables from the raw archive, no API call. */
import path from 'node:path';
import { loadConfig, type Config } from '../config/index.js';
import { Warehouse } from '../load/warehouse.js';
import { storageOptions } from '../load/database.js';
import { loadArchiveFiles, type ArchiveLoadResult } from '../load/archive-load.js';
import { listArchiveFiles } from './reader.js';
import { ArchiveWriter } from './writer.js';
import { entryOf, readResponseFile } from './ingest.js';
import { UserError } from '../exit.js';
import { acquireRunLock } from '../ledger/lock.js';
import { publishWarehouse, warehousePaths as publishedPaths } from '../publish/index.js';
import { curatedViews } from '../publish/views.js';
import { publishToPostgres, reportPostgres, type PostgresOutcome } from '../publish/postgres/index.js';

export function warehousePaths(root: string, config: Config): { dir: string; warehouse: string; published: string; raw: string; parquet: string } {
  const dir = path.resolve(root, config.warehouse.dir);
  const { work, published } = publishedPaths(dir);
  return { dir, warehouse: work, published, raw: path.join(dir, 'raw'), parquet: path.join(dir, 'parquet') };
}

/**
 * Writes to the working warehouse under the run lock (a run and a reprocess never write at once), then publishes
 * it so that readers see the result, as a run does.
 */
async function writeAndPublish(paths: ReturnType<typeof warehousePaths>, w: Config['warehouse'], write: (wh: Warehouse) => Promise<void>, postgres?: Config['postgres']): Promise<PostgresOutcome | undefined> {
  const lock = acquireRunLock(paths.dir);
  try {
    const wh = await Warehouse.open(paths.warehouse, { memoryLimit: w.memory_limit, ...storageOptions(w) });
    try {
      await write(wh);
      await wh.connection.run('CHECKPOINT');
    } finally {
      wh.close();
    }
    await publishWarehouse({ workPath: paths.warehouse, publishedPath: paths.published, statements: curatedViews(), ...storageOptions(w) });
    return postgres?.url ? await publishToPostgres({ url: postgres.url, schema: postgres.schema, warehouse: paths.warehouse }) : undefined;
  } finally {
    lock.release();
  }
}

export function describeLoad(r: ArchiveLoadResult): string {
  const lines = [
    `${r.files.length} file(s), ${r.lines} line(s); tasks ${r.tasks} (${r.failedTasks} failed, ${r.sqlTasks} by the SQL fast path, ${r.jsTasks} by the JS extractor)`,
  ];
  for (const [t, n] of Object.entries(r.rows).sort()) lines.push(`  ${t}: ${n} row(s)`);
  if (r.unknownFields) lines.push(`unknown fields kept in extra: ${r.unknownFields} (${Object.entries(r.unknownFieldPaths).slice(0, 10).map(([k, v]) => `${k} x${v}`).join(', ')})`);
  if (r.unknownItemTypes) lines.push(`unknown item types kept: ${r.unknownItemTypes} (${Object.entries(r.unknownItemTypeNames).map(([k, v]) => `${k} x${v}`).join(', ')})`);
  if (r.badValues) lines.push(`values of an unexpected type kept in extra: ${r.badValues}`);
  if (r.badLines) lines.push(`lines without a response envelope: ${r.badLines}`);
  for (const f of r.files) {
    if (f.error || f.droppedBytes) lines.push(`salvaged ${f.file}: ${f.lines} complete line(s)${f.droppedBytes ? `, ${f.droppedBytes} byte(s) of a torn last line dropped` : ''}${f.error ? ` (${f.error})` : ''}`);
  }
  return lines.join('\n');
}

/** Rebuilds every catalog table from the raw archive (the ledger's tables are left alone). */
export async function reprocessCommand(opts: { root: string }): Promise<number> {
  const config = loadConfig({ root: opts.root });
  const paths = warehousePaths(opts.root, config);
  const files = listArchiveFiles(paths.raw);
  const postgres = await writeAndPublish(paths, config.warehouse, async (wh) => {
    await wh.resetTables();
    const r = await loadArchiveFiles(wh, files, { engines: config.engines });
    process.stdout.write(`reprocess: ${describeLoad(r)}\npublished: ${paths.published}\n`);
  }, config.postgres);
  return reportPostgres(postgres, process.stdout);
}

/** Archives the given response files, then loads them. */
export async function ingestCommand(opts: { root: string; files: string[] }): Promise<number> {
  if (!opts.files?.length) throw new UserError('ingest: files: give at least one response file');
  const config = loadConfig({ root: opts.root });
  const paths = warehousePaths(opts.root, config);
  // Parse everything first: a bad file stops the command before anything is archived.
  const docs = opts.files.flatMap((f) => readResponseFile(f));
  const entries = docs.map(({ doc, where }) => entryOf(doc, where, config.engines));
  const runId = `ingest-${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '')}-${process.pid}`;
  const writer = new ArchiveWriter({ dir: paths.raw, runId });
  for (const e of entries) await writer.append(e);
  await writer.close();
  const postgres = await writeAndPublish(paths, config.warehouse, async (wh) => {
    await wh.ensureSchema();
    const r = await loadArchiveFiles(wh, writer.closedFiles, { engines: config.engines });
    process.stdout.write(`ingest: ${entries.length} response(s) archived under ${path.relative(process.cwd(), paths.raw) || paths.raw} as run ${runId}\n${describeLoad(r)}\npublished: ${paths.published}\n`);
  }, config.postgres);
  return reportPostgres(postgres, process.stdout);
}
