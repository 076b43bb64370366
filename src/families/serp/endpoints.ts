/**
 * SERP result types of the endpoint list (E5) for every engine in it: task_post, tasks_ready, task_get and live,
 * with the live service's request rules (docs/api-live.md, `## SERP`). Ids are the official client's
 * (`serp.google.organic.task_post`, naming the live engine); paths keep the reference's engine tokens, resolved
 * from configuration. The client lacks a few of them, which keep ids of the same form: the Bing local pack, Google
 * Maps' html variants and Baidu's live regular (test/families/dialect.test.ts lists them).
 */
import type { EndpointDef, FieldRule, CrossRule } from '../../catalog/endpoint.js';
import type { EngineToken } from '../../catalog/endpoint.js';
import { SERP_REQUEST_MODELS } from './models.generated.js';

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
  /** Used where the client has no request model (Bing local pack; docs/api-live.md). */
  depth: { default: number; max: number };
  devices: readonly string[];
  languageRequired: boolean;
  /** The client's request model stem (`SerpGoogleOrganic`); each mode's fields are that model's. */
  model?: string;
}

const VERSION = '0.1.20240801';
const URL_FIELD: FieldRule = { type: 'string', format: 'url', maxLength: 2048 };
const DESKTOP_MOBILE = ['desktop', 'mobile'] as const;
const DESKTOP = ['desktop'] as const;
/** Element types the crawl-control fields name (client `find_targets_in`, `ignore_targets_in`). */
export const TARGET_ELEMENT_TYPES = ['organic', 'paid', 'local_pack', 'featured_snippet', 'events', 'google_flights', 'images', 'jobs', 'knowledge_graph', 'local_service', 'map', 'scholarly_articles', 'third_party_reviews', 'twitter'] as const;
export const MATCH_TYPES = ['domain', 'with_subdomains', 'wildcard'] as const;

/** The endpoint list's types and variants (E5) and what the live service adds to them (docs/api-live.md). */
export const SERP_TYPES: readonly SerpTypeSpec[] = [
  { token: 'engine_a', engine: 'google', seType: 'organic', taskGet: ['regular', 'advanced', 'html'], live: ['regular', 'advanced', 'html'],
    page: { desktop: 10 }, depth: { default: 10, max: 700 }, devices: DESKTOP_MOBILE, languageRequired: true, model: 'SerpGoogleOrganic' },
  { token: 'engine_a', engine: 'google', seType: 'news', taskGet: ['advanced', 'html'], live: ['advanced', 'html'],
    page: { desktop: 10 }, depth: { default: 10, max: 700 }, devices: DESKTOP, languageRequired: true, model: 'SerpGoogleNews' },
  { token: 'engine_a', engine: 'google', seType: 'images', taskGet: ['advanced', 'html'], live: ['advanced', 'html'],
    page: { desktop: 100 }, depth: { default: 100, max: 700 }, devices: DESKTOP, languageRequired: true, model: 'SerpGoogleImages' },
  // AI Mode: one AI answer per task (items: the overview; no depth), advanced and html (client SerpGoogleAiMode*).
  { token: 'engine_a', engine: 'google', seType: 'ai_mode', taskGet: ['advanced', 'html'], live: ['advanced', 'html'],
    page: { desktop: 10 }, depth: { default: 10, max: 10 }, devices: DESKTOP_MOBILE, languageRequired: true, model: 'SerpGoogleAiMode' },
  { token: 'engine_a', engine: 'google', seType: 'maps', taskGet: ['advanced', 'html'], live: ['advanced', 'html'],
    page: { desktop: 100, mobile: 20 }, depth: { default: 100, max: 700 }, devices: DESKTOP_MOBILE, languageRequired: true, model: 'SerpGoogleMaps' },
  { token: 'engine_b', engine: 'bing', seType: 'organic', taskGet: ['regular', 'advanced', 'html'], live: ['regular', 'advanced', 'html'],
    page: { desktop: 10 }, depth: { default: 10, max: 700 }, devices: DESKTOP_MOBILE, languageRequired: true, model: 'SerpBingOrganic' },
  { token: 'engine_b', engine: 'bing', seType: 'local_pack', taskGet: ['advanced', 'html'], live: [],
    page: { desktop: 5 }, depth: { default: 5, max: 200 }, devices: DESKTOP, languageRequired: true },
  { token: 'engine_c', engine: 'yahoo', seType: 'organic', taskGet: ['regular', 'advanced', 'html'], live: ['regular', 'advanced', 'html'],
    page: { desktop: 10 }, depth: { default: 6, max: 700 }, devices: DESKTOP_MOBILE, languageRequired: true, model: 'SerpYahooOrganic' },
  { token: 'engine_d', engine: 'baidu', seType: 'organic', taskGet: ['regular', 'advanced', 'html'], live: ['regular'],
    page: { desktop: 10 }, depth: { default: 10, max: 700 }, devices: [...DESKTOP_MOBILE, 'tablet'], languageRequired: false, model: 'SerpBaiduOrganic' },
];

