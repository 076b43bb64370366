/** Backlinks: summaries, backlinks, anchors, referring domains and their history. Declared from the generated declarations. */
import type { FamilyDef } from '../../catalog/family.js';
import { generatedEndpoints, generatedTables, type GeneratedFile } from '../generated.js';
import { BACKLINKS_REPORT, BACKLINKS_VIEWS } from './views.js';
import FILE from '../generated/backlinks.json' with { type: 'json' };

const file = FILE as unknown as GeneratedFile;
const endpoints = generatedEndpoints(file, { prefix: 'backlinks', version: '0.1.20240801' });

const family: FamilyDef = {
  name: 'backlinks',
  description: 'The backlink index: summaries, backlinks, anchors, referring domains and networks, history.',
  endpoints,
  onDemandTables: generatedTables(file, endpoints),
  views: BACKLINKS_VIEWS,
  report: BACKLINKS_REPORT,
};
export default family;
