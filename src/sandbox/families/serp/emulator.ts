/** The sandbox's answers for SERP: result pages of every engine and type, the endpoint list, the events search. */
import type { FamilySandbox } from '../../family.js';
import { withLocale } from '../../results.js';
import { serpResult, settleSerpTask, SERP_LISTS, SERP_LIVE } from './sandbox.js';
import type { SerpParams } from './data.js';
import { generateEventsHtml, generateEventsSerp, type EventsParams } from './events-data.js';
import { handleEventsLocations, handleSerpEndpoints } from './lists.js';
import { generatedSandbox } from '../../generated.js';

const page = (def: Parameters<typeof serpResult>[0], task: Parameters<NonNullable<FamilySandbox['results']>[string]>[1], ctx: Parameters<typeof serpResult>[2], at: number) =>
  [serpResult(def, withLocale<SerpParams>(task), ctx, task.seed, at)];

const sandbox: FamilySandbox = {
  handlers: { 'serp.endpoints': handleSerpEndpoints, 'serp.events.locations': handleEventsLocations, ...SERP_LISTS },
  live: SERP_LIVE,
  results: {
    events_serp: (def, task, ctx, at) =>
      [generateEventsSerp(withLocale<EventsParams>(task), ctx.engines[def.engine ?? 'engine_a'], def.id.endsWith('.regular') ? 'regular' : 'advanced', task.seed, at)],
    events_html: (def, task, ctx, at) => [generateEventsHtml(withLocale<EventsParams>(task), ctx.engines[def.engine ?? 'engine_a'], task.seed, at)],
    serp_advanced: page, serp_regular: page, serp_html: page,
  },
  // A SERP task is billed for the pages it crawled and the options it used; task_get and postbacks report it.
  billed: Object.fromEntries(['serp_advanced', 'serp_regular', 'serp_html'].map((kind) => [kind, (def: Parameters<typeof serpResult>[0], task: Parameters<typeof settleSerpTask>[1], ctx: Parameters<typeof serpResult>[2], at: number) =>
    settleSerpTask(def, task, ctx, withLocale<SerpParams>(task), at)])),
  fallback: generatedSandbox.fallback,
};
export default sandbox;
