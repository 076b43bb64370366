/**
 * From a step to its tasks: the matrix of its axes (chunked for array parameters), each task checked with the
 * catalog's validateTask, keyed and tagged. A broken rule is reported where the parameter, or the enumeration
 * that produced the value, is written, naming the value's own file and line too.
 */
import { endpoint } from '../api/catalog.js';
import { type EndpointDef } from '../catalog/endpoint.js';
import { taskPriceRange } from '../api/pricing.js';
import { validateTask, type ValidationIssue } from '../api/validate.js';
import type { PositionedIssue } from '../config/yaml.js';
import { tagFor, taskKey } from './key.js';
import { PipelineError } from './errors.js';
import { MAX_TASKS_PER_STEP } from './schema.js';
import { suggest } from '../config/suggest.js';
import { queryRows, queryValues, readAxisRows, readAxisValues, type QueryFn } from './sources.js';
import type { Axis, EnumeratedValue, Origin, Paging, Pipeline, PipelineStep, PlannedTask } from './types.js';

/** The receiver's addresses, with $id and $tag for the service to fill in (from the webhook receiver). */
export interface Callbacks {
  pingback_url?: string;
  postback_url?: string;
}

/** Stands in for the receiver's address when checking rules before one is running. */
const PLACEHOLDER_CALLBACKS: Required<Callbacks> = {
  pingback_url: 'http://127.0.0.1/pingback?id=$id&tag=$tag',
  postback_url: 'http://127.0.0.1/postback?id=$id&tag=$tag',
};

interface Bound {
  value: unknown;
  origin: Origin;
  /** For chunked array values: the origin of each item. */
  itemOrigins?: Origin[];
  axis: Axis;
}
type Binding = Record<string, Bound>;

/**
 * The bindings of one axis, made one at a time on demand: a step of 100,000 values never holds 100,000 binding
 * objects (nor the matrix of their combinations) at once.
 */
interface AxisBindings {
  length: number;
  at(i: number): Binding;
}

/** The bindings of one axis whose values are read. */
function axisBindings(axis: Axis, values: EnumeratedValue[] | undefined, rows: Record<string, EnumeratedValue>[] | undefined): AxisBindings {
  if (axis.kind === 'values') {
    const vals = values ?? [];
    // Scalars of an array parameter are chunked; items written as lists are each one task's whole value.
    const size = axis.chunk;
    if (size !== undefined && vals.every((v) => !Array.isArray(v.value))) {
      return {
        length: Math.ceil(vals.length / size),
        at: (i) => {
          const part = vals.slice(i * size, (i + 1) * size);
          return { [axis.param]: { value: part.map((v) => v.value), origin: part[0].origin, itemOrigins: part.map((v) => v.origin), axis } };
        },
      };
    }
    return { length: vals.length, at: (i) => ({ [axis.param]: { value: vals[i].value, origin: vals[i].origin, axis } }) };
  }
  const list = rows ?? [];
  return { length: list.length, at: (i) => Object.fromEntries(Object.entries(list[i]).map(([p, v]) => [p, { value: v.value, origin: v.origin, axis }])) };
}

/** Every combination of the axes' bindings, the first axis outermost (as nested loops would), one at a time. */
function* combinations(perAxis: readonly AxisBindings[]): Generator<Binding> {
  if (perAxis.some((a) => a.length === 0)) return;
  const idx = perAxis.map(() => 0);
  for (;;) {
    const combo: Binding = {};
    perAxis.forEach((a, k) => Object.assign(combo, a.at(idx[k])));
    yield combo;
    let k = perAxis.length - 1;
    while (k >= 0 && ++idx[k] === perAxis[k].length) idx[k--] = 0;
    if (k < 0) return;
  }
}

/** Parameters bound by the axes; `open` when a SQL row source binds whatever columns its query returns. */
function enumeratedParams(step: PipelineStep): { names: Set<string>; open: boolean } {
  const names = new Set<string>();
  let open = false;
  for (const a of step.axes) {
    if (a.kind === 'values') names.add(a.param);
    else if (a.columns) for (const p of Object.keys(a.columns)) names.add(p);
    else if (a.rows && a.rows.length) for (const p of Object.keys(a.rows[0])) names.add(p);
    else open = true;
  }
  return { names, open };
}