/** The rule of every field a SERP request model has; the models say which endpoint takes which (models.generated.ts). */
function ruleOf(field: string, spec: SerpTypeSpec, depth: { default: number; max: number }, postback: readonly SerpVariant[]): FieldRule {
  switch (field) {
    case 'keyword': return { type: 'string', required: true, minLength: 1, maxLength: 700 };
    case 'location_code': return { type: 'integer', min: 1 };
    case 'location_name': return { type: 'string', minLength: 1, maxLength: 255 };
    case 'location_coordinate': return spec.seType === 'maps' ? { type: 'string', minLength: 5, maxLength: 64 } : { type: 'string', format: 'coordinate' };
    case 'language_code': return { type: 'string', minLength: 2, maxLength: 10 };
    case 'language_name': return { type: 'string', minLength: 1, maxLength: 100 };
    case 'depth': return { type: 'integer', min: 1, max: depth.max, default: depth.default };
    case 'max_crawl_pages': return { type: 'integer', min: 1, max: 100 };
    case 'device': return { type: 'string', enum: spec.devices };
    case 'os': return { type: 'string', enum: spec.devices.length > 1 ? ['windows', 'macos', 'android', 'ios'] : ['windows', 'macos'] };
    case 'se_domain': return { type: 'string', minLength: 1, maxLength: 255, format: 'domain' };
    case 'search_param': return { type: 'string', maxLength: 2048 };
    case 'url': case 'pingback_url': case 'postback_url': return URL_FIELD;
    case 'tag': return { type: 'string', maxLength: 255 };
    case 'priority': return { type: 'integer', enum: [1, 2] };
    case 'postback_data': return { type: 'string', enum: postback };
    case 'calculate_rectangles': case 'load_async_ai_overview': case 'expand_ai_overview': case 'group_organic_results':
    case 'search_this_area': case 'search_places': case 'get_website_url':
      return { type: 'boolean' };
    case 'browser_screen_width': case 'browser_screen_height': return { type: 'integer', min: 240, max: 9999 };
    case 'browser_screen_resolution_ratio': return { type: 'number', min: 0.5, max: 3 };
    case 'people_also_ask_click_depth': return { type: 'integer', min: 1, max: 4 };
    case 'remove_from_url': return { type: 'string_array', maxItems: 10, itemMaxLength: 255 };
    case 'stop_crawl_on_match': return {
      type: 'object_array', minItems: 1, maxItems: 10,
      fields: { match_value: { type: 'string', required: true, minLength: 1, maxLength: 255 }, match_type: { type: 'string', required: true, enum: MATCH_TYPES } },
    };
    // The request models also list the target's two fields at the top level; the client sends them as null.
    case 'match_type': return { type: 'string', enum: MATCH_TYPES };
    case 'match_value': return { type: 'string', minLength: 1, maxLength: 255 };
    case 'target_search_mode': return { type: 'string', enum: ['all', 'any'] };
    case 'find_targets_in': case 'ignore_targets_in': return { type: 'string_array', minItems: 1, maxItems: TARGET_ELEMENT_TYPES.length, itemEnum: TARGET_ELEMENT_TYPES };
    case 'target': return { type: 'string', minLength: 1, maxLength: 255 };
    default: throw new Error(`serp: no rule for the request field '${field}' of ${spec.engine} ${spec.seType}`);
  }
}

