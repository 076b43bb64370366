/** The shapes a pipeline file becomes: a validated spec, its enumeration axes and the tasks it expands to. */
import type { Config } from '../config/index.js';
import type { EndpointKind } from '../catalog/endpoint.js';
import type { AlertsSpec } from './alerts.js';
import type { PositionedIssue } from '../config/yaml.js';

/** A place in a file; `file` is as the user wrote or passed it (relative to the working directory when inside it). */
export interface Place {
  file: string;
  line: number;
  column: number;
}

/** Where an enumerated value came from: a YAML item, a line of a text/CSV file, or a row of a SQL query. */
export interface Origin extends Place {
  /** `row 3 of the query` for SQL values; absent for file and YAML values. */
  note?: string;
}

/** How a task's results are collected. task_post endpoints choose the first three; live and list are fixed by the endpoint. */
export type CollectMode = 'tasks_ready' | 'pingback' | 'postback' | 'live' | 'list';
export const TASK_COLLECT_MODES = ['tasks_ready', 'pingback', 'postback'] as const;

export interface Paging {
  /** Pages fetched per task at most (the first call counts as page 1). */
  maxPages: number;
  /** Items per task at most; with pageSize it caps pages too. */
  maxItems?: number;
  /** The page size the calls ask for: the task's `limit`, or the endpoint's default. */
  pageSize: number;
}

export interface EnumeratedValue {
  value: unknown;
  origin: Origin;
}

/** Where the values of an axis come from. list and file are read at load time; sql at expansion time. */
export type SourceSpec =
  | { type: 'list'; items: EnumeratedValue[] }
  | { type: 'file'; path: string; display: string; column?: string; limit?: number }
  | { type: 'sql'; sql: string; column?: string; limit?: number };

/**
 * One dimension of a step's matrix. A `values` axis binds one parameter (an array parameter such as
 * keywords_for_keywords' `keywords` gets chunks of up to `chunk` values); a `rows` axis binds several
 * parameters from the columns of each CSV or SQL row.
 */
export type Axis =
  | { kind: 'values'; param: string; source: SourceSpec; chunk?: number; at: Place; keyPath: string; values?: EnumeratedValue[] }
  | { kind: 'rows'; source: Extract<SourceSpec, { type: 'file' } | { type: 'sql' }>; columns?: Record<string, string>; at: Place; keyPath: string; rows?: Record<string, EnumeratedValue>[] };

export interface PipelineStep {
  index: number;
  name: string;
  endpointId: string;
  kind: EndpointKind;
  collect: CollectMode;
  /** Parameters every task of the step carries, as written. */
  params: Record<string, unknown>;
  /** Where each fixed parameter is written (its value for scalars, its key for lists and mappings). */
  paramPlaces: Record<string, Place>;
  /** For list-valued parameters: where each item is written. */
  paramItemPlaces: Record<string, Place[]>;
  /** The step's `params` key, or the step itself when it has none: where a missing parameter is reported. */
  paramsPlace: Place;
  /** The matrix: every combination of the axes' values is one task (list and file values are read at load). */
  axes: Axis[];
  /** Paging options as written (live and list endpoints that page); each task's Paging is derived from them. */
  paging?: { maxPages?: number; maxItems?: number };
  /** The step's own budget (`budget_usd`), USD, besides the pipeline's: posting of this step stops at it. */
  budgetUsd?: number;
  /** True when an axis reads SQL: the step is expanded (and its tasks validated) at run time. */
  deferred: boolean;
  /** The tracked target (`targets:` entry) the step's SERP pages are read for, by name. */
  target?: string;
  at: Place;
}

/** A client or project an agency tracks: its domains, registrable (`client.com`) or not (`blog.client.com`). */
export interface Target {
  name: string;
  domains: string[];
}

export interface Pipeline {
  /** The pipeline file as given, and its absolute path. */
  file: string;
  path: string;
  name: string;
  description?: string;
  budgetUsd: number;
  /** Tracked targets (`targets:`); a step names one with `target:`. */
  targets: Target[];
  /** `schedule:`: how often it runs (hourly, daily, weekly, monthly), for plan's cost per month and year. */
  schedule?: 'hourly' | 'daily' | 'weekly' | 'monthly';
  steps: PipelineStep[];
  /** The `alerts:` section (src/pipeline/alerts.ts), evaluated after each run by src/report. */
  alerts?: AlertsSpec;
  config: Config;
  /** What works but should change, at its place (an endpoint named by an old id); `plan` and `run` print each once. */
  warnings: PositionedIssue[];
}

/** One task to post or call, as the ledger stores it and the queue sends it. */
export interface PlannedTask {
  /** Deterministic: a stable hash of the endpoint and the parameters as written (the user's tag included, ours and callback URLs not). */
  key: string;
  runId: string;
  step: string;
  stepIndex: number;
  endpointId: string;
  /** The body sent (one element of the POST array), our identifying `tag` included; `{}` for GET endpoints. */
  params: Record<string, unknown>;
  /** The tag the user set in the pipeline, kept for the ledger; the service gets ours (see tagFor). */
  userTag?: string;
  collect: CollectMode;
  paging?: Paging;
  /** Price of one call of this task by the configured price table (per page for paged live endpoints). */
  price: number;
  /** The least the task can be billed, where it differs from `price` (SERP crawl control, refundable options). */
  priceMin?: number;
}
