/** Domain analytics: errors (E13) and domains by HTML terms (E14). */
import type { EndpointDef } from '../../catalog/endpoint.js';
import { TAG } from '../fields.js';

const HTML_TERMS_OPERATORS = ['<', '<=', '>', '>=', '=', '<>', 'in', 'not_in', 'like', 'not_like'] as const;
export const HTML_TERMS_ORDER_FIELDS = ['domain_rank', 'domain', 'last_visited', 'country_iso_code', 'language_code', 'content_language_code'] as const;
export const DOMAIN_ANALYTICS_ENDPOINTS: readonly EndpointDef[] = [
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
    id: 'domain_analytics.technologies.domains_by_html_terms.live', formerly: 'domain_analytics.domains_by_html_terms.live', ref: 'E14', method: 'POST', kind: 'live',
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
];
