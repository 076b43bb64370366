/**
 * The ads-based keyword API (`/v3/keywords_data/{keywords_data}/...`, `google_ads` on the live service), which
 * replaced the legacy keyword family. Request rules, limits and paths as the live service documents them (sources
 * in docs/api-live.md, "Keyword data"); spread into ENDPOINTS by the catalog.
 */
import type { CrossRule, EndpointDef, FieldRule } from '../../catalog/endpoint.js';

/** The `version` the sandbox answers this family with (the live service's examples show 0.1.2021xxxx strings). */
const VERSION = '0.1.20211130';

const TAG: FieldRule = { type: 'string', maxLength: 255 };
/** No `postback_data`: this family posts its one result kind; the field is refused as unknown. */
const COMMON = {
  location_code: { type: 'integer', min: 1 },
  location_name: { type: 'string', minLength: 1, maxLength: 255 },
  location_coordinate: { type: 'string', format: 'lat_lng' },
  language_code: { type: 'string', minLength: 2, maxLength: 10 },
  language_name: { type: 'string', minLength: 1, maxLength: 100 },
  search_partners: { type: 'boolean' },
  tag: TAG,
  pingback_url: { type: 'string', format: 'url', maxLength: 2048 },
  postback_url: { type: 'string', format: 'url', maxLength: 2048 },
} as const satisfies Record<string, FieldRule>;

/** Keyword metrics functions: a past date range (up to 4 years back) and these sort orders. */
const METRICS = {
  ...COMMON,
  date_from: { type: 'string', format: 'date' },
  date_to: { type: 'string', format: 'date' },
  include_adult_keywords: { type: 'boolean' },
  sort_by: { type: 'string', enum: ['relevance', 'search_volume', 'competition_index', 'low_top_of_page_bid', 'high_top_of_page_bid'] },
} as const satisfies Record<string, FieldRule>;
const PAST: readonly CrossRule[] = [{ rule: 'date_range', from: 'date_from', to: 'date_to', window: 'past', maxYearsBack: 4 }];

/** Up to 1000 keywords of at most 80 characters and 10 words (search_volume, ad_traffic_by_keywords). */
const KEYWORDS_1000: FieldRule = { type: 'string_array', required: true, minItems: 1, maxItems: 1000, itemMaxLength: 80, itemMaxWords: 10 };

interface FunctionSpec {
  fn: string;
  result: 'keyword_ads_data' | 'ad_traffic';
  what: string;
  fields: Readonly<Record<string, FieldRule>>;
  cross: readonly CrossRule[];
}

const FUNCTIONS: readonly FunctionSpec[] = [
  {
    fn: 'search_volume', result: 'keyword_ads_data', what: 'search volume, competition, bids and monthly searches of up to 1000 keywords',
    fields: { keywords: KEYWORDS_1000, ...METRICS }, cross: PAST,
  },
  {
    fn: 'keywords_for_site', result: 'keyword_ads_data', what: 'up to 2000 keywords for a site or a page, with their metrics',
    fields: {
      target: { type: 'string', required: true, minLength: 1, maxLength: 2048 },
      target_type: { type: 'string', enum: ['site', 'page'] },
      ...METRICS,
    },
    cross: PAST,
  },
  {
    fn: 'keywords_for_keywords', result: 'keyword_ads_data', what: 'up to 20,000 suggestions for up to 20 seed keywords, with their metrics',
    fields: {
      keywords: { type: 'string_array', required: true, minItems: 1, maxItems: 20, itemMaxLength: 80 },
      target: { type: 'string', minLength: 1, maxLength: 2048 },
      ...METRICS,
    },
    cross: PAST,
  },
  {
    fn: 'ad_traffic_by_keywords', result: 'ad_traffic', what: 'an ad traffic forecast (cost, clicks, average cpc) for up to 1000 keywords at a bid',
    fields: {
      keywords: KEYWORDS_1000,
      bid: { type: 'number', required: true, min: 0 },
      match: { type: 'string', required: true, enum: ['exact', 'broad', 'phrase'] },
      ...COMMON,
      date_from: { type: 'string', format: 'date' },
      date_to: { type: 'string', format: 'date' },
      date_interval: { type: 'string', enum: ['next_week', 'next_month', 'next_quarter'] },
      sort_by: { type: 'string', enum: ['relevance', 'impressions', 'ctr', 'average_cpc', 'cost', 'clicks'] },
    },
    cross: [{ rule: 'together', fields: ['date_from', 'date_to'] }, { rule: 'date_range', from: 'date_from', to: 'date_to', window: 'future' }],
  },
];

