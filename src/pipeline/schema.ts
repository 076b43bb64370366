/**
 * The pipeline file's schema, checked on the YAML nodes themselves so that every problem points at the line and
 * column where it is written. It collects every issue instead of stopping at the first; endpoint parameter rules
 * are not repeated here (they come from the catalog through validateTask, see expand.ts).
 */
import path from 'node:path';
import { isAlias, isMap, isScalar, isSeq, type Document, type Node, type Pair, type YAMLMap } from 'yaml';
import { ENDPOINTS, findEndpoint } from '../api/catalog.js';
import { STEP_KINDS, type EndpointDef, type FieldRule } from '../catalog/endpoint.js';
import type { Config } from '../config/index.js';
import type { PositionedIssue } from '../config/yaml.js';
import { NAME_PATTERN, NAME_RULE } from './key.js';
import { TASK_COLLECT_MODES, type Target, type Axis, type CollectMode, type EnumeratedValue, type PipelineStep, type Place, type SourceSpec } from './types.js';
import { suggest } from '../config/suggest.js';
import { readAlerts, type AlertsSpec } from './alerts.js';

/**
 * What the schema walk yields before file sources are read: a PipelineStep without what is known only later
 * (its kind and whether it reads SQL follow from the endpoint and the axes), and the endpoint when it is known.
 */
export type StepDraft = Omit<PipelineStep, 'kind' | 'deferred'> & { def?: EndpointDef; targetPlace?: Place };

export interface PipelineDraft {
  name: string;
  description?: string;
  budgetUsd: number;
  targets: Target[];
  schedule?: (typeof SCHEDULES)[number];
  steps: StepDraft[];
  alerts?: AlertsSpec;
}

const TOP_KEYS = ['name', 'description', 'budget_usd', 'targets', 'schedule', 'steps', 'alerts'];
const STEP_KEYS = ['name', 'description', 'endpoint', 'target', 'params', 'for_each', 'rows', 'collect', 'paging', 'budget_usd'];
const TARGET_KEYS = ['name', 'domains'];
/** A domain as a tracked target names it: lower-case host name, no scheme or path (`blog.client.com`). */
const TARGET_DOMAIN = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63})+$/;
/** How often a pipeline runs (`schedule:`), for plan's cost per month and year. */
export const SCHEDULES = ['hourly', 'daily', 'weekly', 'monthly'] as const;
const SOURCE_KEYS = ['values', 'file', 'sql', 'column', 'limit', 'chunk'];
const ROWS_KEYS = ['file', 'sql', 'columns', 'limit'];
const PAGING_KEYS = ['max_pages', 'max_items'];
/** Set by the run from `collect` and the webhook receiver; a pipeline never writes them. */
export const CALLBACK_FIELDS = ['pingback_url', 'postback_url'];
export const MAX_TASKS_PER_STEP = 1_000_000;

export class SchemaReader {
  readonly issues: PositionedIssue[] = [];
  constructor(
    readonly doc: Document,
    readonly file: string,
    readonly position: (offset: number) => { line: number; column: number },
  ) {}

  place(node: unknown, fallback?: Place): Place {
    const range = (node as Node | null | undefined)?.range;
    if (range) return { file: this.file, ...this.position(range[0]) };
    return fallback ?? { file: this.file, line: 1, column: 1 };
  }

  issue(at: Place, key: string, rule: string): void {
    this.issues.push({ ...at, key, rule });
  }

  /** What still works but should change (an endpoint's old id): once per `once`, at its first place. */
  readonly warnings: PositionedIssue[] = [];
  private readonly warned = new Set<string>();
  warn(at: Place, key: string, rule: string, once: string = rule): void {
    if (this.warned.has(once)) return;
    this.warned.add(once);
    this.warnings.push({ ...at, key, rule });
  }

