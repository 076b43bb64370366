/**
 * What an endpoint of the API is, as a family declares it: its id, path, kind, request rules and billing. Types and
 * constants only; the endpoint list itself is derived from the registry (src/catalog/catalog.ts).
 */
export const ENGINE_TOKENS = ['engine_a', 'engine_b', 'engine_c', 'engine_d'] as const;
/** Path tokens of the endpoint catalog: the SERP engines, and one per family that names its own segment. */
export const PATH_TOKENS = [...ENGINE_TOKENS, 'keywords_data', 'keywords_data_legacy', 'merchant'] as const;
export type EngineToken = (typeof PATH_TOKENS)[number];
/** The configured segment of each path token (`paths:` in the configuration). */
export type Engines = Record<EngineToken, string>;

export type HttpMethod = 'GET' | 'POST';
export type EndpointKind = 'task_post' | 'tasks_ready' | 'task_get' | 'tasks_fixed' | 'live' | 'list';
/** The endpoint kinds a pipeline step names; the run calls the others itself (tasks_ready, task_get). */
export const STEP_KINDS: ReadonlySet<EndpointKind> = new Set<EndpointKind>(['task_post', 'live', 'list', 'tasks_fixed']);
/** What a task's `result` elements are, named by the family that declares the endpoint; the normalizer has a root table per kind. */
export type ResultKind = string;

export type StringFormat = 'uuid' | 'url' | 'timestamp' | 'coordinate' | 'domain' | 'date' | 'lat_lng';

export type FieldRule =
  | { type: 'string'; required?: boolean; minLength?: number; maxLength?: number; enum?: readonly string[]; format?: StringFormat; tokens?: { min: number; max: number } }
  | {
    type: 'integer'; required?: boolean; min?: number; max?: number; enum?: readonly number[]; /** The service's documented default when the field is left out. */ default?: number;
    /** A string of digits is taken too: a code the models declare as a string that the service documents as an integer (Google Trends' `location_code`). */
    digits?: boolean;
  }
  | { type: 'number'; required?: boolean; min?: number; max?: number; default?: number }
  | { type: 'boolean'; required?: boolean }
  | { type: 'string_array'; required?: boolean; minItems?: number; maxItems?: number; itemMaxLength?: number; itemMaxWords?: number; itemEnum?: readonly string[] }
  /** A list of objects whose fields have rules of their own (SERP `stop_crawl_on_match` targets). */
  | { type: 'object_array'; required?: boolean; minItems?: number; maxItems?: number; fields: Readonly<Record<string, FieldRule>> }
  | { type: 'filters'; maxConditions: number; operators: readonly string[] }
  | { type: 'order_by'; maxRules: number; fields?: readonly string[] }
  /** Any JSON value (objects and lists the models type loosely): only presence is checked. */
  | { type: 'any'; required?: boolean; /** The type the models declare (`LlmMentionsTarget[]`, `map<string>`). */ of?: string };

export type CrossRule =
  /** At least one of these fields must be present ("one of these location parameters"). */
  | { rule: 'one_of_required'; fields: readonly string[] }
  /** `field` is required when `when` is present (postback_data with postback_url). */
  | { rule: 'required_with'; field: string; when: string }
  /** The sum of two integer fields may not exceed max (limit + offset). */
  | { rule: 'sum_max'; fields: readonly [string, string]; max: number; defaults: readonly [number, number] }
  /** Timestamps must fall within the last N days (E13). */
  | { rule: 'within_days'; fields: readonly string[]; days: number }
  /** Either all of these fields or none of them (a date range's two ends). */
  | { rule: 'together'; fields: readonly string[] }
  /**
   * A `yyyy-mm-dd` range `from`..`to`: `past` dates up to yesterday and no more than `maxYearsBack` years ago;
   * `future` dates from tomorrow, `to` after `from` and at most a year ahead.
   */
  | { rule: 'date_range'; from: string; to: string; window: 'past' | 'future'; maxYearsBack?: number }
  /** `field` only works with `needs` set (SERP crawl control: target_search_mode needs stop_crawl_on_match). */
  | { rule: 'needs'; field: string; needs: string }
  /** Two lists that may not share a value (find_targets_in and ignore_targets_in). */
  | { rule: 'disjoint'; fields: readonly [string, string] };

export interface EndpointDef {
  /**
   * Stable name used in pipelines, prices, logs and the ledger: the official client's id of the operation
   * (`merchant.google.products.task_post`), or for an operation the client lacks the family's own (docs/architecture.md, "Endpoint ids").
   */
  id: string;
  /**
   * The id older versions gave it, still taken wherever a user writes an id (pipelines warn, prices, old ledgers,
   * archives and warehouse rows); set where the old declaration was, so the alias table derives from it.
   */
  formerly?: string;
  /** Where the reference defines it (E1..E14), `designed` for the task_post endpoints it leaves out, `live` for what only the live service documents. */
  ref: string;
  method: HttpMethod;
  /** Path template: path tokens (`{engine_a}`..`{engine_d}`, `{keywords_data}`, `{merchant}`, ...) are resolved from config, `{id}` from the call. */
  path: string;
  kind: EndpointKind;
  /** `api`, `function`, `se_type` as the service echoes them in `data`; `se` is the resolved engine. */
  api: string;
  fn: string;
  engine?: EngineToken;
  seType?: string;
  result: ResultKind;
  /** The `version` string this family answers with (it differs between families). */
  version: string;
  description: string;
  /** Request body rules, for POST endpoints. */
  fields?: Readonly<Record<string, FieldRule>>;
  cross?: readonly CrossRule[];
  /** Tasks accepted in one POST; the rest get `overflowCode` (40006 for task posts, 40000 for live calls). */
  maxTasksPerPost?: number;
  overflowCode?: number;
  /** Calls per minute for this endpoint on top of the account-wide limit. */
  perMinute?: number;
  /** Largest page this endpoint returns (tasks_fixed: 1000 tasks per call). */
  maxResultsPerCall?: number;
  /** Where the price table bills: at posting (task_post), per request (live) or never. */
  billing: 'post' | 'request' | 'free';
  /** Results billed as one page, by device (SERP depth is billed per started page). */
  billedPage?: { desktop: number; mobile?: number };
  /** Sibling endpoints of a task family, by id: derived from the family's ids (taskSiblings, src/families/generated.ts), never written. */
  readyId?: string;
  getId?: string;
  postId?: string;
  /** Paging the endpoint supports. */
  paging?: 'limit_offset_token' | 'search_after_token' | 'limit_offset';
  /** For endpoints generated from the official client (src/families/generated/): its models and method. */
  model?: { client: string; result: string; request?: string };
}

/** Every tasks_ready endpoint of the live service: 20 calls a minute each, at most 1000 ids per call (docs/api-live.md). */
export const TASKS_READY_LIMITS = { perMinute: 20, maxResultsPerCall: 1000 } as const;

