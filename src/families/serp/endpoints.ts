/**
 * SERP result types of the endpoint list (E5) for every engine in it: task_post, tasks_ready, task_get and live,
 * with the live service's request rules (docs/api-live.md, `## SERP`). Ids name the live engine
 * (`serp.google.organic.task_post`); paths keep the reference's engine tokens, resolved from configuration.
 */
import type { EndpointDef, FieldRule, CrossRule } from '../../api/catalog.js';
import type { EngineToken } from '../../config/index.js';

export type SerpVariant = 'regular' | 'advanced' | 'html';

interface SerpTypeSpec {
  token: EngineToken;
  /** The live engine the token resolves to by default; it names the endpoint ids. */
  engine: string;
  seType: string;
  taskGet: readonly SerpVariant[];
  live: readonly SerpVariant[];
  /** Results the service bills as one page, by device (depth is billed per started page). */
  page: { desktop: number; mobile?: number };
  depth: { default: number; max: number; liveMax?: number };
  devices: readonly string[];
  languageRequired: boolean;
  extra?: Readonly<Record<string, FieldRule>>;
}

const VERSION = '0.1.20240801';
const TAG: FieldRule = { type: 'string', maxLength: 255 };
const URL_FIELD: FieldRule = { type: 'string', format: 'url', maxLength: 2048 };
const RECTANGLES = {
  calculate_rectangles: { type: 'boolean' },
  browser_screen_width: { type: 'integer', min: 240, max: 9999 },
  browser_screen_height: { type: 'integer', min: 240, max: 9999 },
  browser_screen_resolution_ratio: { type: 'number', min: 0.5, max: 3 },
} as const satisfies Record<string, FieldRule>;
const ORGANIC = {
  ...RECTANGLES,
  people_also_ask_click_depth: { type: 'integer', min: 1, max: 4 },
  load_async_ai_overview: { type: 'boolean' },
  expand_ai_overview: { type: 'boolean' },
  group_organic_results: { type: 'boolean' },
  remove_from_url: { type: 'string_array', maxItems: 10, itemMaxLength: 255 },
} as const satisfies Record<string, FieldRule>;
const DESKTOP_MOBILE = ['desktop', 'mobile'] as const;
const DESKTOP = ['desktop'] as const;

/** The endpoint list's types and variants (E5) and what the live service adds to them (docs/api-live.md). */
export const SERP_TYPES: readonly SerpTypeSpec[] = [
  { token: 'engine_a', engine: 'google', seType: 'organic', taskGet: ['regular', 'advanced', 'html'], live: ['regular', 'advanced', 'html'],
    page: { desktop: 10 }, depth: { default: 10, max: 700 }, devices: DESKTOP_MOBILE, languageRequired: true, extra: ORGANIC },
  { token: 'engine_a', engine: 'google', seType: 'news', taskGet: ['advanced', 'html'], live: ['advanced', 'html'],
    page: { desktop: 10 }, depth: { default: 10, max: 700, liveMax: 200 }, devices: DESKTOP, languageRequired: true, extra: RECTANGLES },
  { token: 'engine_a', engine: 'google', seType: 'images', taskGet: ['advanced', 'html'], live: ['advanced', 'html'],
    page: { desktop: 100 }, depth: { default: 100, max: 700 }, devices: DESKTOP, languageRequired: true },
  { token: 'engine_a', engine: 'google', seType: 'maps', taskGet: ['advanced', 'html'], live: ['advanced', 'html'],
    page: { desktop: 100, mobile: 20 }, depth: { default: 100, max: 700 }, devices: DESKTOP_MOBILE, languageRequired: true,
    extra: { search_this_area: { type: 'boolean' }, search_places: { type: 'boolean' } } },
  { token: 'engine_b', engine: 'bing', seType: 'organic', taskGet: ['regular', 'advanced', 'html'], live: ['regular', 'advanced', 'html'],
    page: { desktop: 10 }, depth: { default: 10, max: 700 }, devices: DESKTOP_MOBILE, languageRequired: true, extra: RECTANGLES },
  { token: 'engine_b', engine: 'bing', seType: 'local_pack', taskGet: ['advanced', 'html'], live: [],
    page: { desktop: 5 }, depth: { default: 5, max: 200 }, devices: DESKTOP, languageRequired: true },
  { token: 'engine_c', engine: 'yahoo', seType: 'organic', taskGet: ['regular', 'advanced', 'html'], live: ['regular', 'advanced', 'html'],
    page: { desktop: 10 }, depth: { default: 10, max: 700 }, devices: DESKTOP_MOBILE, languageRequired: true },
  { token: 'engine_d', engine: 'baidu', seType: 'organic', taskGet: ['regular', 'advanced', 'html'], live: ['regular'],
    page: { desktop: 10 }, depth: { default: 10, max: 700 }, devices: [...DESKTOP_MOBILE, 'tablet'], languageRequired: false,
    extra: { get_website_url: { type: 'boolean' } } },
];