  resolve(node: unknown): Node | null {
    if (isAlias(node)) return (node.resolve(this.doc) as Node | undefined) ?? null;
    return (node as Node | null) ?? null;
  }

  toJS(node: Node | null): unknown {
    if (!node) return null;
    return (node as any).toJS(this.doc, { maxAliasCount: 100 });
  }

  /** The entries of a mapping, with unknown keys reported (with a hint) and required ones checked. */
  entries(node: Node, keyPath: string, allowed: readonly string[], required: readonly string[] = []): Map<string, { keyPlace: Place; value: Node | null; pair: Pair }> {
    const out = new Map<string, { keyPlace: Place; value: Node | null; pair: Pair }>();
    if (!isMap(node)) return out;
    for (const pair of (node as YAMLMap).items) {
      const k = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const keyPlace = this.place(pair.key, this.place(node));
      if (!allowed.includes(k)) {
        this.issue(keyPlace, join(keyPath, k), `unknown key${suggest(k, allowed)}; allowed: ${allowed.join(', ')}`);
        continue;
      }
      out.set(k, { keyPlace, value: this.resolve(pair.value), pair });
    }
    for (const r of required) {
      if (!out.has(r)) this.issue(this.place(node), join(keyPath, r), 'required key is missing');
    }
    return out;
  }

  expectMap(node: Node | null, at: Place, keyPath: string, what: string): node is YAMLMap {
    if (isMap(node)) return true;
    this.issue(node ? this.place(node, at) : at, keyPath, `must be ${what} (got ${kindOf(node)})`);
    return false;
  }

  string(node: Node | null, at: Place, keyPath: string, opts: { pattern?: RegExp; patternRule?: string; allowEmpty?: boolean } = {}): string | undefined {
    const v = isScalar(node) ? node.value : undefined;
    if (typeof v !== 'string' || (!opts.allowEmpty && v.trim() === '')) {
      this.issue(this.place(node, at), keyPath, `must be a ${opts.allowEmpty ? '' : 'non-empty '}string (got ${kindOf(node)})`);
      return undefined;
    }
    if (opts.pattern && !opts.pattern.test(v)) {
      this.issue(this.place(node, at), keyPath, `${opts.patternRule ?? `must match ${opts.pattern}`} (got ${JSON.stringify(v)})`);
      return undefined;
    }
    return v;
  }

  number(node: Node | null, at: Place, keyPath: string, opts: { integer?: boolean; min?: number; max?: number } = {}): number | undefined {
    const v = isScalar(node) ? node.value : undefined;
    const what = opts.integer ? 'a whole number' : 'a number';
    if (typeof v !== 'number' || !Number.isFinite(v) || (opts.integer && !Number.isInteger(v))) {
      this.issue(this.place(node, at), keyPath, `must be ${what} (got ${kindOf(node)})`);
      return undefined;
    }
    if ((opts.min !== undefined && v < opts.min) || (opts.max !== undefined && v > opts.max)) {
      const range = opts.max === undefined ? `at least ${opts.min}` : opts.min === undefined ? `at most ${opts.max}` : `from ${opts.min} to ${opts.max}`;
      this.issue(this.place(node, at), keyPath, `must be ${range} (got ${v})`);
      return undefined;
    }
    return v;
  }
}

export function join(keyPath: string, k: string | number): string {
  if (typeof k === 'number') return `${keyPath}[${k}]`;
  return keyPath ? `${keyPath}.${k}` : k;
}

export function kindOf(node: Node | null | undefined): string {
  if (node === null || node === undefined) return 'nothing';
  if (isMap(node)) return 'a mapping';
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) {
    const v = node.value;
    if (v === null) return 'null';
    if (typeof v === 'string') return v.length > 40 ? `a string of ${v.length} characters` : `"${v}"`;
    return String(v);
  }
  return 'an unsupported value';
}

/** Where a source's file is, as the user sees it: relative to the working directory when inside it. */
export function displayPath(abs: string): string {
  const rel = path.relative(process.cwd(), abs);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : abs;
}

