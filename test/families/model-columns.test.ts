/**
 * Nothing the client's models declare lands only in `extra`. The hand-declared families' tables are not derived
 * from the models, so for each of their result kinds a result with every field its model declares (from the
 * committed declarations, src/families/generated/models.json) is normalized: every field must find a typed column,
 * a child table or a documented ignore. A client update that adds a field fails here until a column takes it.
 */
import { describe, expect, it } from 'vitest';
import { normalizeTask, NormalizeStats } from '../../src/normalize/extract.js';
import { handDeclaredResults, ITEM_TYPE_NAMES, samplesOf } from '../helpers/model-sample.js';

/** What normalizing `results` as answers of `endpointId` could not type: unknown fields, bad values, unknown item types. */
function leftOut(endpointId: string, results: Record<string, unknown>[]): string[] {
  const stats = new NormalizeStats();
  normalizeTask({ endpointId, version: '0.1.20240801', task: { id: 'model-sample', status_code: 20000, status_message: 'Ok.', result: results } as never }, { runId: 'test', loadedAt: new Date(0) }, stats);
  return [
    ...[...stats.unknownFields.keys()].map((k) => `no column: ${k}`),
    ...[...stats.badValues.keys()].map((k) => `value not typed: ${k}`),
    ...[...stats.unknownItemTypes.keys()].map((k) => `item type unknown: ${k}`),
  ];
}

describe('hand-declared tables take every field of the client models', () => {
  const cases = handDeclaredResults();

  it('covers the SERP, merchant, on-page resources and account result kinds', () => {
    const kinds = new Set(cases.map((c) => c.kind));
    for (const k of ['serp_advanced', 'serp_regular', 'merchant_shopping', 'onpage_resources', 'user_data', 'domain_technologies']) expect(kinds, k).toContain(k);
    expect(cases.length).toBeGreaterThan(60);
  });

  it.each(cases.map((c) => [c.endpointId, c.model] as const))('%s (%s): every model field lands in a typed column', (endpointId, model) => {
    const results = samplesOf(model, ITEM_TYPE_NAMES);
    expect(results.length).toBeGreaterThan(0);
    expect(leftOut(endpointId, results)).toEqual([]);
  });

  it('names a field the models add that no column takes', () => {
    const [organic] = samplesOf('SerpGoogleOrganicLiveAdvancedResultInfo', ITEM_TYPE_NAMES);
    const items = organic.items as Record<string, unknown>[];
    items[0] = { ...items[0], field_of_a_newer_client: 'x' };
    expect(leftOut('serp.google.organic.live.advanced', [{ ...organic, new_result_field: 1, items }])).toEqual([
      'no column: serp_results.new_result_field', `no column: serp_results__items.field_of_a_newer_client`,
    ]);
  });
});
