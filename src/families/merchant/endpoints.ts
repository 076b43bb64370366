/** Merchant shopping results (E8, E9; task_post designed, the HTML variant from the live service). */
import type { EndpointDef } from '../../catalog/endpoint.js';
import { CALLBACKS, LOCATION, TAG } from '../fields.js';

/** The client's ids (`merchant.google.products...`); older versions named them `merchant.products...`. */
const formerly = (e: EndpointDef): EndpointDef => ({ ...e, formerly: e.id.replace(/^merchant\.google\.products\./, 'merchant.products.') });

export const MERCHANT_ENDPOINTS: readonly EndpointDef[] = ([
  {
    id: 'merchant.google.products.task_post', ref: 'designed', method: 'POST', kind: 'task_post', path: '/v3/merchant/{merchant}/products/task_post',
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
  },
  {
    id: 'merchant.google.products.tasks_ready', ref: 'E8', method: 'GET', kind: 'tasks_ready', path: '/v3/merchant/{merchant}/products/tasks_ready',
    api: 'merchant', fn: 'tasks_ready', engine: 'merchant', seType: 'shopping', result: 'ready_list', version: '0.1.20240801',
    description: 'Completed merchant products tasks not collected yet (id, endpoint_advanced).',
    billing: 'free', maxResultsPerCall: 1000,
  },
  {
    id: 'merchant.google.products.task_get.advanced', ref: 'E9', method: 'GET', kind: 'task_get', path: '/v3/merchant/{merchant}/products/task_get/advanced/{id}',
    api: 'merchant', fn: 'products', engine: 'merchant', seType: 'shopping', result: 'merchant_shopping', version: '0.1.20240801',
    description: 'The advanced shopping result of a merchant products task; the all-zero id returns every item type.',
    billing: 'free',
  },
  {
    id: 'merchant.google.products.task_get.html', ref: 'live', method: 'GET', kind: 'task_get', path: '/v3/merchant/{merchant}/products/task_get/html/{id}',
    api: 'merchant', fn: 'products', engine: 'merchant', seType: 'shopping', result: 'merchant_html', version: '0.1.20240801',
    description: 'The raw HTML pages of a merchant products task (the live service keeps them 7 days).',
    billing: 'free',
  },
] satisfies EndpointDef[]).map(formerly);
