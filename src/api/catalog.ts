/**
 * The endpoint catalog: every endpoint of the API reference (E1-E14) and the task_post endpoints the reference
 * leaves out, defined once. The client, the local validator, the planner's pricing and the embedded sandbox all
 * read these entries; nothing else in the project spells a path or a request rule.
 */
import { PATH_TOKENS, type Engines, type EngineToken } from '../config/index.js';
import { KEYWORDS_ADS_ENDPOINTS } from './endpoints/keywords-ads.js';
import { SERP_ENDPOINTS } from './endpoints/serp.js';
import { APPENDIX_ENDPOINTS } from './endpoints/appendix.js';

export type HttpMethod = 'GET' | 'POST';
export type EndpointKind = 'task_post' | 'tasks_ready' | 'task_get' | 'tasks_fixed' | 'live' | 'list';

/** What a task's `result` elements are; the normalizer has one entry per kind. */
export type ResultKind =
  | 'task_created'
  | 'keyword_data'
  | 'ready_list'
  | 'serp_endpoints'
  | 'paraphrase'
  | 'events_locations'
  | 'fixed_tasks'
  | 'events_serp'
  | 'events_html'
  | 'merchant_shopping'
  | 'merchant_html'
  | 'onpage_resources'
  | 'domain_errors'
  | 'domain_technologies'
  // The ads-based keyword API (src/api/endpoints/keywords-ads.ts).
  | 'keyword_ads_data'
  | 'ad_traffic'
  | 'keyword_ads_status'
  | 'keyword_ads_locations'
  | 'keyword_ads_languages'
  // SERP result pages (src/api/endpoints/serp.ts).
  | 'serp_advanced' | 'serp_regular' | 'serp_html' | 'serp_locations' | 'serp_languages'
  // The account (src/api/endpoints/appendix.ts).
  | 'user_data';

export type StringFormat = 'uuid' | 'url' | 'timestamp' | 'coordinate' | 'domain' | 'date' | 'lat_lng';

export type FieldRule =
  | { type: 'string'; required?: boolean; minLength?: number; maxLength?: number; enum?: readonly string[]; format?: StringFormat; tokens?: { min: number; max: number } }
  | { type: 'integer'; required?: boolean; min?: number; max?: number; enum?: readonly number[]; /** The service's documented default when the field is left out. */ default?: number }
  | { type: 'number'; required?: boolean; min?: number; max?: number }
  | { type: 'boolean'; required?: boolean }
  | { type: 'string_array'; required?: boolean; minItems?: number; maxItems?: number; itemMaxLength?: number; itemMaxWords?: number; itemEnum?: readonly string[] }
  /** A list of objects whose fields have rules of their own (SERP `stop_crawl_on_match` targets). */
  | { type: 'object_array'; required?: boolean; minItems?: number; maxItems?: number; fields: Readonly<Record<string, FieldRule>> }
  | { type: 'filters'; maxConditions: number; operators: readonly string[] }
  | { type: 'order_by'; maxRules: number; fields?: readonly string[] };

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
  /** Stable name used in pipelines, prices, logs and the ledger, e.g. `merchant.products.task_post`. */
  id: string;
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
  /** Sibling endpoints of a task family, by id. */
  readyId?: string;
  getId?: string;
  postId?: string;
  /** Paging the endpoint supports. */
  paging?: 'limit_offset_token' | 'search_after_token' | 'limit_offset';
}

const TAG: FieldRule = { type: 'string', maxLength: 255 };
const CALLBACKS = {
  pingback_url: { type: 'string', format: 'url', maxLength: 2048 },
  postback_url: { type: 'string', format: 'url', maxLength: 2048 },
} as const satisfies Record<string, FieldRule>;
const LOCATION = {
  location_code: { type: 'integer', min: 1 },
  location_name: { type: 'string', minLength: 1, maxLength: 255 },
  language_code: { type: 'string', minLength: 2, maxLength: 10 },
  language_name: { type: 'string', minLength: 1, maxLength: 100 },
} as const satisfies Record<string, FieldRule>;
const FILTER_OPERATORS = ['regex', 'not_regex', '<', '<=', '>', '>=', '=', '<>', 'in', 'not_in', 'like', 'not_like'] as const;
const HTML_TERMS_OPERATORS = ['<', '<=', '>', '>=', '=', '<>', 'in', 'not_in', 'like', 'not_like'] as const;
export const HTML_TERMS_ORDER_FIELDS = ['domain_rank', 'domain', 'last_visited', 'country_iso_code', 'language_code', 'content_language_code'] as const;

