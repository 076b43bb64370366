/** The sandbox's answers for keywords data: results of both keyword APIs, the ads API's live calls and free lists. */
import type { FamilySandbox } from '../../family.js';
import { withLocale } from '../../results.js';
import { generateKeywordData, type KeywordParams } from './data.js';
import { generatedSandbox } from '../../generated.js';
import { adsResult, computeAdsLive, handleAdsLanguages, handleAdsLocations, handleAdsStatus } from './ads-sandbox.js';

const ads = (fn: string) => `keywords_data.google_ads.${fn}.live`;

const sandbox: FamilySandbox = {
  handlers: {
    'keywords_data.google_ads.status': handleAdsStatus, 'keywords_data.google_ads.locations': handleAdsLocations,
    'keywords_data.google_ads.locations.country': handleAdsLocations, 'keywords_data.google_ads.languages': handleAdsLanguages,
  },
  live: Object.fromEntries(['search_volume', 'keywords_for_site', 'keywords_for_keywords', 'ad_traffic_by_keywords'].map((fn) => [ads(fn), computeAdsLive])),
  results: {
    keyword_data: (_def, task, ctx) => {
      const params = withLocale<KeywordParams>(task);
      const count = params.keywords ? ctx.settings.suggestionsPerKeyword : ctx.settings.keywordsPerSiteTask;
      return generateKeywordData(params, count, task.seed, { now: task.completeAt });
    },
    keyword_ads_data: (def, task, ctx) => adsResult(def, withLocale(task), ctx, task.seed, task.completeAt),
    ad_traffic: (def, task, ctx) => adsResult(def, withLocale(task), ctx, task.seed, task.completeAt),
  },
  fallback: generatedSandbox.fallback,
};
export default sandbox;