/** Fields of the Bing local pack (no client model; docs.dataforseo.com/v3/serp/bing/local_pack/task_post/). */
const LOCAL_PACK_FIELDS = ['keyword', 'location_code', 'location_name', 'location_coordinate', 'language_code', 'language_name', 'depth', 'max_crawl_pages',
  'device', 'os', 'se_domain', 'search_param', 'url', 'tag', 'priority', 'pingback_url', 'postback_url', 'postback_data'];
const TASK_POST_ONLY = new Set(['priority', 'pingback_url', 'postback_url', 'postback_data']);

/** The client's request model of a mode, or the closest one it has (Baidu has no live model; maps no html one). */
export function requestModel(spec: SerpTypeSpec, mode: 'task_post' | 'live', variant?: SerpVariant): string | undefined {
  if (!spec.model) return undefined;
  const names = mode === 'task_post' ? ['TaskPost'] : [`Live${variant![0].toUpperCase()}${variant!.slice(1)}`, 'LiveAdvanced', 'TaskPost'];
  return names.map((n) => `${spec.model}${n}RequestInfo`).find((n) => SERP_REQUEST_MODELS[n]);
}

function fieldsOf(spec: SerpTypeSpec, mode: 'task_post' | 'live', variant: SerpVariant | undefined, postback: readonly SerpVariant[]): Record<string, FieldRule> {
  const name = requestModel(spec, mode, variant);
  const m = name ? SERP_REQUEST_MODELS[name] : undefined;
  let names = m ? Object.keys(m.fields) : LOCAL_PACK_FIELDS;
  if (mode === 'live') names = names.filter((f) => !TASK_POST_ONLY.has(f));
  // `tag` is echoed by every SERP endpoint of the live service; the news live models leave it out.
  if (!names.includes('tag')) names = [...names, 'tag'];
  const depth = { default: m?.depth.default ?? spec.depth.default, max: m?.depth.max ?? spec.depth.max };
  return Object.fromEntries(names.map((f) => [f, ruleOf(f, spec, depth, postback)]));
}

function crossOf(spec: SerpTypeSpec, mode: 'task_post' | 'live', fields: Record<string, FieldRule>): CrossRule[] {
  const out: CrossRule[] = [{ rule: 'one_of_required', fields: ['location_code', 'location_name', 'location_coordinate'] }];
  if (spec.languageRequired) out.push({ rule: 'one_of_required', fields: ['language_code', 'language_name'] });
  if (mode === 'task_post') out.push({ rule: 'required_with', field: 'postback_data', when: 'postback_url' });
  for (const f of ['target_search_mode', 'find_targets_in', 'ignore_targets_in']) {
    if (fields[f]) out.push({ rule: 'needs', field: f, needs: 'stop_crawl_on_match' });
  }
  if (fields.find_targets_in && fields.ignore_targets_in) out.push({ rule: 'disjoint', fields: ['find_targets_in', 'ignore_targets_in'] });
  return out;
}

const RESULT = { regular: 'serp_regular', advanced: 'serp_advanced', html: 'serp_html' } as const;