const keywordTaskFields = {
  ...LOCATION,
  search_partners: { type: 'boolean' },
  sort_by: { type: 'string', enum: ['relevance', 'search_volume', 'competition', 'cpc'] },
  tag: TAG,
  ...CALLBACKS,
} as const satisfies Record<string, FieldRule>;

/** Every tasks_ready endpoint of the live service: 20 calls a minute each, at most 1000 ids per call (docs/api-live.md). */
export const TASKS_READY_LIMITS = { perMinute: 20, maxResultsPerCall: 1000 } as const;

/** The family-wide limits applied to every entry of a kind, so a new family's tasks_ready gets them too. */
function withLiveLimits(defs: EndpointDef[]): EndpointDef[] {
  return defs.map((d) => (d.kind === 'tasks_ready' ? { ...d, ...TASKS_READY_LIMITS } : d));
}

export const ENDPOINTS: readonly EndpointDef[] = withLiveLimits([
  // Keywords data (legacy family). The reference gives E1-E3; the task_post endpoints are designed (docs/api-designed.md).
  {
    id: 'keywords_for_site.task_post', ref: 'designed', method: 'POST', kind: 'task_post',
    path: '/v3/keywords_data/{keywords_data_legacy}/keywords_for_site/task_post',
    api: 'keywords_data', fn: 'keywords_for_site', engine: 'keywords_data_legacy', result: 'task_created', version: '0.1.20221214',
    description: 'Sets keywords-for-domain tasks: up to 700 keyword suggestions for a target domain.',
    fields: { target: { type: 'string', required: true, minLength: 1, maxLength: 255, format: 'domain' }, ...keywordTaskFields },
    maxTasksPerPost: 100, overflowCode: 40006, billing: 'post',
    readyId: 'keywords_for_site.tasks_ready', getId: 'keywords_for_site.task_get',
  },
  {
    id: 'keywords_for_site.tasks_ready', ref: 'E3', method: 'GET', kind: 'tasks_ready',
    path: '/v3/keywords_data/{keywords_data_legacy}/keywords_for_site/tasks_ready',
    api: 'keywords_data', fn: 'tasks_ready', engine: 'keywords_data_legacy', result: 'ready_list', version: '0.1.20221214',
    description: 'Completed keywords_for_site tasks not collected yet (id, endpoint).',
    billing: 'free', maxResultsPerCall: 1000, postId: 'keywords_for_site.task_post', getId: 'keywords_for_site.task_get',
  },
  {
    id: 'keywords_for_site.task_get', ref: 'E1', method: 'GET', kind: 'task_get',
    path: '/v3/keywords_data/{keywords_data_legacy}/keywords_for_site/task_get/{id}',
    api: 'keywords_data', fn: 'keywords_for_site', engine: 'keywords_data_legacy', result: 'keyword_data', version: '0.1.20221214',
    description: 'Results of a keywords-for-domain task.',
    billing: 'free', postId: 'keywords_for_site.task_post',
  },
  {
    id: 'keywords_for_keywords.task_post', ref: 'designed', method: 'POST', kind: 'task_post',
    path: '/v3/keywords_data/{keywords_data_legacy}/keywords_for_keywords/task_post',
    api: 'keywords_data', fn: 'keywords_for_keywords', engine: 'keywords_data_legacy', result: 'task_created', version: '0.1.20221214',
    description: 'Sets keywords-for-keywords tasks: suggestions for up to 200 given keywords.',
    fields: { keywords: { type: 'string_array', required: true, minItems: 1, maxItems: 200, itemMaxLength: 80 }, ...keywordTaskFields },
    maxTasksPerPost: 100, overflowCode: 40006, billing: 'post',
    readyId: 'keywords_for_keywords.tasks_ready', getId: 'keywords_for_keywords.task_get',
  },
  {
    id: 'keywords_for_keywords.tasks_ready', ref: 'E3', method: 'GET', kind: 'tasks_ready',
    path: '/v3/keywords_data/{keywords_data_legacy}/keywords_for_keywords/tasks_ready',
    api: 'keywords_data', fn: 'tasks_ready', engine: 'keywords_data_legacy', result: 'ready_list', version: '0.1.20221214',
    description: 'Completed keywords_for_keywords tasks not collected yet (id, endpoint).',
    billing: 'free', maxResultsPerCall: 1000, postId: 'keywords_for_keywords.task_post', getId: 'keywords_for_keywords.task_get',
  },
  {
    id: 'keywords_for_keywords.task_get', ref: 'E2', method: 'GET', kind: 'task_get',
    path: '/v3/keywords_data/{keywords_data_legacy}/keywords_for_keywords/task_get/{id}',
    api: 'keywords_data', fn: 'keywords_for_keywords', engine: 'keywords_data_legacy', result: 'keyword_data', version: '0.1.20221214',
    description: 'Results of a keywords-for-keywords task.',
    billing: 'free', postId: 'keywords_for_keywords.task_post',
  },

  // SERP.
  {
    id: 'serp.endpoints', ref: 'E5', method: 'GET', kind: 'list', path: '/v3/serp/endpoints',
    api: 'serp', fn: 'endpoints', result: 'serp_endpoints', version: '0.1.20240801',
    description: 'Every SERP endpoint path, with $id where a task id goes.', billing: 'free',
  },
  {
    id: 'serp.events.locations', ref: 'E10', method: 'GET', kind: 'list', path: '/v3/serp/{engine_a}/events/locations',
    api: 'serp', fn: 'locations', engine: 'engine_a', seType: 'events', result: 'events_locations', version: '0.1.20240801',
    description: 'Locations supported by the events search.', billing: 'free',
  },
  {
    id: 'serp.events.task_post', ref: 'E11', method: 'POST', kind: 'task_post', path: '/v3/serp/{engine_a}/events/task_post',
    api: 'serp', fn: 'task_post', engine: 'engine_a', seType: 'events', result: 'task_created', version: '0.1.20240801',
    description: 'Sets events SERP tasks (English, desktop).',
    fields: {
      keyword: { type: 'string', required: true, minLength: 1, maxLength: 700 },
      ...LOCATION,
      location_coordinate: { type: 'string', format: 'coordinate' },
      depth: { type: 'integer', min: 1, max: 700 },
      priority: { type: 'integer', enum: [1, 2] },
      ...CALLBACKS,
      postback_data: { type: 'string', enum: ['advanced', 'regular', 'html'] },
      os: { type: 'string', enum: ['windows', 'macos'] },
      tag: TAG,
      max_crawl_pages: { type: 'integer', min: 1, max: 100 },
      date_range: { type: 'string', enum: ['today', 'tomorrow', 'week', 'weekend', 'next_week', 'month', 'next_month'] },
      se_domain: { type: 'string', minLength: 1, maxLength: 255, format: 'domain' },
      url: { type: 'string', format: 'url', maxLength: 2048 },
    },
    cross: [
      { rule: 'one_of_required', fields: ['location_code', 'location_name', 'location_coordinate'] },
      { rule: 'required_with', field: 'postback_data', when: 'postback_url' },
    ],
    maxTasksPerPost: 100, overflowCode: 40006, perMinute: 2000, billing: 'post',
    readyId: 'serp.events.tasks_ready', getId: 'serp.events.task_get.advanced',
  },
  {
    id: 'serp.events.tasks_ready', ref: 'designed', method: 'GET', kind: 'tasks_ready', path: '/v3/serp/{engine_a}/events/tasks_ready',
    api: 'serp', fn: 'tasks_ready', engine: 'engine_a', seType: 'events', result: 'ready_list', version: '0.1.20240801',
    description: 'Completed events tasks not collected yet (id, endpoint_regular, endpoint_advanced, endpoint_html).',
    billing: 'free', maxResultsPerCall: 1000, postId: 'serp.events.task_post', getId: 'serp.events.task_get.advanced',
  },
  {
    id: 'serp.events.tasks_fixed', ref: 'E12', method: 'GET', kind: 'tasks_fixed', path: '/v3/serp/{engine_a}/events/tasks_fixed',
    api: 'serp', fn: 'tasks_fixed', engine: 'engine_a', seType: 'events', result: 'fixed_tasks', version: '0.1.20240801',
    description: 'Re-parsed events tasks not collected yet, completed within 24 hours.',
    billing: 'free', perMinute: 20, maxResultsPerCall: 1000, postId: 'serp.events.task_post', getId: 'serp.events.task_get.advanced',
  },
  ...(['regular', 'advanced', 'html'] as const).map((variant): EndpointDef => ({
    id: `serp.events.task_get.${variant}`, ref: 'E12', method: 'GET', kind: 'task_get',
    path: `/v3/serp/{engine_a}/events/task_get/${variant}/{id}`,
    api: 'serp', fn: 'task_get', engine: 'engine_a', seType: 'events',
    result: variant === 'html' ? 'events_html' : 'events_serp', version: '0.1.20240801',
    description: `The ${variant} result of an events task (structure designed: docs/api-designed.md).`,
    billing: 'free', postId: 'serp.events.task_post',
  })),

  // Merchant.
  {
    id: 'merchant.products.task_post', ref: 'designed', method: 'POST', kind: 'task_post', path: '/v3/merchant/{merchant}/products/task_post',
    api: 'merchant', fn: 'products', engine: 'merchant', seType: 'shopping', result: 'task_created', version: '0.1.20240801',
    description: 'Sets shopping-results tasks for a keyword.',
    fields: {
      keyword: { type: 'string', required: true, minLength: 1, maxLength: 700 },
      ...LOCATION,
      location_coordinate: { type: 'string', format: 'coordinate' },
      url: { type: 'string', format: 'url', maxLength: 2048 },
      se_domain: { type: 'string', minLength: 1, maxLength: 255, format: 'domain' },
      // Live: 40 results by default, at most 120, billed per SERP page of up to 40 results (docs/api-live.md).
      depth: { type: 'integer', min: 1, max: 120, default: 40 },
      max_crawl_pages: { type: 'integer', min: 1, max: 7 },
      search_param: { type: 'string', minLength: 1, maxLength: 2048 },
      priority: { type: 'integer', enum: [1, 2] },
      price_min: { type: 'number', min: 0 },
      price_max: { type: 'number', min: 0 },
      sort_by: { type: 'string', enum: ['review_score', 'price_low_to_high', 'price_high_to_low'] },
      ...CALLBACKS,
      postback_data: { type: 'string', enum: ['advanced', 'html'] },
      tag: TAG,
    },
    cross: [
      { rule: 'one_of_required', fields: ['location_code', 'location_name', 'location_coordinate'] },
      { rule: 'one_of_required', fields: ['language_code', 'language_name'] },
      { rule: 'required_with', field: 'postback_data', when: 'postback_url' },
    ],
    maxTasksPerPost: 100, overflowCode: 40006, billing: 'post', billedPage: { desktop: 40 },
    readyId: 'merchant.products.tasks_ready', getId: 'merchant.products.task_get.advanced',
  },
  {
    id: 'merchant.products.tasks_ready', ref: 'E8', method: 'GET', kind: 'tasks_ready', path: '/v3/merchant/{merchant}/products/tasks_ready',
    api: 'merchant', fn: 'tasks_ready', engine: 'merchant', seType: 'shopping', result: 'ready_list', version: '0.1.20240801',
    description: 'Completed merchant products tasks not collected yet (id, endpoint_advanced).',
    billing: 'free', maxResultsPerCall: 1000, postId: 'merchant.products.task_post', getId: 'merchant.products.task_get.advanced',
  },
  {
    id: 'merchant.products.task_get.advanced', ref: 'E9', method: 'GET', kind: 'task_get', path: '/v3/merchant/{merchant}/products/task_get/advanced/{id}',
    api: 'merchant', fn: 'products', engine: 'merchant', seType: 'shopping', result: 'merchant_shopping', version: '0.1.20240801',
    description: 'The advanced shopping result of a merchant products task; the all-zero id returns every item type.',
    billing: 'free', postId: 'merchant.products.task_post',
  },
  {
    id: 'merchant.products.task_get.html', ref: 'live', method: 'GET', kind: 'task_get', path: '/v3/merchant/{merchant}/products/task_get/html/{id}',
    api: 'merchant', fn: 'products', engine: 'merchant', seType: 'shopping', result: 'merchant_html', version: '0.1.20240801',
    description: 'The raw HTML pages of a merchant products task (the live service keeps them 7 days).',
    billing: 'free', postId: 'merchant.products.task_post',
  },

  // Content generation.
  {
    id: 'content_generation.paraphrase.live', ref: 'E6', method: 'POST', kind: 'live', path: '/v3/content_generation/paraphrase/live',
    api: 'content_generation', fn: 'paraphrase', result: 'paraphrase', version: '0.1.20240701',
    description: 'A paraphrase of the given text.',
    fields: {
      text: { type: 'string', required: true, tokens: { min: 1, max: 500 } },
      creativity_index: { type: 'number', required: true, min: 0, max: 1 },
      tag: TAG,
    },
    maxTasksPerPost: 1, overflowCode: 40000, perMinute: 2000, billing: 'request',
  },

  // On-page.
  {
    id: 'on_page.resources', ref: 'E7', method: 'POST', kind: 'live', path: '/v3/on_page/resources',
    api: 'on_page', fn: 'resources', result: 'onpage_resources', version: '0.1.20240801',
    description: 'Resources found by an on-page crawl task.',
    fields: {
      id: { type: 'string', required: true, format: 'uuid' },
      url: { type: 'string', format: 'url', maxLength: 2048 },
      limit: { type: 'integer', min: 1, max: 1000, default: 100 },
      offset: { type: 'integer', min: 0, max: 2_000_000, default: 0 },
      filters: { type: 'filters', maxConditions: 8, operators: FILTER_OPERATORS },
      relevant_pages_filters: { type: 'filters', maxConditions: 8, operators: FILTER_OPERATORS },
      order_by: { type: 'order_by', maxRules: 3 },
      search_after_token: { type: 'string', minLength: 1, maxLength: 4096 },
      tag: TAG,
    },
    maxTasksPerPost: 1, overflowCode: 40000, billing: 'free', paging: 'search_after_token',
  },

  // Domain analytics.
  {
    id: 'domain_analytics.errors', ref: 'E13', method: 'POST', kind: 'list', path: '/v3/domain_analytics/errors',
    api: 'domain_analytics', fn: 'errors', result: 'domain_errors', version: '0.1.20240801',
    description: 'Errors of the last 7 days, failed pingback and postback deliveries included.',
    fields: {
      limit: { type: 'integer', min: 1, max: 1000, default: 1000 },
      offset: { type: 'integer', min: 0, default: 0 },
      filtered_function: { type: 'string', minLength: 1, maxLength: 255 },
      datetime_from: { type: 'string', format: 'timestamp' },
      datetime_to: { type: 'string', format: 'timestamp' },
    },
    cross: [{ rule: 'within_days', fields: ['datetime_from', 'datetime_to'], days: 7 }],
    maxTasksPerPost: 1, overflowCode: 40000, billing: 'free', paging: 'limit_offset',
  },
  {
    id: 'domain_analytics.domains_by_html_terms.live', ref: 'E14', method: 'POST', kind: 'live',
    path: '/v3/domain_analytics/technologies/domains_by_html_terms/live',
    api: 'domain_analytics', fn: 'domains_by_html_terms', result: 'domain_technologies', version: '0.1.20240801',
    description: 'Domains whose homepage HTML holds the given terms, with their technology profiles.',
    fields: {
      search_terms: { type: 'string_array', required: true, minItems: 1, maxItems: 10, itemMaxLength: 1000 },
      keywords: { type: 'string_array', maxItems: 10, itemMaxLength: 1000 },
      mode: { type: 'string', enum: ['strict_entry', 'entry'] },
      filters: { type: 'filters', maxConditions: 8, operators: HTML_TERMS_OPERATORS },
      order_by: { type: 'order_by', maxRules: 3, fields: HTML_TERMS_ORDER_FIELDS },
      limit: { type: 'integer', min: 1, max: 10_000, default: 100 },
      offset: { type: 'integer', min: 0, max: 9_999, default: 0 },
      offset_token: { type: 'string', minLength: 1, maxLength: 4096 },
      tag: TAG,
    },
    cross: [{ rule: 'sum_max', fields: ['limit', 'offset'], max: 10_000, defaults: [100, 0] }],
    maxTasksPerPost: 1, overflowCode: 40000, perMinute: 2000, billing: 'request', paging: 'limit_offset_token',
  },

  ...KEYWORDS_ADS_ENDPOINTS,
  ...SERP_ENDPOINTS,
  ...APPENDIX_ENDPOINTS,
]);

