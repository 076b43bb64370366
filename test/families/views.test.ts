/**
 * The Labs and Backlinks views over rows loaded the way a user loads them (two saved answers fed through ingest):
 * striking distance keeps the organic keywords at positions 4 to 20 with their volume; referring domain changes
 * lists what the latest collection gained and lost against the one before.
 */
import { describe, expect, it } from 'vitest';
import { VIEWS } from '../../src/publish/views.js';
import { useIngestProject } from '../helpers/ingest-project.js';

const { post, ingest, rows } = useIngestProject('family-views');

describe('Labs and Backlinks views', () => {
  it('answer striking distance and referring domains gained and lost', async () => {
    const ranked = await post('/v3/dataforseo_labs/google/ranked_keywords/live', { target: 'example.com', location_code: 2840, language_code: 'en', limit: 10 });
    const items = ranked.tasks[0].result[0].items;
    // Positions 2, 5, 20, 21 on organic items, one paid: only 5 and 20 are in striking distance.
    [2, 5, 20, 21, 7].forEach((pos, i) => Object.assign(items[i].ranked_serp_element.serp_item, { type: i === 4 ? 'paid' : 'organic', rank_group: pos }));
    // The rest of the generated items rank past the window, so the five above decide the view.
    items.slice(5).forEach((it: any) => Object.assign(it.ranked_serp_element.serp_item, { type: 'organic', rank_group: 45 }));
    items.forEach((it: any, i: number) => { it.keyword_data.keyword = `kw ${i}`; });
    const first = await post('/v3/backlinks/referring_domains/live', { target: 'example.com', limit: 5 });
    const second = structuredClone(first);
    second.tasks[0].id = '11261537-0000-0000-0000-000000000002';
    const domains = first.tasks[0].result[0].items.map((x: any) => x.domain);
    second.tasks[0].result[0].items[0].domain = 'gained.example';
    await ingest([['ranked.json', ranked], ['refs-1.json', first]]);
    await new Promise((r) => setTimeout(r, 20));
    await ingest([['refs-2.json', second]]);

    const view = (name: string) => VIEWS.find((v) => v.name === name)!.select;
    const striking = await rows(`SELECT keyword, position, search_volume FROM (${view('v_labs_striking_distance')}) ORDER BY position`);
    expect(striking.map((r) => [r.keyword, r.position])).toEqual([['kw 1', 5], ['kw 2', 20]]);
    expect(striking.every((r) => typeof r.search_volume === 'bigint' || r.search_volume === null)).toBe(true);
    const changes = await rows(`SELECT target, referring_domain, change FROM (${view('v_backlinks_referring_domain_changes')}) ORDER BY change, referring_domain`);
    expect(changes).toEqual([
      ...(domains.slice(1).includes(domains[0]) ? [] : [{ target: 'example.com', referring_domain: domains[0], change: 'lost' }]),
      { target: 'example.com', referring_domain: 'gained.example', change: 'new' },
    ]);
  });
});
