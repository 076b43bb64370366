/** Request field rules several families share (callbacks, tags, locations, filter operators). */
import type { FieldRule } from '../catalog/endpoint.js';

export const TAG: FieldRule = { type: 'string', maxLength: 255 };
export const CALLBACKS = {
  pingback_url: { type: 'string', format: 'url', maxLength: 2048 },
  postback_url: { type: 'string', format: 'url', maxLength: 2048 },
} as const satisfies Record<string, FieldRule>;
export const LOCATION = {
  location_code: { type: 'integer', min: 1 },
  location_name: { type: 'string', minLength: 1, maxLength: 255 },
  language_code: { type: 'string', minLength: 2, maxLength: 10 },
  language_name: { type: 'string', minLength: 1, maxLength: 100 },
} as const satisfies Record<string, FieldRule>;
export const FILTER_OPERATORS = ['regex', 'not_regex', '<', '<=', '>', '>=', '=', '<>', 'in', 'not_in', 'like', 'not_like'] as const;
