/** Which handler answers each catalog endpoint. Every endpoint of the catalog must have one (a test checks). */
import type { Envelope } from '../api/envelope.js';
import type { EndpointDef } from '../api/catalog.js';
import type { ApiRequest, SandboxContext } from './context.js';
import { handleTaskGet, handleTaskPost, handleTasksFixed, handleTasksReady } from './handlers/tasks.js';
import { handleEventsLocations, handleSerpEndpoints } from './handlers/lists.js';
import { merchantZeroId } from './handlers/merchant.js';
import { handleLive, type LiveCompute } from './handlers/live.js';
import { computeParaphrase } from './handlers/paraphrase.js';
import { computeResources } from './handlers/onpage.js';
import { computeDomains } from './handlers/domains.js';
import { computeErrors } from './handlers/errors.js';
import { SERP_LISTS, SERP_LIVE } from './handlers/serp.js';
import { envelope, messageWith, pathSegments, taskObject } from './envelope.js';
import { computeAdsLive, handleAdsLanguages, handleAdsLocations, handleAdsStatus } from './handlers/keywords-ads.js';
import { handleUserData, handleWebhookResend } from './handlers/appendix.js';

export type Handler = (req: ApiRequest, ctx: SandboxContext) => Envelope;

const BY_ID: Record<string, Handler> = {
  'serp.endpoints': handleSerpEndpoints,
  'serp.events.locations': handleEventsLocations,
  'keywords_ads.status': handleAdsStatus, 'keywords_ads.locations': handleAdsLocations, 'keywords_ads.locations.country': handleAdsLocations, 'keywords_ads.languages': handleAdsLanguages,
  'appendix.user_data': handleUserData,
  'appendix.webhook_resend': handleWebhookResend,
  ...SERP_LISTS,
};

const LIVE: Record<string, LiveCompute> = {
  'content_generation.paraphrase.live': computeParaphrase,
  'on_page.resources': computeResources,
  'domain_analytics.errors': computeErrors,
  'domain_analytics.domains_by_html_terms.live': computeDomains,
  ...Object.fromEntries(['search_volume', 'keywords_for_site', 'keywords_for_keywords', 'ad_traffic_by_keywords'].map((fn) => [`keywords_ads.${fn}.live`, computeAdsLive])),
  ...SERP_LIVE,
};

const notImplemented: Handler = (req) =>
  envelope(req.def.version, [taskObject({ code: 50100, message: messageWith(50100, `${req.def.id} is not emulated yet`), startedNs: req.startedNs, path: pathSegments(req.path), data: {}, result: null })], req.startedNs);

export function handlerFor(def: EndpointDef): Handler {
  const byId = BY_ID[def.id];
  if (byId) return byId;
  const live = LIVE[def.id];
  if (live) return (req, ctx) => handleLive(req, ctx, live);
  switch (def.kind) {
    case 'task_post': return handleTaskPost;
    case 'tasks_ready': return handleTasksReady;
    case 'tasks_fixed': return handleTasksFixed;
    case 'task_get': return def.result === 'merchant_shopping' ? (req, ctx) => handleTaskGet(req, ctx, merchantZeroId) : (req, ctx) => handleTaskGet(req, ctx);
    default: return notImplemented;
  }
}
