/**
 * Pipelines: load and check a pipeline file (every issue with file:line:column before anything is posted),
 * expand its steps into keyed, tagged tasks, and estimate what a run takes. The format is in docs/pipelines.md.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { endpoint } from '../api/catalog.js';
import { tablesOfTask } from '../normalize/extract.js';
import type { Config } from '../config/index.js';
import { formatIssue, parseYamlDocument, type PositionedIssue } from '../config/yaml.js';
import { PipelineError } from './errors.js';
import { buildTasks, checkTasks, fixedParamIssues, generateTasks, resolveStep, type ExpandOptions } from './expand.js';
import { SchemaReader, displayPath, readPipelineSchema } from './schema.js';
import { readAxisRows, readAxisValues } from './sources.js';
import type { Axis, EnumeratedValue, Pipeline, PipelineStep, PlannedTask } from './types.js';

export type { Pipeline, PipelineStep, PlannedTask, Paging, CollectMode, Axis, SourceSpec, EnumeratedValue, Origin, Place } from './types.js';
export { PipelineError, type PositionedIssue } from './errors.js';
export { runIdFor, utcDate, isCalendarDay, dayOfRunId, RUN_DATE_RULE, taskKey, canonicalJson, tagFor, parseTag, type ParsedTag, NAME_PATTERN } from './key.js';
export { planPipeline, estimatePlan, formatPlan, formatPlanJson, formatUsd, formatDuration, budgetAllows, batchCost, tasksPerPost, type Plan, type StepPlan, type PlanEstimate, type StepEstimate, type CallCounts, type PlanOptions } from './plan.js';
export type { Callbacks, ExpandOptions, ResolvedAxes } from './expand.js';
export { checkTasks, generateTasks } from './expand.js';
export type { QueryFn } from './sources.js';
export { Budget, withinBudget, type Spend } from './budget.js';
export { parseCsv } from './csv.js';
export type { AlertsSpec, AlertRule, AlertChannel } from './alerts.js';

export interface LoadOptions {
  /** Clock for time-window rules (domain_analytics.errors datetime_from/to). */
  now?: Date;
  /** Where `alerts.send_to` webhooks written as `$VARIABLE` are read (process.env by default). */
  env?: NodeJS.ProcessEnv;
}

/**
 * Reads, checks and returns a pipeline. List and file sources are read here and every task of a step without SQL
 * is built and checked with the catalog's rules, so a run never starts with a task that cannot be sent; a
 * SQL-fed step has its fixed parameters checked now and its tasks when expandStep runs its query.
 * Throws PipelineError listing every issue.
 */
export function loadPipeline(file: string, config: Config, opts: LoadOptions = {}): Pipeline {
  const abs = path.resolve(file);
  const shown = path.isAbsolute(file) ? displayPath(abs) : file;
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new PipelineError([{ file: shown, line: 0, column: 0, key: '', rule: code === 'ENOENT' ? 'no such pipeline file' : `cannot read: ${(err as Error).message}` }]);
  }
  const parsed = parseYamlDocument(text, shown);
  if (parsed.issues.length) throw new PipelineError(parsed.issues);
  const reader = new SchemaReader(parsed.document, shown, parsed.position);
  const draft = readPipelineSchema(reader, config, path.dirname(abs), opts.env);
  const issues: PositionedIssue[] = [...reader.issues];
  if (!draft) throw new PipelineError(issues);

  const steps: PipelineStep[] = [];
  for (const d of draft.steps) {
    if (!d.def) continue;
    // Read list and file sources now: a missing file or column is a pipeline error, not a failure mid-run.
    const axes: Axis[] = d.axes.map((axis) => {
      const ctx = { def: d.def, at: axis.at, keyPath: axis.keyPath };
      if (axis.kind === 'values') {
        const values = readAxisValues(axis, ctx, issues);
        return values ? { ...axis, values } : axis;
      }
      const rows = readAxisRows(axis, ctx, issues);
      if (rows?.length && !axis.columns) {
        const taken = new Set([...Object.keys(d.params), ...d.axes.flatMap((a) => (a.kind === 'values' ? [a.param] : []))]);
        const clash = Object.keys(rows[0]).filter((p) => taken.has(p));
        if (clash.length) {
          issues.push({ ...axis.at, key: axis.keyPath, rule: `columns ${clash.join(', ')} are also set in params or for_each; set each in one place (or pick columns with columns:)` });
          return axis;
        }
      }
      return rows ? { ...axis, rows } : axis;
    });
    steps.push({
      index: d.index,
      name: d.name,
      endpointId: d.def.id,
      kind: d.def.kind,
      collect: d.collect,
      params: d.params,
      paramPlaces: d.paramPlaces,
      paramItemPlaces: d.paramItemPlaces,
      paramsPlace: d.paramsPlace,
      axes,
      ...(d.paging ? { paging: d.paging } : {}),
      ...(d.budgetUsd !== undefined ? { budgetUsd: d.budgetUsd } : {}),
      deferred: axes.some((a) => a.source.type === 'sql'),
      ...(d.target ? { target: d.target } : {}),
      at: d.at,
    });
  }
  const pipeline: Pipeline = {
    file: shown,
    path: abs,
    name: draft.name,
    ...(draft.description !== undefined ? { description: draft.description } : {}),
    budgetUsd: draft.budgetUsd,
    targets: draft.targets,
    ...(draft.schedule ? { schedule: draft.schedule } : {}),
    steps,
    ...(draft.alerts ? { alerts: draft.alerts } : {}),
    config,
    warnings: [...reader.warnings, ...oldPriceRows(steps.map((st) => st.endpointId), config)],
  };

  for (const step of steps) {
    issues.push(...fixedParamIssues(pipeline, step));
    const unread = step.axes.some((a) => (a.kind === 'values' ? !a.values : !a.rows));
    if (step.deferred || unread) continue;
    // Checked only: the tasks themselves are built when a run plans them, a chunk at a time.
    for (const i of checkTasks(pipeline, step, collectResolved(step), { now: opts.now })) issues.push(i);
  }
  if (issues.length) throw new PipelineError(issues);
  return pipeline;
}