const BASE = '/v3/keywords_data/{keywords_data}';
const family = { api: 'keywords_data', engine: 'keywords_data', version: VERSION } as const;

function functionEndpoints(f: FunctionSpec): EndpointDef[] {
  const id = `keywords_data.google_ads.${f.fn}`;
  return [
    {
      ...family, id: `${id}.task_post`, ref: 'live', method: 'POST', kind: 'task_post', path: `${BASE}/${f.fn}/task_post`,
      fn: f.fn, result: 'task_created', description: `Sets tasks: ${f.what}.`,
      fields: f.fields, cross: f.cross, maxTasksPerPost: 100, overflowCode: 40006, billing: 'post',
    },
    {
      ...family, id: `${id}.tasks_ready`, ref: 'live', method: 'GET', kind: 'tasks_ready', path: `${BASE}/${f.fn}/tasks_ready`,
      fn: 'tasks_ready', result: 'ready_list', description: `Completed ${f.fn} tasks not collected yet (id, endpoint).`,
      billing: 'free', maxResultsPerCall: 1000,
    },
    {
      ...family, id: `${id}.task_get`, ref: 'live', method: 'GET', kind: 'task_get', path: `${BASE}/${f.fn}/task_get/{id}`,
      fn: f.fn, result: f.result, description: `Results of a ${f.fn} task: ${f.what}.`,
      billing: 'free',
    },
    {
      // The live method: one task a call, and 12 calls a minute for the account.
      ...family, id: `${id}.live`, ref: 'live', method: 'POST', kind: 'live', path: `${BASE}/${f.fn}/live`,
      fn: f.fn, result: f.result, description: `Live: ${f.what}.`,
      fields: f.fields, cross: f.cross, maxTasksPerPost: 1, overflowCode: 40000, perMinute: 12, billing: 'request',
    },
  ];
}

const list = (id: string, path: string, fn: string, result: EndpointDef['result'], description: string): EndpointDef => ({
  ...family, id: `keywords_data.google_ads.${id}`, ref: 'live', method: 'GET', kind: 'list', path: `${BASE}/${path}`, fn, result, description, billing: 'free',
});

/** Each endpoint keeps the client's id (`keywords_data.google_ads.<fn>...`); older versions named them `keywords_ads.<fn>...`. */
const formerly = (e: EndpointDef): EndpointDef => ({ ...e, formerly: e.id.replace(/^keywords_data\.google_ads\./, 'keywords_ads.') });

export const KEYWORDS_ADS_ENDPOINTS: readonly EndpointDef[] = [
  ...FUNCTIONS.flatMap(functionEndpoints),
  list('status', 'status', 'status', 'keyword_ads_status', 'Whether the ads service has last month\'s data yet, and its latest update.'),
  list('locations', 'locations', 'locations', 'keyword_ads_locations', 'Locations the ads-based keyword API supports.'),
  list('locations.country', 'locations/{id}', 'locations', 'keyword_ads_locations', 'Locations of one country; the path takes its ISO code where other paths take a task id.'),
  list('languages', 'languages', 'languages', 'keyword_ads_languages', 'Languages the ads-based keyword API supports.'),
].map(formerly);