/** Whether a parameter takes an array of strings (keywords_for_keywords' `keywords`): enumerated values are then chunked. */
export function arrayRule(def: EndpointDef | undefined, param: string): Extract<FieldRule, { type: 'string_array' }> | undefined {
  const rule = def?.fields?.[param];
  return rule?.type === 'string_array' ? rule : undefined;
}

function readSource(
  r: SchemaReader,
  node: Node | null,
  at: Place,
  keyPath: string,
  pipelineDir: string,
  opts: { rows: boolean; chunkRule?: Extract<FieldRule, { type: 'string_array' }> },
): { source?: SourceSpec; chunk?: number; columns?: Record<string, string> } {
  if (isSeq(node)) {
    if (opts.rows) {
      r.issue(r.place(node, at), keyPath, 'must be a source: { file: <csv> } or { sql: <query> }');
      return {};
    }
    const items: EnumeratedValue[] = node.items.map((item) => {
      const resolved = r.resolve(item);
      return { value: r.toJS(resolved), origin: r.place(resolved ?? item, r.place(node, at)) };
    });
    if (items.length === 0) r.issue(r.place(node, at), keyPath, 'must hold at least one value');
    return { source: { type: 'list', items }, chunk: opts.chunkRule?.maxItems ?? (opts.chunkRule ? 200 : undefined) };
  }
  if (!isMap(node)) {
    r.issue(r.place(node, at), keyPath, opts.rows
      ? `must be a source: { file: <csv> } or { sql: <query> } (got ${kindOf(node)})`
      : `must be a list of values or a source: { values: [...] }, { file: <path> } or { sql: <query> } (got ${kindOf(node)})`);
    return {};
  }
  const e = r.entries(node, keyPath, opts.rows ? ROWS_KEYS : SOURCE_KEYS);
  const kinds = (opts.rows ? ['file', 'sql'] : ['values', 'file', 'sql']).filter((k) => e.has(k));
  if (kinds.length !== 1) {
    r.issue(r.place(node, at), keyPath, kinds.length === 0
      ? `needs one of ${opts.rows ? 'file, sql' : 'values, file, sql'}`
      : `takes one of ${kinds.join(', ')}, not several`);
    return {};
  }
  const column = e.has('column') ? r.string(e.get('column')!.value, e.get('column')!.keyPlace, join(keyPath, 'column')) : undefined;
  const limitEntry = e.get('limit');
  const limit = limitEntry ? r.number(limitEntry.value, limitEntry.keyPlace, join(keyPath, 'limit'), { integer: true, min: 1 }) : undefined;
  let chunk: number | undefined;
  const chunkEntry = e.get('chunk');
  if (chunkEntry) {
    if (!opts.chunkRule) {
      r.issue(chunkEntry.keyPlace, join(keyPath, 'chunk'), 'only for array parameters such as keywords_for_keywords keywords');
    } else {
      // A bad chunk is reported once; the values are still chunked (by the default) so they are checked as items.
      chunk = r.number(chunkEntry.value, chunkEntry.keyPlace, join(keyPath, 'chunk'), { integer: true, min: 1, max: opts.chunkRule.maxItems }) ?? opts.chunkRule.maxItems ?? 200;
    }
  } else if (opts.chunkRule) chunk = opts.chunkRule.maxItems ?? 200;
  let columns: Record<string, string> | undefined;
  const columnsEntry = e.get('columns');
  if (columnsEntry && r.expectMap(columnsEntry.value, columnsEntry.keyPlace, join(keyPath, 'columns'), 'a mapping of parameter: column')) {
    columns = {};
    for (const pair of (columnsEntry.value as YAMLMap).items) {
      const param = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const col = r.string(r.resolve(pair.value), r.place(pair.key), join(join(keyPath, 'columns'), param));
      if (col !== undefined) columns[param] = col;
    }
  }
  const kind = kinds[0];
  const entry = e.get(kind)!;
  const kp = join(keyPath, kind);
  if (kind === 'values') {
    if (!isSeq(entry.value)) {
      r.issue(r.place(entry.value, entry.keyPlace), kp, `must be a list (got ${kindOf(entry.value)})`);
      return {};
    }
    const inner = readSource(r, entry.value, entry.keyPlace, kp, pipelineDir, { rows: false, chunkRule: opts.chunkRule });
    const src = inner.source as Extract<SourceSpec, { type: 'list' }> | undefined;
    return src ? { source: { type: 'list', items: limit ? src.items.slice(0, limit) : src.items }, chunk } : {};
  }
  if (kind === 'file') {
    const f = r.string(entry.value, entry.keyPlace, kp);
    if (f === undefined) return {};
    const abs = path.resolve(pipelineDir, f);
    return { source: { type: 'file', path: abs, display: displayPath(abs), column, limit }, chunk, columns };
  }
  const sql = r.string(entry.value, entry.keyPlace, kp);
  if (sql === undefined) return {};
  return { source: { type: 'sql', sql, column, limit }, chunk, columns };
}

