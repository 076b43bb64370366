/**
 * What `resume` picks, and the marker that lets it finish an interrupted publish.
 *
 * `resume` continues a run an earlier attempt left: the last unfinished run (of the pipeline given, if one is), or
 * a run that finished collecting but was killed while it was being published. It never starts a run of its own
 * (a new day's run would post everything again): with nothing to do it says so and exits 0.
 *
 * A run is marked finished in the ledger before the working warehouse is copied for publishing (the copy carries
 * that mark), so the ledger alone cannot tell a finished publish from a killed one: the marker file, written before
 * the run is marked finished and removed once every destination has published, can.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { EXIT } from '../exit.js';
import type { Ledger } from '../ledger/index.js';

/** `resume` found nothing to do: not an error (exit 0); its message says why. */
export class NothingToResume extends Error {
  readonly exitCode: number = EXIT.ok;
  constructor(message: string) {
    super(message);
    this.name = 'NothingToResume';
  }
}

export interface PendingPublish {
  runId: string;
  pipeline: string;
  pipelineFile: string | null;
  runDate: string;
  /** Destinations that failed to publish the run (PostgreSQL down): `resume` publishes it again. */
  behind?: string[];
}

const MARKER = 'publishing.json';

/** Written before the run is marked finished: until `published`, a kill leaves the run for `resume` to publish. */
export function markPublishing(dataDir: string, p: PendingPublish): void {
  const file = path.join(dataDir, MARKER);
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(p), { flush: true });
  renameSync(tmp, file);
}

/**
 * Every destination has published: a publish copies the whole warehouse, so any earlier pending one is done too.
 * `behind`: the destinations that failed; the marker then stays, naming them, so `resume` publishes the run again.
 */
export function published(dataDir: string, behind: readonly string[] = []): void {
  const pending = behind.length ? pendingPublish(dataDir) : undefined;
  if (pending) markPublishing(dataDir, { ...pending, behind: [...behind] });
  else rmSync(path.join(dataDir, MARKER), { force: true });
}

/** The run whose publishing a kill interrupted, if any. */
export function pendingPublish(dataDir: string): PendingPublish | undefined {
  const file = path.join(dataDir, MARKER);
  if (!existsSync(file)) return undefined;
  try {
    const p = JSON.parse(readFileSync(file, 'utf8')) as PendingPublish;
    return typeof p.runId === 'string' && typeof p.runDate === 'string' ? p : undefined;
  } catch {
    return undefined; // a torn marker: the rename makes that impossible, but a hand-edited one is ignored
  }
}

export interface ResumeTarget {
  pipelineFile: string;
  runDate: string;
  /** The run collected everything and was killed while publishing: export and publish it, post and plan nothing. */
  publishOnly: boolean;
}

/**
 * The run `resume` continues (of `pipeline` when given): an interrupted publish first (its data is complete), else
 * the latest unfinished run. Throws NothingToResume when there is neither.
 */
export async function resumeTarget(ledger: Ledger, dataDir: string, pipeline?: { name: string; path: string }): Promise<ResumeTarget> {
  const pending = pendingPublish(dataDir);
  if (pending && (!pipeline || pending.pipeline === pipeline.name)) {
    const run = await ledger.run(pending.runId);
    const file = pipeline?.path ?? pending.pipelineFile ?? run?.pipelineFile;
    if (run && file) return { pipelineFile: file, runDate: run.runDate, publishOnly: run.status === 'completed' };
  }
  const last = await ledger.lastUnfinishedRun(pipeline?.name);
  if (last && (pipeline || last.pipelineFile)) return { pipelineFile: pipeline?.path ?? last.pipelineFile!, runDate: last.runDate, publishOnly: false };
  const which = pipeline ? `of pipeline '${pipeline.name}'` : 'in this warehouse';
  throw new NothingToResume(`nothing to resume: no unfinished run ${which}, and every finished run is published (seo-etl run <pipeline> starts a new one)`);
}