function endpointsOf(spec: SerpTypeSpec): EndpointDef[] {
  const base = `serp.${spec.engine}.${spec.seType}`;
  const prefix = `/v3/serp/{${spec.token}}/${spec.seType}`;
  const common = { api: 'serp', engine: spec.token, seType: spec.seType, version: VERSION } as const;
  const billedPage = spec.page;
  const postFields = fieldsOf(spec, 'task_post', undefined, spec.taskGet);
  const liveFields = (variant: SerpVariant) => fieldsOf(spec, 'live', variant, []);
  const out: EndpointDef[] = [
    {
      ...common, id: `${base}.task_post`, ref: 'E5', method: 'POST', kind: 'task_post', path: `${prefix}/task_post`, fn: 'task_post',
      result: 'task_created', description: `Sets ${spec.engine} ${spec.seType} SERP tasks (billed per page of ${billedPage.desktop} results${billedPage.mobile ? `, ${billedPage.mobile} on mobile` : ''}).`,
      fields: postFields, cross: crossOf(spec, 'task_post', postFields),
      maxTasksPerPost: 100, overflowCode: 40006, perMinute: 2000, billing: 'post', billedPage,
    },
    {
      ...common, id: `${base}.tasks_ready`, ref: 'E5', method: 'GET', kind: 'tasks_ready', path: `${prefix}/tasks_ready`, fn: 'tasks_ready',
      result: 'ready_list', description: `Completed ${spec.engine} ${spec.seType} tasks not collected yet (id, endpoint_regular, endpoint_advanced, endpoint_html).`,
      billing: 'free', perMinute: 20, maxResultsPerCall: 1000,
    },
    ...spec.taskGet.map((variant): EndpointDef => ({
      ...common, id: `${base}.task_get.${variant}`, ref: 'E5', method: 'GET', kind: 'task_get', path: `${prefix}/task_get/${variant}/{id}`,
      fn: 'task_get', result: RESULT[variant], description: `The ${variant} result of a ${spec.engine} ${spec.seType} task.`,
      billing: 'free',
    })),
    {
      ...common, id: `${base}.tasks_fixed`, ref: 'live', method: 'GET', kind: 'tasks_fixed', path: `${prefix}/tasks_fixed`, fn: 'tasks_fixed',
      result: 'fixed_tasks', description: `Re-parsed ${spec.engine} ${spec.seType} tasks not collected again yet (client \`${spec.engine}${spec.seType[0].toUpperCase()}${spec.seType.slice(1)}TasksFixed\`).`,
      billing: 'free', perMinute: 20, maxResultsPerCall: 1000,
    },
    ...spec.live.map((variant): EndpointDef => ({
      ...common, id: `${base}.live.${variant}`, ref: 'E5', method: 'POST', kind: 'live', path: `${prefix}/live/${variant}`,
      fn: 'live', result: RESULT[variant], description: `The ${variant} ${spec.engine} ${spec.seType} result in the response (one task per call).`,
      fields: liveFields(variant), cross: crossOf(spec, 'live', liveFields(variant)),
      maxTasksPerPost: 1, overflowCode: 40000, perMinute: 2000, billing: 'request', billedPage,
    })),
  ];
  return out;
}

/** The free lists of each engine: its locations (all, or one country's by ISO code) and its languages (client `SerpApi`). */
function engineLists(token: EngineToken, engine: string): EndpointDef[] {
  const common = { api: 'serp', engine: token, version: VERSION, ref: 'live', method: 'GET', kind: 'list', billing: 'free' } as const;
  return [
    { ...common, id: `serp.${engine}.locations`, path: `/v3/serp/{${token}}/locations`, fn: 'locations', result: 'serp_locations', description: `Locations the ${engine} SERP API supports.` },
    { ...common, id: `serp.${engine}.locations.country`, path: `/v3/serp/{${token}}/locations/{id}`, fn: 'locations', result: 'serp_locations', description: `Locations of one country for ${engine}; the path takes its ISO code where other paths take a task id.` },
    { ...common, id: `serp.${engine}.languages`, path: `/v3/serp/{${token}}/languages`, fn: 'languages', result: 'serp_languages', description: `Languages the ${engine} SERP API supports.` },
  ];
}
const ENGINES = [...new Map(SERP_TYPES.map((t) => [t.token, t.engine])).entries()];
/** AI Mode has a language list of its own (client `googleAiModeLanguages`). */
const AI_MODE_LANGUAGES: EndpointDef = {
  api: 'serp', engine: 'engine_a', seType: 'ai_mode', version: VERSION, ref: 'live', method: 'GET', kind: 'list', billing: 'free',
  id: 'serp.google.ai_mode.languages', path: '/v3/serp/{engine_a}/ai_mode/languages', fn: 'languages', result: 'serp_languages', description: 'Languages Google AI Mode supports.',
};

export const SERP_ENDPOINTS: readonly EndpointDef[] = [...SERP_TYPES.flatMap(endpointsOf), ...ENGINES.flatMap(([token, engine]) => engineLists(token, engine)), AI_MODE_LANGUAGES];