/** Walks the pipeline document; returns the draft (possibly partial) and leaves every issue on the reader. */
export function readPipelineSchema(r: SchemaReader, config: Config, pipelineDir: string, env: NodeJS.ProcessEnv = process.env): PipelineDraft | undefined {
  const root = r.resolve(r.doc.contents);
  const rootPlace = r.place(root);
  if (!r.expectMap(root, rootPlace, '', 'a mapping with name, budget_usd and steps')) return undefined;
  const top = r.entries(root, '', TOP_KEYS, ['name', 'budget_usd', 'steps']);
  const name = top.has('name') ? r.string(top.get('name')!.value, top.get('name')!.keyPlace, 'name', { pattern: NAME_PATTERN, patternRule: NAME_RULE }) : undefined;
  const description = top.has('description') ? r.string(top.get('description')!.value, top.get('description')!.keyPlace, 'description', { allowEmpty: true }) : undefined;
  const budgetUsd = top.has('budget_usd') ? r.number(top.get('budget_usd')!.value, top.get('budget_usd')!.keyPlace, 'budget_usd', { min: 0 }) : undefined;
  const targets = top.has('targets') ? readTargets(r, top.get('targets')!.value, top.get('targets')!.keyPlace) : [];
  let schedule: PipelineDraft['schedule'];
  const scheduleEntry = top.get('schedule');
  if (scheduleEntry) {
    const v = r.string(scheduleEntry.value, scheduleEntry.keyPlace, 'schedule');
    if (v !== undefined && !(SCHEDULES as readonly string[]).includes(v)) r.issue(r.place(scheduleEntry.value), 'schedule', `must be one of ${SCHEDULES.join(', ')} (got "${v}")${suggest(v, SCHEDULES)}`);
    else if (v !== undefined) schedule = v as PipelineDraft['schedule'];
  }
  const steps: StepDraft[] = [];
  const stepsEntry = top.get('steps');
  if (stepsEntry) {
    const seq = stepsEntry.value;
    if (!isSeq(seq) || seq.items.length === 0) {
      r.issue(r.place(seq, stepsEntry.keyPlace), 'steps', `must be a non-empty list of steps (got ${kindOf(seq)})`);
    } else {
      const names = new Map<string, number>();
      seq.items.forEach((item, index) => {
        const step = readStep(r, r.resolve(item), index, r.place(item, stepsEntry.keyPlace), config, pipelineDir);
        if (!step) return;
        const prev = names.get(step.name);
        if (prev !== undefined) r.issue(step.at, `steps[${index}].name`, `duplicate step name "${step.name}" (also steps[${prev}])`);
        else names.set(step.name, index);
        if (step.target !== undefined && !targets.some((t) => t.name === step.target)) {
          const known = targets.map((t) => t.name);
          r.issue(step.targetPlace ?? step.at, `steps[${index}].target`, `no target "${step.target}" under targets:${suggest(step.target, known)}${known.length ? `; declared: ${known.join(', ')}` : ' (declare it there with its domains)'}`);
        }
        steps.push(step);
      });
    }
  }
  const alertsEntry = top.get('alerts');
  const alerts = alertsEntry ? readAlerts(r, alertsEntry.value, alertsEntry.keyPlace, config, env, targets) : undefined;
  // Carry on with stand-ins so the steps are checked too: the reader already holds the issues that make this fail.
  return { name: name ?? 'invalid', description, budgetUsd: budgetUsd ?? 0, targets, ...(schedule ? { schedule } : {}), steps, ...(alerts ? { alerts } : {}) };
}

