/**
 * The SERP endpoint list (E5) and the events search (E10-E12; result structure designed: docs/api-designed.md).
 * The official client has none of them: they keep the family's own ids (docs/architecture.md, "Endpoint ids").
 */
import type { EndpointDef } from '../../catalog/endpoint.js';
import { CALLBACKS, LOCATION, TAG } from '../fields.js';

export const EVENTS_ENDPOINTS: readonly EndpointDef[] = [
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
  },
  {
    id: 'serp.events.tasks_ready', ref: 'designed', method: 'GET', kind: 'tasks_ready', path: '/v3/serp/{engine_a}/events/tasks_ready',
    api: 'serp', fn: 'tasks_ready', engine: 'engine_a', seType: 'events', result: 'ready_list', version: '0.1.20240801',
    description: 'Completed events tasks not collected yet (id, endpoint_regular, endpoint_advanced, endpoint_html).',
    billing: 'free', maxResultsPerCall: 1000,
  },
  {
    id: 'serp.events.tasks_fixed', ref: 'E12', method: 'GET', kind: 'tasks_fixed', path: '/v3/serp/{engine_a}/events/tasks_fixed',
    api: 'serp', fn: 'tasks_fixed', engine: 'engine_a', seType: 'events', result: 'fixed_tasks', version: '0.1.20240801',
    description: 'Re-parsed events tasks not collected yet, completed within 24 hours.',
    billing: 'free', perMinute: 20, maxResultsPerCall: 1000,
  },
  ...(['regular', 'advanced', 'html'] as const).map((variant): EndpointDef => ({
    id: `serp.events.task_get.${variant}`, ref: 'E12', method: 'GET', kind: 'task_get',
    path: `/v3/serp/{engine_a}/events/task_get/${variant}/{id}`,
    api: 'serp', fn: 'task_get', engine: 'engine_a', seType: 'events',
    result: variant === 'html' ? 'events_html' : 'events_serp', version: '0.1.20240801',
    description: `The ${variant} result of an events task (structure designed: docs/api-designed.md).`,
    billing: 'free',
  })),
];
