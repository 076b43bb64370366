/** docs/api-live.md `## Events`: local event times are not UTC; the fields the live service adds are kept typed. */
import { describe, expect, it } from 'vitest';
import { useSandbox, pathOf } from '../sandbox/helpers.js';
import { normalizeTask, NormalizeStats } from '../../src/normalize/extract.js';
import type { ApiTask } from '../../src/api/envelope.js';

const box = useSandbox({ completion_delay_ms: 0, rate_limit_calls: 100000 });

const ctx = { runId: 'r1', loadedAt: new Date('2026-11-01T00:00:00Z'), engines: ['alpha'] };
const rows = (out: Map<string, Record<string, unknown>[]>, t: string) => out.get(t) ?? [];

async function advanced(keyword: string): Promise<ApiTask> {
  const id = (await box.api.post(pathOf('serp.events.task_post'), [{ keyword, location_code: 2840, depth: 30 }])).json.tasks[0].id;
  return (await box.api.get(pathOf('serp.events.task_get.advanced', id))).json.tasks[0];
}

describe('events', () => {
  it('[events.local_time] a time without a zone is kept as local wall time and flagged, never stored as UTC; a zoned one is an instant', async () => {
    const task = await advanced('jazz');
    const stats = new NormalizeStats();
    const out = normalizeTask({ endpointId: 'serp.events.task_get.advanced', task, version: '0.1' }, ctx, stats);
    const items = rows(out, 'events_serp__items');
    const src = (task.result as any[])[0].items;
    const local = items.filter((r) => r.start_datetime_has_zone === false);
    const zoned = items.filter((r) => r.start_datetime_has_zone === true);
    expect(local.length).toBeGreaterThan(0);
    expect(zoned.length).toBeGreaterThan(0);
    for (const [k, r] of items.entries()) {
      const given = src[k].event_dates.start_datetime as string;
      if (given.endsWith('+00:00')) expect(r).toMatchObject({ start_datetime: new Date(given), start_datetime_local: null });
      else expect(r).toMatchObject({ start_datetime: null, start_datetime_local: given.replace('T', ' ') });
    }
    // A hand-made local time: 19:30 at the venue stays 19:30, with no instant invented for it.
    const hand = { ...task, result: [{ keyword: 'k', items: [{ type: 'event_item', event_dates: { start_datetime: '2026-12-31T19:30:00', end_datetime: '2027-01-01T01:00:00+01:00', displayed_dates: 'Dec 31' } }] }] } as ApiTask;
    const one = rows(normalizeTask({ endpointId: 'serp.events.task_get.advanced', task: hand, version: '0.1' }, ctx), 'events_serp__items')[0];
    expect(one).toMatchObject({ start_datetime: null, start_datetime_local: '2026-12-31 19:30:00', start_datetime_has_zone: false, end_datetime: new Date('2027-01-01T00:00:00Z'), end_datetime_local: null, end_datetime_has_zone: true, extra: null });
    expect(stats.badValueCount).toBe(0);
  });

  it('[events.added_fields] refinement_chips and se_results_count are typed, nothing left in extra', async () => {
    const task = await advanced('opera');
    const res = (task.result as any[])[0];
    const stats = new NormalizeStats();
    const out = normalizeTask({ endpointId: 'serp.events.task_get.advanced', task, version: '0.1' }, ctx, stats);
    const top = rows(out, 'events_serp')[0];
    expect(top).toMatchObject({ se_results_count: res.se_results_count, refinement_chips_xpath: res.refinement_chips.xpath, extra: null });
    const chips = rows(out, 'events_serp__refinement_chips');
    expect(chips.map((c) => c.title)).toEqual(res.refinement_chips.items.map((c: any) => c.title));
    expect(chips.every((c) => c.item_type === 'refinement_chips_element' && c._parent_id === top._id && c.extra === null)).toBe(true);
    expect(stats.unknownFieldCount).toBe(0);
  });
});