/** `targets:` a list of { name, domains }: names unique, domains host names without scheme, path or `www.`. */
function readTargets(r: SchemaReader, node: Node | null, at: Place): Target[] {
  if (!isSeq(node) || node.items.length === 0) {
    r.issue(r.place(node, at), 'targets', `must be a non-empty list of { name, domains } (got ${kindOf(node)})`);
    return [];
  }
  const out: Target[] = [];
  const seen = new Set<string>();
  node.items.forEach((item, i) => {
    const kp = `targets[${i}]`;
    const n = r.resolve(item);
    if (!r.expectMap(n, r.place(item, at), kp, 'a mapping with name and domains')) return;
    const e = r.entries(n, kp, TARGET_KEYS, TARGET_KEYS);
    const name = e.has('name') ? r.string(e.get('name')!.value, e.get('name')!.keyPlace, `${kp}.name`, { pattern: NAME_PATTERN, patternRule: NAME_RULE }) : undefined;
    if (name !== undefined && seen.has(name)) r.issue(e.get('name')!.keyPlace, `${kp}.name`, `duplicate target name "${name}"`);
    if (name !== undefined) seen.add(name);
    const d = e.get('domains');
    const domains: string[] = [];
    if (d) {
      if (!isSeq(d.value) || d.value.items.length === 0) r.issue(r.place(d.value, d.keyPlace), `${kp}.domains`, `must be a non-empty list of domains (got ${kindOf(d.value)})`);
      else d.value.items.forEach((dn, j) => {
        const v = r.string(r.resolve(dn), r.place(dn, d.keyPlace), `${kp}.domains[${j}]`, { pattern: TARGET_DOMAIN, patternRule: 'must be a lower-case domain such as client.com or blog.client.com, without https:// or a path' });
        if (v !== undefined) domains.push(v.replace(/^www\./, ''));
      });
    }
    if (name !== undefined && domains.length) out.push({ name, domains });
  });
  return out;
}

/** A mapping's entries as SchemaReader.entries returns them. */
type Entries = ReturnType<SchemaReader['entries']>;

function readStep(r: SchemaReader, node: Node | null, index: number, at: Place, config: Config, pipelineDir: string): StepDraft | undefined {
  const kp = `steps[${index}]`;
  if (!r.expectMap(node, at, kp, 'a mapping with name, endpoint and params')) return undefined;
  const stepAt = r.place(node, at);
  const e = r.entries(node, kp, STEP_KEYS, ['name', 'endpoint']);
  const name = e.has('name') ? r.string(e.get('name')!.value, e.get('name')!.keyPlace, `${kp}.name`, { pattern: NAME_PATTERN, patternRule: NAME_RULE }) : undefined;
  if (e.has('description')) r.string(e.get('description')!.value, e.get('description')!.keyPlace, `${kp}.description`, { allowEmpty: true });
  const { endpointId, def } = readStepEndpoint(r, e, kp);
  const { target, targetPlace } = readStepTarget(r, e, kp, def);
  const collect = readCollect(r, e, kp, def);
  const fixed = readParams(r, e, kp, def, collect, stepAt);
  const axes = readAxes(r, e, kp, def, fixed.params, pipelineDir);
  const paging = readPaging(r, e, kp, def);

  // A step's own budget, besides the pipeline's: a step early in the file cannot starve the later ones.
  const budgetEntry = e.get('budget_usd');
  const budgetUsd = budgetEntry ? r.number(budgetEntry.value, budgetEntry.keyPlace, `${kp}.budget_usd`, { min: 0 }) : undefined;

  void config;
  if (name === undefined || endpointId === undefined) return undefined;
  return { index, name, endpointId, def, collect, ...fixed, axes, paging, ...(budgetUsd !== undefined ? { budgetUsd } : {}), ...(target !== undefined ? { target, targetPlace } : {}), at: stepAt };
}