const BY_ID = new Map(ENDPOINTS.map((e) => [e.id, e]));

export function endpoint(id: string): EndpointDef {
  const def = BY_ID.get(id);
  if (!def) throw new Error(`unknown endpoint '${id}'; known: ${ENDPOINTS.map((e) => e.id).join(', ')}`);
  return def;
}

export function findEndpoint(id: string): EndpointDef | undefined {
  return BY_ID.get(id);
}

/** The concrete path of an endpoint for the configured engines (and a task id where the path takes one). */
export function resolvePath(def: EndpointDef, engines: Engines, params: { id?: string } = {}): string {
  return def.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    if (name === 'id') {
      if (!params.id) throw new Error(`${def.id}: path needs a task id`);
      return encodeURIComponent(params.id);
    }
    return engines[name as EngineToken];
  });
}

export interface PathMatch {
  def: EndpointDef;
  id?: string;
  /** The engine segment as it appeared in the path (equal to the configured one unless matched with anyEngine). */
  engineSegment?: string;
}

const TOKEN_SEGMENT = new Set(PATH_TOKENS.map((t) => `{${t}}`));

/**
 * Which catalog endpoint a method and path belong to. With `anyEngine`, a path-token segment matches any name
 * (ingest of files saved from the live service, which says `google` where the sandbox may say `engine_a`); a
 * path that matches with the configured segments wins over one that matches only with any name.
 */
