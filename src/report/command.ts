/** `seo-etl report`: writes the report of a run (the latest by default) from the published warehouse, on demand. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config/index.js';
import { serviceOfRun } from '../config/service.js';
import { loadPipeline, pipelineWarnings } from '../pipeline/index.js';
import { warehousePaths } from '../config/data-paths.js';
import { EXIT, UserError } from '../exit.js';
import { DEFAULT_DAYS, RunNotFound, reportsDir, withPublished, writeReport } from './index.js';
import { requireWritableFolders, type FolderProbe } from '../config/writable.js';

export interface ReportCommandOptions { root: string; run?: string; pipeline?: string; days?: number; out?: NodeJS.WritableStream; folderProbe?: FolderProbe }

export async function reportCommand(o: ReportCommandOptions): Promise<number> {
  const config = loadConfig({ root: o.root });
  const pipeline = o.pipeline ? loadPipeline(path.resolve(o.root, o.pipeline), config) : undefined;
  for (const w of pipeline ? pipelineWarnings(pipeline) : []) process.stderr.write(`seo-etl: warning: ${w}\n`); // old endpoint ids, as plan and run say
  const dataDir = path.resolve(o.root, config.warehouse.dir);
  const published = warehousePaths(dataDir).published;
  if (!existsSync(published)) throw new UserError(`no published warehouse in ${dataDir}: a run writes one (seo-etl run <pipeline>)`);
  const days = o.days ?? DEFAULT_DAYS;
  if (days < 1 || days > 366) throw new UserError(`--days must be from 1 to 366 (got ${days})`);
  requireWritableFolders([{ dir: reportsDir(dataDir), what: 'the reports folder' }], o.folderProbe); // exit 2 naming it, before the report is read
  const written = await withPublished(published, async (q) => {
    const latest = (await q(`SELECT run_id FROM v_runs ${pipeline ? 'WHERE pipeline = $1 ' : ''}ORDER BY run_date DESC, started_at DESC LIMIT 1`, pipeline ? [pipeline.name] : []))[0]?.run_id as string | undefined;
    const runId = o.run ?? latest;
    if (!runId) throw new UserError(`no run${pipeline ? ` of pipeline ${pipeline.name}` : ''} in ${published} yet`);
    try {
      return await writeReport({ dataDir, publishedPath: published, runId, config, pipeline, days, latest: runId === latest, service: serviceOfRun(dataDir, runId)?.label }, q);
    } catch (err) {
      if (err instanceof RunNotFound) throw new UserError(`${err.message} (${published}); seo-etl status lists the runs`);
      throw err;
    }
  });
  (o.out ?? process.stdout).write(`report: ${written.path}\n${written.latestPath ? `latest: ${written.latestPath}\n` : ''}`);
  return EXIT.ok;
}