/** The step's endpoint: its id as written, and its definition when it is one a step can name. */
function readStepEndpoint(r: SchemaReader, e: Entries, kp: string): { endpointId?: string; def?: EndpointDef } {
  let def: EndpointDef | undefined;
  const endpointEntry = e.get('endpoint');
  const endpointId = endpointEntry ? r.string(endpointEntry.value, endpointEntry.keyPlace, `${kp}.endpoint`) : undefined;
  if (endpointId !== undefined) {
    const found = findEndpoint(endpointId);
    const stepIds = ENDPOINTS.filter((d) => STEP_KINDS.has(d.kind)).map((d) => d.id);
    if (!found) {
      // The did-you-mean, not ~100 ids on one line; the full list is a page of the docs.
      const hint = suggest(endpointId, stepIds);
      r.issue(r.place(endpointEntry!.value), `${kp}.endpoint`, `unknown endpoint "${endpointId}"${hint}${hint ? '' : `; the ${stepIds.length} endpoints a step can name are listed in docs/pipelines.md ("Endpoints a step can name")`}`);
    } else if (!STEP_KINDS.has(found.kind)) {
      const post = found.postId ? `; name ${found.postId} and choose collect: tasks_ready, pingback or postback` : '';
      r.issue(r.place(endpointEntry!.value), `${kp}.endpoint`, `${endpointId} is a ${found.kind} endpoint the run calls itself, not a step${post}`);
    } else def = found;
    if (found && found.id !== endpointId) {
      r.warn(r.place(endpointEntry!.value), `${kp}.endpoint`, `"${endpointId}" is an old id of ${found.id}: it still works; write ${found.id}`, endpointId);
    }
  }
  return { endpointId, def };
}

/** The tracked target the step's pages are read for (SERP result pages only). */
function readStepTarget(r: SchemaReader, e: Entries, kp: string, def: EndpointDef | undefined): { target?: string; targetPlace?: Place } {
  const targetEntry = e.get('target');
  if (!targetEntry) return {};
  const target = r.string(targetEntry.value, targetEntry.keyPlace, `${kp}.target`);
  const targetPlace = r.place(targetEntry.value, targetEntry.keyPlace);
  if (target !== undefined && def && def.api !== 'serp') r.issue(targetPlace, `${kp}.target`, `only for SERP steps; ${def.id} has no result pages to track a domain on`);
  return { target, targetPlace };
}

