/**
 * The legacy keyword family (E1-E3; its task_post endpoints are designed: docs/api-designed.md). The official client
 * has no operation on these paths (retired live), so they keep their own ids (docs/architecture.md, "Endpoint ids").
 */
import type { EndpointDef, FieldRule } from '../../catalog/endpoint.js';
import { CALLBACKS, LOCATION, TAG } from '../fields.js';

const keywordTaskFields = {
  ...LOCATION,
  search_partners: { type: 'boolean' },
  sort_by: { type: 'string', enum: ['relevance', 'search_volume', 'competition', 'cpc'] },
  tag: TAG,
  ...CALLBACKS,
} as const satisfies Record<string, FieldRule>;

export const LEGACY_KEYWORD_ENDPOINTS: readonly EndpointDef[] = [
  {
    id: 'keywords_for_site.task_post', ref: 'designed', method: 'POST', kind: 'task_post',
    path: '/v3/keywords_data/{keywords_data_legacy}/keywords_for_site/task_post',
    api: 'keywords_data', fn: 'keywords_for_site', engine: 'keywords_data_legacy', result: 'task_created', version: '0.1.20221214',
    description: 'Sets keywords-for-domain tasks: up to 700 keyword suggestions for a target domain.',
    fields: { target: { type: 'string', required: true, minLength: 1, maxLength: 255, format: 'domain' }, ...keywordTaskFields },
    maxTasksPerPost: 100, overflowCode: 40006, billing: 'post',
  },
  {
    id: 'keywords_for_site.tasks_ready', ref: 'E3', method: 'GET', kind: 'tasks_ready',
    path: '/v3/keywords_data/{keywords_data_legacy}/keywords_for_site/tasks_ready',
    api: 'keywords_data', fn: 'tasks_ready', engine: 'keywords_data_legacy', result: 'ready_list', version: '0.1.20221214',
    description: 'Completed keywords_for_site tasks not collected yet (id, endpoint).',
    billing: 'free', maxResultsPerCall: 1000,
  },
  {
    id: 'keywords_for_site.task_get', ref: 'E1', method: 'GET', kind: 'task_get',
    path: '/v3/keywords_data/{keywords_data_legacy}/keywords_for_site/task_get/{id}',
    api: 'keywords_data', fn: 'keywords_for_site', engine: 'keywords_data_legacy', result: 'keyword_data', version: '0.1.20221214',
    description: 'Results of a keywords-for-domain task.',
    billing: 'free',
  },
  {
    id: 'keywords_for_keywords.task_post', ref: 'designed', method: 'POST', kind: 'task_post',
    path: '/v3/keywords_data/{keywords_data_legacy}/keywords_for_keywords/task_post',
    api: 'keywords_data', fn: 'keywords_for_keywords', engine: 'keywords_data_legacy', result: 'task_created', version: '0.1.20221214',
    description: 'Sets keywords-for-keywords tasks: suggestions for up to 200 given keywords.',
    fields: { keywords: { type: 'string_array', required: true, minItems: 1, maxItems: 200, itemMaxLength: 80 }, ...keywordTaskFields },
    maxTasksPerPost: 100, overflowCode: 40006, billing: 'post',
  },
  {
    id: 'keywords_for_keywords.tasks_ready', ref: 'E3', method: 'GET', kind: 'tasks_ready',
    path: '/v3/keywords_data/{keywords_data_legacy}/keywords_for_keywords/tasks_ready',
    api: 'keywords_data', fn: 'tasks_ready', engine: 'keywords_data_legacy', result: 'ready_list', version: '0.1.20221214',
    description: 'Completed keywords_for_keywords tasks not collected yet (id, endpoint).',
    billing: 'free', maxResultsPerCall: 1000,
  },
  {
    id: 'keywords_for_keywords.task_get', ref: 'E2', method: 'GET', kind: 'task_get',
    path: '/v3/keywords_data/{keywords_data_legacy}/keywords_for_keywords/task_get/{id}',
    api: 'keywords_data', fn: 'keywords_for_keywords', engine: 'keywords_data_legacy', result: 'keyword_data', version: '0.1.20221214',
    description: 'Results of a keywords-for-keywords task.',
    billing: 'free',
  },
];
