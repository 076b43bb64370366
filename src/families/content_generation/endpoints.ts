/** Content generation: paraphrase (E6). The official client has no such family: the id is the family's own (docs/architecture.md, "Endpoint ids"). */
import type { EndpointDef } from '../../catalog/endpoint.js';
import { TAG } from '../fields.js';

export const CONTENT_GENERATION_ENDPOINTS: readonly EndpointDef[] = [
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
];