/** Collection mode: chosen for task_post endpoints, fixed by the endpoint otherwise. */
function readCollect(r: SchemaReader, e: Entries, kp: string, def: EndpointDef | undefined): CollectMode {
  let collect: CollectMode = def?.kind === 'task_post' ? 'tasks_ready' : def?.kind === 'live' ? 'live' : 'list';
  const collectEntry = e.get('collect');
  if (collectEntry) {
    const c = r.string(collectEntry.value, collectEntry.keyPlace, `${kp}.collect`);
    if (c !== undefined && def) {
      if (def.kind !== 'task_post') {
        r.issue(r.place(collectEntry.value), `${kp}.collect`, `only for task_post endpoints; ${def.id} is ${def.kind === 'live' ? 'a live endpoint (its result comes with the call)' : 'a list endpoint'}`);
      } else if (!(TASK_COLLECT_MODES as readonly string[]).includes(c)) {
        r.issue(r.place(collectEntry.value), `${kp}.collect`, `must be one of ${TASK_COLLECT_MODES.join(', ')} (got "${c}")${suggest(c, TASK_COLLECT_MODES)}`);
      } else if (c !== 'tasks_ready' && !def.fields?.[`${c}_url`]) {
        r.issue(r.place(collectEntry.value), `${kp}.collect`, `${def.id} takes no ${c}_url`);
      } else collect = c as CollectMode;
    }
  }
  return collect;
}

/** The step's fixed parameters, and where each (and each item of a list) is written. */
function readParams(r: SchemaReader, e: Entries, kp: string, def: EndpointDef | undefined, collect: CollectMode, stepAt: Place): Pick<StepDraft, 'params' | 'paramPlaces' | 'paramItemPlaces' | 'paramsPlace'> {
  const params: Record<string, unknown> = {};
  const paramPlaces: Record<string, Place> = {};
  const paramItemPlaces: Record<string, Place[]> = {};
  const paramsEntry = e.get('params');
  const paramsPlace = paramsEntry?.keyPlace ?? stepAt;
  if (paramsEntry && paramsEntry.value !== null && !(isScalar(paramsEntry.value) && paramsEntry.value.value === null)) {
    if (r.expectMap(paramsEntry.value, paramsEntry.keyPlace, `${kp}.params`, 'a mapping of parameter: value')) {
      for (const pair of (paramsEntry.value as YAMLMap).items) {
        const k = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        const v = r.resolve(pair.value);
        params[k] = r.toJS(v);
        paramPlaces[k] = isMap(v) || isSeq(v) || !v ? r.place(pair.key) : r.place(v);
        if (isSeq(v)) paramItemPlaces[k] = v.items.map((it) => r.place(it, r.place(pair.key)));
        if (CALLBACK_FIELDS.includes(k)) {
          r.issue(r.place(pair.key), `${kp}.params.${k}`, `set by the run: choose collect: ${k.replace('_url', '')} and the webhook receiver's address is filled in`);
        }
      }
    }
  }
  if (def && def.method === 'GET' && Object.keys(params).length > 0) {
    r.issue(paramsPlace, `${kp}.params`, `${def.id} is a GET endpoint and takes no parameters`);
  }
  if ('postback_data' in params && collect !== 'postback') {
    r.issue(paramPlaces.postback_data, `${kp}.params.postback_data`, 'only with collect: postback');
  }
  return { params, paramPlaces, paramItemPlaces, paramsPlace };
}

/** The step's enumeration (`for_each` values and `rows`), outermost first in the order the file writes them. */
function readAxes(r: SchemaReader, e: Entries, kp: string, def: EndpointDef | undefined, params: Record<string, unknown>, pipelineDir: string): Axis[] {
  const axes: Axis[] = [];
  const bound = new Map<string, string>();
  const forEach = e.get('for_each');
  if (forEach && r.expectMap(forEach.value, forEach.keyPlace, `${kp}.for_each`, 'a mapping of parameter: values')) {
    for (const pair of (forEach.value as YAMLMap).items) {
      const param = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const keyPlace = r.place(pair.key);
      const axisPath = `${kp}.for_each.${param}`;
      if (def && def.method === 'GET') {
        r.issue(keyPlace, axisPath, `${def.id} is a GET endpoint and takes no parameters`);
        continue;
      }
      if (def && !def.fields?.[param]) {
        r.issue(keyPlace, axisPath, `is not a parameter of ${def.id}${suggest(param, Object.keys(def.fields ?? {}))}`);
        continue;
      }
      if (CALLBACK_FIELDS.includes(param)) {
        r.issue(keyPlace, axisPath, `set by the run: choose collect: ${param.replace('_url', '')}`);
        continue;
      }
      if (param in params) r.issue(keyPlace, axisPath, `is also set in ${kp}.params; set it in one place`);
      const chunkRule = arrayRule(def, param);
      const src = readSource(r, r.resolve(pair.value), keyPlace, axisPath, pipelineDir, { rows: false, chunkRule });
      if (!src.source) continue;
      bound.set(param, axisPath);
      axes.push({ kind: 'values', param, source: src.source, chunk: src.chunk, at: keyPlace, keyPath: axisPath });
    }
  }
  const rows = readRowsAxis(r, e, kp, def, params, bound, pipelineDir);
  if (rows) axes.push(rows);

  // The matrix nests in the order the file writes its axes: the first written is the outermost.
  axes.sort((a, b) => a.at.line - b.at.line || a.at.column - b.at.column);
  return axes;
}

