/** On-page: the resources of a crawl task (E7). */
import type { EndpointDef } from '../../catalog/endpoint.js';
import { FILTER_OPERATORS, TAG } from '../fields.js';

export const ON_PAGE_ENDPOINTS: readonly EndpointDef[] = [
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
];