const baseFields = (field: string) => field.split(/[|+]/).map((f) => f.replace(/\[.*$/, ''));

function describe(value: unknown): string {
  if (typeof value === 'string') return value.length > 60 ? `a string of ${value.length} characters` : JSON.stringify(value);
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (value === null || value === undefined) return 'nothing';
  if (typeof value === 'object') return 'a mapping';
  return String(value);
}

function ruleText(i: ValidationIssue, def: EndpointDef): string {
  if (i.code === 40506) return `is not a parameter of ${def.id}${suggest(i.field, Object.keys(def.fields ?? {}))}`;
  if (i.rule === 'is required') return 'is required: set it under params or for_each';
  if (i.value === undefined) return i.rule;
  return `${i.rule} (got ${describe(i.value)})`;
}

/** The body of one task as the catalog checks it: the default postback type and the callback addresses included. */
function withCollectFields(step: PipelineStep, def: EndpointDef, body: Record<string, unknown>, callbacks: Callbacks): Record<string, unknown> {
  const out = { ...body };
  if (step.collect === 'postback') {
    if (def.fields?.postback_data && out.postback_data === undefined) out.postback_data = 'advanced';
    if (callbacks.postback_url) out.postback_url = callbacks.postback_url;
  } else if (step.collect === 'pingback' && callbacks.pingback_url) out.pingback_url = callbacks.pingback_url;
  return out;
}

/** Issues of the step's fixed parameters alone, reported once at their place (not once per task). */
export function fixedParamIssues(pipeline: Pipeline, step: PipelineStep): PositionedIssue[] {
  const def = endpoint(step.endpointId);
  if (def.method === 'GET') return [];
  const { names, open } = enumeratedParams(step);
  const body = withCollectFields(step, def, step.params, PLACEHOLDER_CALLBACKS);
  const kp = `steps[${step.index}]`;
  const out: PositionedIssue[] = [];
  for (const i of validateTask(def, body)) {
    const bases = baseFields(i.field);
    if (bases.some((b) => names.has(b))) continue;
    const present = bases.find((b) => b in step.params);
    // A row query may bring any column; only a fixed value's own rule is certain before it runs.
    if (open && !present) continue;
    if (present) {
      const idx = /\[(\d+)\]/.exec(i.field);
      const at = (idx && step.paramItemPlaces[present]?.[Number(idx[1])]) || step.paramPlaces[present] || step.paramsPlace;
      out.push({ ...at, key: `${kp}.params.${i.field.includes('+') ? present : i.field}`, rule: ruleText(i, def) });
    } else {
      out.push({ ...step.paramsPlace, key: i.field.includes('|') ? `${kp}.params` : `${kp}.params.${i.field}`, rule: ruleText(i, def) });
    }
  }
  return out;
}

/** Where an enumerated value's issue is reported, and the note naming the value's own place. */
function blameBound(pipeline: Pipeline, bound: Bound, field: string, base: string): { at: Origin; key: string; note: string } {
  const idx = /\[(\d+)\]/.exec(field);
  const origin = (idx && bound.itemOrigins?.[Number(idx[1])]) || bound.origin;
  const key = bound.axis.kind === 'rows' ? `${bound.axis.keyPath}.${base}` : bound.axis.keyPath;
  const inline = origin.file === pipeline.file && !origin.note;
  if (inline) return { at: origin, key, note: '' };
  const where = origin.note ? origin.note : `value at ${origin.file}:${origin.line}:${origin.column}`;
  return { at: bound.axis.at, key, note: ` (${where})` };
}

/**
 * Issues of one task that involve its enumerated values. With an open row query (no `columns`), an issue no
 * column explains (a required parameter the query did not return) is reported at the rows source.
 */
function taskIssues(pipeline: Pipeline, def: EndpointDef, combo: Binding, issues: ValidationIssue[], openAxis: Axis | undefined): PositionedIssue[] {
  const out: PositionedIssue[] = [];
  for (const i of issues) {
    const base = baseFields(i.field).find((b) => b in combo);
    if (!base) {
      if (openAxis && i.code !== 40506) out.push({ ...openAxis.at, key: openAxis.keyPath, rule: `${i.field}: ${ruleText(i, def)} (not among the query's columns)` });
      continue;
    }
    if (i.code === 40506) continue; // reported once by the schema (for_each / rows names)
    const { at, key, note } = blameBound(pipeline, combo[base], i.field, base);
    // The place names the item; its index within a chunk would mean nothing to the reader.
    const sub = /^[^|+]*\[\d+\]/.test(i.field) ? 'item ' : '';
    out.push({ file: at.file, line: at.line, column: at.column, key, rule: `${sub}${ruleText(i, def)}${note}` });
  }
  return out;
}

function pagingFor(step: PipelineStep, def: EndpointDef, body: Record<string, unknown>): Paging | undefined {
  if (!def.paging) return undefined;
  const rule = def.fields?.limit;
  const fallback = rule && (rule.type === 'integer' || rule.type === 'number') && rule.default !== undefined ? rule.default : 100;
  const pageSize = typeof body.limit === 'number' && body.limit > 0 ? body.limit : fallback;
  const opts = step.paging ?? {};
  let maxPages = opts.maxPages ?? (opts.maxItems !== undefined ? Infinity : 1);
  if (opts.maxItems !== undefined) maxPages = Math.min(maxPages, Math.max(1, Math.ceil(opts.maxItems / pageSize)));
  return { maxPages, ...(opts.maxItems !== undefined ? { maxItems: opts.maxItems } : {}), pageSize };
}

export interface BuildOptions {
  runId: string;
  callbacks?: Callbacks;
  /** Clock for time-window rules. */
  now?: Date;
}

export interface BuildResult {
  tasks: PlannedTask[];
  issues: PositionedIssue[];
  /** Combinations that came out equal to an earlier task of the step (same key) and were dropped. */
  duplicates: number;
}

/** A step's axes with their values read (list and file sources at load, SQL sources by resolveStep). */
export interface ResolvedAxes {
  values: Map<Axis, EnumeratedValue[]>;
  rows: Map<Axis, Record<string, EnumeratedValue>[]>;
}

/** The step's matrix, or the issue that it is too large. */
function matrix(step: PipelineStep, resolved: ResolvedAxes): { perAxis: AxisBindings[]; issue?: PositionedIssue } {
  const perAxis = step.axes.map((a) => axisBindings(a, resolved.values.get(a), resolved.rows.get(a)));
  const total = perAxis.reduce((n, b) => n * b.length, 1);
  if (total > MAX_TASKS_PER_STEP) {
    return { perAxis, issue: { ...(step.axes[0]?.at ?? step.at), key: `steps[${step.index}]`, rule: `expands to ${total} tasks; a step may have at most ${MAX_TASKS_PER_STEP} (split the inputs)` } };
  }
  return { perAxis };
}

/** The body of a combination as written (fixed params and bound values, with the collect fields), before our tag. */
function bodyOf(step: PipelineStep, def: EndpointDef, combo: Binding): Record<string, unknown> {
  const bound: Record<string, unknown> = {};
  for (const [p, b] of Object.entries(combo)) if (b.value !== undefined) bound[p] = b.value;
  return withCollectFields(step, def, { ...step.params, ...bound }, {});
}

/**
 * Checks every task of a step against the catalog's rules without building the tasks (no keys, tags or prices,
 * nothing kept): the pass that proves a step sendable before anything of it is planned.
 */
export function checkTasks(pipeline: Pipeline, step: PipelineStep, resolved: ResolvedAxes, opts: { callbacks?: Callbacks; now?: Date } = {}): PositionedIssue[] {
  const def = endpoint(step.endpointId);
  const { perAxis, issue } = matrix(step, resolved);
  if (issue) return [issue];
  if (def.method !== 'POST') return [];
  const issues: PositionedIssue[] = [];
  const openAxis = step.axes.find((a) => a.kind === 'rows' && !a.columns && a.source.type === 'sql');
  const callbacks = { ...PLACEHOLDER_CALLBACKS, ...(opts.callbacks ?? {}) };
  for (const combo of combinations(perAxis)) {
    if (Object.keys(combo).length === 0) continue;
    const checked = validateTask(def, withCollectFields(step, def, bodyOf(step, def, combo), callbacks), { now: opts.now });
    if (checked.length) issues.push(...taskIssues(pipeline, def, combo, checked, openAxis));
  }
  return issues;
}

/**
 * The tasks of a step, one at a time, in matrix order, NOT checked (checkTasks does that first). `seen` drops a
 * combination whose key came earlier: pass a set per step for exact duplicates, or a fresh set per chunk when
 * the ledger's key drops the rest (so memory does not grow with the step). `onDuplicate` counts the drops.
 */
export function* generateTasks(
  pipeline: Pipeline,
  step: PipelineStep,
  resolved: ResolvedAxes,
  opts: BuildOptions & { seen?: () => Set<string>; onDuplicate?: () => void },
): Generator<PlannedTask> {
  const def = endpoint(step.endpointId);
  const { perAxis, issue } = matrix(step, resolved);
  if (issue) throw new PipelineError([issue]);
  const callbacks = opts.callbacks ?? {};
  for (const combo of combinations(perAxis)) {
    const body = bodyOf(step, def, combo);
    // Keyed by the id the endpoint had first: a run an older version planned under an old id plans the same keys
    // when resumed, so nothing it posted is posted again (docs/architecture.md, "Endpoint ids").
    const key = taskKey(def.formerly ?? def.id, body);
    const seen = opts.seen?.();
    if (seen) {
      if (seen.has(key)) {
        opts.onDuplicate?.();
        continue;
      }
      seen.add(key);
    }
    const userTag = typeof body.tag === 'string' ? body.tag : undefined;
    const params: Record<string, unknown> = withCollectFields(step, def, body, callbacks);
    if (def.fields?.tag) params.tag = tagFor(pipeline.name, step.name, key, userTag);
    const paging = pagingFor(step, def, body);
    const range = taskPriceRange(def, params, pipeline.config.prices);
    yield {
      key,
      runId: opts.runId,
      step: step.name,
      stepIndex: step.index,
      endpointId: def.id,
      params,
      ...(userTag !== undefined ? { userTag } : {}),
      collect: step.collect,
      ...(paging ? { paging } : {}),
      price: range.max,
      ...(range.min < range.max ? { priceMin: range.min } : {}),
    };
  }
}

/** Builds and checks every task of a step whose axes all have their values, as one array (plan, tests). */
export function buildTasks(pipeline: Pipeline, step: PipelineStep, resolved: ResolvedAxes, opts: BuildOptions): BuildResult {
  const issues = checkTasks(pipeline, step, resolved, opts);
  if (issues.length) return { tasks: [], issues, duplicates: 0 };
  const seen = new Set<string>();
  let duplicates = 0;
  const tasks = [...generateTasks(pipeline, step, resolved, { ...opts, seen: () => seen, onDuplicate: () => duplicates++ })];
  return { tasks, issues, duplicates };
}

export interface ExpandOptions extends BuildOptions {
  /** Runs a source query against the warehouse; required for steps that read SQL. */
  query?: QueryFn;
  /** `{run_date}` in source queries; defaults to the run id's date. */
  runDate?: string;
}

/**
 * Reads the step's SQL sources (list and file sources were read at load): the values its matrix takes. Issues
 * are the sources' own (a failing query, a missing column); `queryFailed` when a query could not run at all.
 */
export async function resolveStep(pipeline: Pipeline, step: PipelineStep, opts: ExpandOptions): Promise<{ resolved: ResolvedAxes; issues: PositionedIssue[]; queryFailed: boolean }> {
  const values = new Map<Axis, EnumeratedValue[]>();
  const rows = new Map<Axis, Record<string, EnumeratedValue>[]>();
  const issues: PositionedIssue[] = [];
  const def = endpoint(step.endpointId);
  const vars = { runId: opts.runId, runDate: opts.runDate };
  let queryFailed = false;
  for (const axis of step.axes) {
    const ctx = { def, at: axis.at, keyPath: axis.keyPath };
    if (axis.kind === 'values') {
      // List and file sources are read at load; again if a run released them (releaseStepInputs).
      const read = axis.values ?? readAxisValues(axis, ctx, issues);
      if (read) values.set(axis, read);
      else if (axis.source.type === 'sql') {
        if (!opts.query) throw new Error(`step ${step.name} reads SQL (${axis.keyPath}); expandStep needs a query function`);
        const before = issues.length;
        const v = await queryValues(axis.source, axis.param, opts.query, vars, ctx, issues);
        if (!v) queryFailed ||= issues.slice(before).some((i) => i.key.endsWith('.sql'));
        else values.set(axis, v);
      }
    } else {
      const read = axis.rows ?? readAxisRows(axis, ctx, issues);
      if (read) rows.set(axis, read);
      else if (axis.source.type === 'sql') {
        if (!opts.query) throw new Error(`step ${step.name} reads SQL (${axis.keyPath}); expandStep needs a query function`);
        const before = issues.length;
        const r = await queryRows(axis.source, axis.columns, opts.query, vars, ctx, issues);
        if (!r) queryFailed ||= issues.slice(before).some((i) => i.key.endsWith('.sql'));
        else {
          const taken = new Set([...Object.keys(step.params), ...step.axes.filter((a) => a.kind === 'values').map((a) => (a as { param: string }).param)]);
          const clash = r.length ? Object.keys(r[0]).filter((p) => taken.has(p)) : [];
          if (clash.length) issues.push({ ...axis.at, key: axis.keyPath, rule: `the query's columns ${clash.join(', ')} are also set in params or for_each; set each in one place` });
          else rows.set(axis, r);
        }
      }
    }
  }
  return { resolved: { values, rows }, issues, queryFailed };
}

/** Reads the step's sources and builds and checks its tasks as one array (the plan's estimate; a run streams). */
export async function resolveAndBuild(pipeline: Pipeline, step: PipelineStep, opts: ExpandOptions): Promise<BuildResult & { queryFailed: boolean }> {
  const r = await resolveStep(pipeline, step, opts);
  if (r.issues.length) return { tasks: [], issues: r.issues, duplicates: 0, queryFailed: r.queryFailed };
  return { ...buildTasks(pipeline, step, r.resolved, opts), queryFailed: false };
}
