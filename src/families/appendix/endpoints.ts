/**
 * The account endpoints of the live service (docs/api-live.md, `## Limits and account`): both free. user_data proves
 * the credentials and tells the balance and limits (`seo-etl check`); webhook_resend re-sends the pingbacks and
 * postbacks of up to 100 given tasks without charging them again.
 */
import type { EndpointDef } from '../../catalog/endpoint.js';

const VERSION = '0.1.20240801';

export const APPENDIX_ENDPOINTS: readonly EndpointDef[] = [
  {
    id: 'appendix.user_data', ref: 'live', method: 'GET', kind: 'list', path: '/v3/appendix/user_data',
    api: 'appendix', fn: 'user_data', result: 'user_data', version: VERSION,
    description: 'The account: login, balance, spending and rate limits with their use (free).',
    billing: 'free',
  },
  {
    id: 'appendix.webhook_resend', ref: 'live', method: 'POST', kind: 'list', path: '/v3/appendix/webhook_resend',
    // Its tasks answer 20100 Task Created with no result, as a task post does.
    api: 'appendix', fn: 'webhook_resend', result: 'task_created', version: VERSION,
    description: 'Re-sends the pingback or postback of each given task (up to 100 per call; free, never billed twice).',
    fields: { id: { type: 'string', required: true, format: 'uuid' } },
    maxTasksPerPost: 100, overflowCode: 40006, billing: 'free',
  },
];
