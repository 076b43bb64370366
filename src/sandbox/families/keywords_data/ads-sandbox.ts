/**
 * The ads-based keyword API: results of its task_get and live calls, and its free lists (status, locations,
 * languages). Task posting, tasks_ready and task_get themselves are the generic task handlers.
 */
import type { EndpointDef } from '../../../catalog/endpoint.js';
import type { Envelope } from '../../../api/envelope.js';
import type { ApiRequest, SandboxContext } from '../../context.js';
import { envelope, pathSegments, taskObject } from '../../envelope.js';
import { baseEcho, resolveLocale } from '../../echo.js';
import { EVENTS_LOCATIONS, LANGUAGES } from '../../data/locations.js';
import { generateAdTraffic, generateAdsKeywords, type AdsParams } from './ads-data.js';
import { taskSeed } from '../../handlers/tasks.js';
import type { LiveCompute } from '../../family.js';

/** The result of an ads keyword task (task_get, postback or live): keyword metrics or a traffic forecast. */
export function adsResult(def: EndpointDef, params: AdsParams, ctx: SandboxContext, seed: number, now: number): unknown[] {
  if (def.result === 'ad_traffic') return generateAdTraffic(params, seed);
  return generateAdsKeywords(def.fn, params, { perSite: ctx.settings.keywordsPerSiteTask, perKeyword: ctx.settings.suggestionsPerKeyword }, seed, now);
}

/** Live: answered at once from the same generator, with the location and language the service resolves. */
export const computeAdsLive: LiveCompute = (task, req, ctx) => {
  const seed = taskSeed(req.def.id, task);
  return { result: adsResult(req.def, { ...task, ...resolveLocale(task) } as AdsParams, ctx, seed, req.now) };
};

function listAnswer(req: ApiRequest, ctx: SandboxContext, result: unknown[]): Envelope {
  const task = taskObject({ code: 20000, startedNs: req.startedNs, path: pathSegments(req.path), data: { ...baseEcho(req.def, ctx.engines), ...Object.fromEntries(req.query) }, result });
  return envelope(req.def.version, [task], req.startedNs);
}

/** Google updates keyword data mid-month: from the 15th the previous month is in. */
export function handleAdsStatus(req: ApiRequest, ctx: SandboxContext): Envelope {
  const d = new Date(req.now);
  const actual = d.getUTCDate() >= 15;
  const update = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - (actual ? 0 : 1), 15));
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - (actual ? 1 : 2), 1));
  return listAnswer(req, ctx, [{
    actual_data: actual,
    date_update: update.toISOString().slice(0, 10),
    last_year_in_monthly_searches: last.getUTCFullYear(),
    last_month_in_monthly_searches: last.getUTCMonth() + 1,
  }]);
}

/** Every location, or one country's (`locations/{country}`, by ISO code). */
export function handleAdsLocations(req: ApiRequest, ctx: SandboxContext): Envelope {
  const country = req.id?.toUpperCase();
  return listAnswer(req, ctx, EVENTS_LOCATIONS.filter((l) => !country || l.country_iso_code === country).map((l) => ({ ...l })));
}

export function handleAdsLanguages(req: ApiRequest, ctx: SandboxContext): Envelope {
  return listAnswer(req, ctx, LANGUAGES.map(([code, name]) => ({ language_name: name, language_code: code })));
}