export function matchPath(method: string, rawPath: string, engines: Engines | null, opts: { anyEngine?: boolean } = {}): PathMatch | undefined {
  const pathOnly = rawPath.split('?')[0].replace(/\/+$/, '');
  const segments = (pathOnly.startsWith('/') ? pathOnly : `/${pathOnly}`).split('/');
  const pass = (loose: boolean): PathMatch | undefined => {
    for (const def of ENDPOINTS) {
      if (def.method !== method.toUpperCase()) continue;
      const tpl = def.path.split('/');
      if (tpl.length !== segments.length) continue;
      let id: string | undefined;
      let engineSegment: string | undefined;
      let ok = true;
      for (let i = 0; i < tpl.length && ok; i++) {
        const t = tpl[i];
        const s = segments[i];
        if (t === '{id}') {
          try { id = decodeURIComponent(s); } catch { id = s; }
          ok = s.length > 0;
        } else if (TOKEN_SEGMENT.has(t)) {
          engineSegment = s;
          ok = loose ? /^[a-z0-9_]+$/.test(s) : s === engines![t.slice(1, -1) as EngineToken];
        } else ok = t === s;
      }
      if (ok) return { def, id, engineSegment };
    }
    return undefined;
  };
  return (engines ? pass(false) : undefined) ?? (opts.anyEngine || !engines ? pass(true) : undefined);
}

/** Catalog entries of one kind, for example every task_post endpoint. */
export function endpointsOfKind(kind: EndpointKind): EndpointDef[] {
  return ENDPOINTS.filter((e) => e.kind === kind);
}
