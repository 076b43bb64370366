/** On-page: crawl results. */
import type { FamilyDef } from '../../catalog/family.js';
import { completeFamily, livePath, type GeneratedFile } from '../generated.js';
import FILE from '../generated/on_page.json' with { type: 'json' };
import { ON_PAGE_ENDPOINTS } from './endpoints.js';
import { ON_PAGE_ITEM_TABLES, ON_PAGE_TABLES } from './tables.js';

const LIVE: Record<string, string> = {};
/** Lists the service bills per request though their kind is a list: instant pages, per page analysed (docs/api-live.md). */
const BILLED = { 'on_page.instant_pages': 'request' } as const;
const { endpoints, onDemandTables } = completeFamily(ON_PAGE_ENDPOINTS, ON_PAGE_TABLES, FILE as unknown as GeneratedFile, { prefix: 'onpage', version: '0.1.20240801', billing: BILLED, livePaths: ON_PAGE_ENDPOINTS.map((e) => livePath(e, LIVE)) });

const family: FamilyDef = {
  name: 'on_page',
  description: 'Site crawls: tasks, summary, pages, links, resources, duplicates, instant pages, content parsing, Lighthouse.',
  endpoints,
  tables: ON_PAGE_TABLES,
  onDemandTables: [...ON_PAGE_ITEM_TABLES, ...onDemandTables],
};
export default family;