/** The tables what a pipeline fetches lands in: the warehouse a run opens creates them (a generated family's only then). */
export function pipelineTables(pipeline: Pipeline): string[] {
  return pipeline.steps.flatMap((step) => {
    const def = endpoint(step.endpointId);
    return [def.id, def.getId].flatMap((id) => (id ? [...tablesOfTask(id)] : []));
  });
}

/** A price row the configuration keeps under an endpoint's old id, for the endpoints the steps name: it still prices it. */
function oldPriceRows(endpointIds: readonly string[], config: Config): PositionedIssue[] {
  const olds = [...new Set(endpointIds)].map((id) => endpoint(id)).filter((d) => d.formerly && config.prices[d.formerly]);
  return olds.map((d) => ({ file: 'config (prices.yaml, local.yaml)', line: 0, column: 0, key: `prices.${d.formerly}`, rule: `a row under an old id of ${d.id}: it still prices it; name the row ${d.id}` }));
}

/** The pipeline's warnings as lines, `file:line:column: key: what` (an endpoint named by an old id, once per id). */
export function pipelineWarnings(pipeline: Pick<Pipeline, 'warnings'>): string[] {
  return pipeline.warnings.map(formatIssue);
}

function collectResolved(step: PipelineStep) {
  const values = new Map<Axis, EnumeratedValue[]>();
  const rows = new Map<Axis, Record<string, EnumeratedValue>[]>();
  for (const a of step.axes) {
    if (a.kind === 'values' && a.values) values.set(a, a.values);
    if (a.kind === 'rows' && a.rows) rows.set(a, a.rows);
  }
  return { values, rows };
}

function stepAt(pipeline: Pipeline, stepIndex: number): PipelineStep {
  const step = pipeline.steps.find((s) => s.index === stepIndex) ?? pipeline.steps[stepIndex];
  if (!step) throw new RangeError(`pipeline ${pipeline.name} has no step ${stepIndex}`);
  endpoint(step.endpointId);
  return step;
}

/**
 * The tasks of one step for a run, as one array (duplicates within the step dropped). Steps that read SQL run
 * their query now (pass `query`, bound to the working warehouse, after earlier steps have loaded) and are
 * checked before anything of them is posted: a broken rule throws PipelineError. Pass the webhook receiver's
 * addresses as `callbacks` for pingback/postback steps; they are not part of the task key, so a resumed run
 * (with a new receiver address) plans the same keys. A run uses expandStepChunks, which never holds the step.
 */
export async function expandStep(pipeline: Pipeline, stepIndex: number, opts: ExpandOptions): Promise<PlannedTask[]> {
  const step = stepAt(pipeline, stepIndex);
  const r = await resolveStep(pipeline, step, opts);
  if (r.issues.length) throw new PipelineError(r.issues);
  const built = buildTasks(pipeline, step, r.resolved, opts);
  if (built.issues.length) throw new PipelineError(built.issues);
  return built.tasks;
}

/** Tasks per chunk a run plans into the ledger at once (expandStepChunks). */
export const PLAN_CHUNK = 5000;

/**
 * The tasks of one step for a run, `chunkSize` at a time, so that a run holds one chunk of tasks, never the
 * step. The whole step is read and checked first: a broken rule throws PipelineError before the first chunk, so
 * nothing of a step that cannot be sent is ever planned. Duplicates are dropped within a chunk; the ledger's key
 * (run, task key) drops those across chunks and those of earlier steps (Ledger.planTasks counts them existing).
 */
export async function* expandStepChunks(pipeline: Pipeline, stepIndex: number, opts: ExpandOptions, chunkSize = PLAN_CHUNK): AsyncGenerator<PlannedTask[]> {
  const step = stepAt(pipeline, stepIndex);
  const r = await resolveStep(pipeline, step, opts);
  if (r.issues.length) throw new PipelineError(r.issues);
  const issues = checkTasks(pipeline, step, r.resolved, opts);
  if (issues.length) throw new PipelineError(issues);
  let chunk: PlannedTask[] = [];
  let seen = new Set<string>();
  for (const t of generateTasks(pipeline, step, r.resolved, { ...opts, seen: () => seen })) {
    chunk.push(t);
    if (chunk.length >= chunkSize) {
      yield chunk;
      chunk = [];
      seen = new Set();
    }
  }
  if (chunk.length) yield chunk;
}

/**
 * Drops what a step's list and file sources were read into at load, once a run has planned the step: a run holds
 * one chunk of tasks, never a step's inputs (a file of 100,000 targets kept about 16 MB of the heap live for the
 * rest of the night). Planning the step again reads its sources again.
 */
export function releaseStepInputs(step: PipelineStep): void {
  for (const axis of step.axes) {
    if (axis.kind === 'values') delete axis.values;
    else delete axis.rows;
  }
}

/** The step of a pipeline by name. */
export function stepNamed(pipeline: Pipeline, name: string): PipelineStep | undefined {
  return pipeline.steps.find((s) => s.name === name);
}