function fieldsOf(spec: SerpTypeSpec, mode: 'task_post' | 'live', postback: readonly SerpVariant[]): Record<string, FieldRule> {
  const fields: Record<string, FieldRule> = {
    keyword: { type: 'string', required: true, minLength: 1, maxLength: 700 },
    location_code: { type: 'integer', min: 1 },
    location_name: { type: 'string', minLength: 1, maxLength: 255 },
    location_coordinate: spec.seType === 'maps' ? { type: 'string', minLength: 5, maxLength: 64 } : { type: 'string', format: 'coordinate' },
    language_code: { type: 'string', minLength: 2, maxLength: 10 },
    language_name: { type: 'string', minLength: 1, maxLength: 100 },
    depth: { type: 'integer', min: 1, max: mode === 'live' ? spec.depth.liveMax ?? spec.depth.max : spec.depth.max, default: spec.depth.default },
    max_crawl_pages: { type: 'integer', min: 1, max: 100 },
    device: { type: 'string', enum: spec.devices },
    os: { type: 'string', enum: spec.devices.length > 1 ? ['windows', 'macos', 'android', 'ios'] : ['windows', 'macos'] },
    se_domain: { type: 'string', minLength: 1, maxLength: 255, format: 'domain' },
    search_param: { type: 'string', maxLength: 2048 },
    url: URL_FIELD,
    tag: TAG,
    ...spec.extra,
  };
  if (mode === 'task_post') {
    Object.assign(fields, {
      priority: { type: 'integer', enum: [1, 2] },
      pingback_url: URL_FIELD,
      postback_url: URL_FIELD,
      postback_data: { type: 'string', enum: postback },
    } satisfies Record<string, FieldRule>);
  }
  return fields;
}

function crossOf(spec: SerpTypeSpec, mode: 'task_post' | 'live'): CrossRule[] {
  const out: CrossRule[] = [{ rule: 'one_of_required', fields: ['location_code', 'location_name', 'location_coordinate'] }];
  if (spec.languageRequired) out.push({ rule: 'one_of_required', fields: ['language_code', 'language_name'] });
  if (mode === 'task_post') out.push({ rule: 'required_with', field: 'postback_data', when: 'postback_url' });
  return out;
}

const RESULT = { regular: 'serp_regular', advanced: 'serp_advanced', html: 'serp_html' } as const;

function endpointsOf(spec: SerpTypeSpec): EndpointDef[] {
  const base = `serp.${spec.engine}.${spec.seType}`;
  const prefix = `/v3/serp/{${spec.token}}/${spec.seType}`;
  const common = { api: 'serp', engine: spec.token, seType: spec.seType, version: VERSION } as const;
  const firstGet = `${base}.task_get.${spec.taskGet.includes('advanced') ? 'advanced' : spec.taskGet[0]}`;
  const billedPage = spec.page;
  const out: EndpointDef[] = [
    {
      ...common, id: `${base}.task_post`, ref: 'E5', method: 'POST', kind: 'task_post', path: `${prefix}/task_post`, fn: 'task_post',
      result: 'task_created', description: `Sets ${spec.engine} ${spec.seType} SERP tasks (billed per page of ${billedPage.desktop} results${billedPage.mobile ? `, ${billedPage.mobile} on mobile` : ''}).`,
      fields: fieldsOf(spec, 'task_post', spec.taskGet), cross: crossOf(spec, 'task_post'),
      maxTasksPerPost: 100, overflowCode: 40006, perMinute: 2000, billing: 'post', billedPage,
      readyId: `${base}.tasks_ready`, getId: firstGet,
    },
    {
      ...common, id: `${base}.tasks_ready`, ref: 'E5', method: 'GET', kind: 'tasks_ready', path: `${prefix}/tasks_ready`, fn: 'tasks_ready',
      result: 'ready_list', description: `Completed ${spec.engine} ${spec.seType} tasks not collected yet (id, endpoint_regular, endpoint_advanced, endpoint_html).`,
      billing: 'free', perMinute: 20, maxResultsPerCall: 1000, postId: `${base}.task_post`, getId: firstGet,
    },
    ...spec.taskGet.map((variant): EndpointDef => ({
      ...common, id: `${base}.task_get.${variant}`, ref: 'E5', method: 'GET', kind: 'task_get', path: `${prefix}/task_get/${variant}/{id}`,
      fn: 'task_get', result: RESULT[variant], description: `The ${variant} result of a ${spec.engine} ${spec.seType} task.`,
      billing: 'free', postId: `${base}.task_post`,
    })),
    ...spec.live.map((variant): EndpointDef => ({
      ...common, id: `${base}.live.${variant}`, ref: 'E5', method: 'POST', kind: 'live', path: `${prefix}/live/${variant}`,
      fn: 'live', result: RESULT[variant], description: `The ${variant} ${spec.engine} ${spec.seType} result in the response (one task per call).`,
      fields: fieldsOf(spec, 'live', []), cross: crossOf(spec, 'live'),
      maxTasksPerPost: 1, overflowCode: 40000, perMinute: 2000, billing: 'request', billedPage,
    })),
  ];
  return out;
}

export const SERP_ENDPOINTS: readonly EndpointDef[] = SERP_TYPES.flatMap(endpointsOf);