/** The step's `rows` axis: a file or query whose columns bind parameters, none bound elsewhere. */
function readRowsAxis(r: SchemaReader, e: Entries, kp: string, def: EndpointDef | undefined, params: Record<string, unknown>, bound: ReadonlyMap<string, string>, pipelineDir: string): Axis | undefined {
  const rowsEntry = e.get('rows');
  if (!rowsEntry) return undefined;
  if (def && def.method === 'GET') {
    r.issue(rowsEntry.keyPlace, `${kp}.rows`, `${def.id} is a GET endpoint and takes no parameters`);
    return undefined;
  }
  const src = readSource(r, rowsEntry.value, rowsEntry.keyPlace, `${kp}.rows`, pipelineDir, { rows: true });
  if (!src.source || src.source.type === 'list') return undefined;
  for (const param of Object.keys(src.columns ?? {})) {
    if (def && !def.fields?.[param]) r.issue(rowsEntry.keyPlace, `${kp}.rows.columns.${param}`, `is not a parameter of ${def.id}${suggest(param, Object.keys(def.fields ?? {}))}`);
    if (param in params || bound.has(param)) r.issue(rowsEntry.keyPlace, `${kp}.rows.columns.${param}`, 'is also set in params or for_each; set it in one place');
  }
  if (src.source.column !== undefined) r.issue(rowsEntry.keyPlace, `${kp}.rows.column`, 'rows bind every column; use columns: { parameter: column } to pick and rename');
  return { kind: 'rows', source: src.source, columns: src.columns, at: rowsEntry.keyPlace, keyPath: `${kp}.rows` };
}

/** Paging of live and list endpoints that page. */
function readPaging(r: SchemaReader, e: Entries, kp: string, def: EndpointDef | undefined): StepDraft['paging'] {
  const pagingEntry = e.get('paging');
  if (!pagingEntry || !def) return undefined;
  if (!def.paging) {
    r.issue(pagingEntry.keyPlace, `${kp}.paging`, `${def.id} does not page${def.kind === 'task_post' ? ' (task results come whole)' : ''}`);
    return undefined;
  }
  if (!r.expectMap(pagingEntry.value, pagingEntry.keyPlace, `${kp}.paging`, 'a mapping with max_pages and/or max_items')) return undefined;
  const pe = r.entries(pagingEntry.value, `${kp}.paging`, PAGING_KEYS);
  const paging: NonNullable<StepDraft['paging']> = {};
  if (pe.has('max_pages')) paging.maxPages = r.number(pe.get('max_pages')!.value, pe.get('max_pages')!.keyPlace, `${kp}.paging.max_pages`, { integer: true, min: 1 });
  if (pe.has('max_items')) paging.maxItems = r.number(pe.get('max_items')!.value, pe.get('max_items')!.keyPlace, `${kp}.paging.max_items`, { integer: true, min: 1 });
  return paging;
}
