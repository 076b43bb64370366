/** Acceptance: live-service SERP answers fed through `seo-etl ingest` land in typed columns; unknown item types are kept and reported. */
import { describe, expect, it } from 'vitest';
import { useIngestProject } from '../helpers/ingest-project.js';
import { ADVANCED_ENVELOPE, ADVANCED_ITEMS, REGULAR_ENVELOPE } from './live-fixtures.js';

const { ingest, published } = useIngestProject('serp-ingest');

describe('SERP answers of the live service through ingest', () => {
  it('every item type lands in typed columns, nested lists in child tables, the unknown type kept whole and reported', async () => {
    const summary = await ingest([['advanced.json', ADVANCED_ENVELOPE], ['regular.json', REGULAR_ENVELOPE]]);
    expect(summary).toMatch(/unknown item types kept: 1 \(serp_results__items:ai_cheat_sheet x1\)/);

    const q = published;
    const [result] = await q(`SELECT keyword, se_type, location_code, datetime, se_results_count, pages_count, items_count, refinement_chips FROM serp_results`);
    expect(result).toMatchObject({ keyword: 'running shoes', se_type: 'organic', location_code: 2840n, se_results_count: 1180000000n, pages_count: 2n, items_count: BigInt(ADVANCED_ITEMS.length) });
    expect(JSON.parse(String(result.refinement_chips)).items[0].title).toBe('Women');

    // One query ranks every item, whatever its type.
    const items = await q(`SELECT item_type, rank_absolute, rank_group, page, xpath, domain, url, title FROM serp_results__items ORDER BY rank_absolute`);
    expect(items.map((r) => r.item_type)).toEqual(ADVANCED_ITEMS.map((i) => i.type));
    expect(items.map((r) => Number(r.rank_absolute))).toEqual(ADVANCED_ITEMS.map((i) => i.rank_absolute));
    expect(items.every((r) => typeof r.xpath === 'string' && Number(r.page) >= 1)).toBe(true);

    const [organic] = await q(`SELECT * FROM serp_results__items WHERE item_type = 'organic' AND rank_group = 1`);
    expect(organic).toMatchObject({ domain: 'www.runnersworld.com', is_featured_snippet: true, rating_value: 4.6, rating_votes_count: 1289n, price_current: 129.99, price_currency: 'USD', extra: null });
    expect(organic.timestamp).toBeInstanceOf(Date);
    expect(JSON.parse(String(organic.about_this_result)).source).toBe('runnersworld.com');
    const [paid] = await q(`SELECT website_name, description_rows, extra_info, extra FROM serp_results__items WHERE item_type = 'paid'`);
    expect(paid).toMatchObject({ website_name: 'ShoeShop', extra: null });
    expect(JSON.parse(String(paid.description_rows))).toEqual(['Top brands', 'Easy returns']);
    const [fs] = await q(`SELECT featured_title, table_json FROM serp_results__items WHERE item_type = 'featured_snippet'`);
    expect(fs.featured_title).toBe('Choosing running shoes');
    const [lp] = await q(`SELECT phone, cid, is_paid, rating_value FROM serp_results__items WHERE item_type = 'local_pack'`);
    expect(lp).toMatchObject({ phone: '+1 555-0101', cid: '10537891234567890123', is_paid: false, rating_value: 4.6 });
    const [kg] = await q(`SELECT card_id, subtitle, image_url FROM serp_results__items WHERE item_type = 'knowledge_graph'`);
    expect(kg).toMatchObject({ card_id: '/m/02_4l', subtitle: 'Footwear' });

    // Nested lists.
    expect(await q(`SELECT l.title, l.url FROM serp_results__items__links l JOIN serp_results__items i ON i._id = l._parent_id ORDER BY i.rank_absolute`)).toEqual([
      { title: 'Women', url: 'https://www.shoeshop.com/women' }, { title: 'Trail', url: 'https://www.runnersworld.com/gear/trail' },
    ]);
    const paa = await q(`SELECT p.title AS question, e.item_type, e.featured_title, e.domain, e.extra FROM serp_results__items__people_also_ask p JOIN serp_results__items__people_also_ask__expanded e ON e._parent_id = p._id ORDER BY p._list_idx`);
    expect(paa[0]).toMatchObject({ question: 'How often should I replace running shoes?', item_type: 'people_also_ask_expanded_element', featured_title: 'Every 300-500 miles', domain: 'www.rei.com' });
    expect(paa[1]).toMatchObject({ item_type: 'people_also_ask_ai_overview_expanded_element', extra: null });
    expect(await q(`SELECT text, markdown FROM serp_results__items__people_also_ask__expanded__ai`)).toEqual([{ text: 'Not always.', markdown: 'Not always.' }]);
    expect(await q(`SELECT item_type, title, text FROM serp_results__items__knowledge_graph ORDER BY _list_idx`)).toEqual([
      { item_type: 'knowledge_graph_description_item', title: null, text: 'Running shoes are shoes designed for running.' },
      { item_type: 'knowledge_graph_row_item', title: 'Invented', text: '1830s' },
    ]);
    expect((await q(`SELECT source, title FROM serp_results__items__top_stories`))[0]).toEqual({ source: 'The Verge', title: 'Carbon plates everywhere' });
    expect((await q(`SELECT alt, image_url FROM serp_results__items__images`))[0]).toEqual({ alt: 'blue running shoe', image_url: 'https://static.nike.com/shoe.jpg' });
    expect((await q(`SELECT source, url FROM serp_results__items__video`))[0]).toEqual({ source: 'YouTube', url: 'https://www.youtube.com/watch?v=abc' });
    expect((await q(`SELECT title, price_current, source FROM serp_results__items__shopping`))[0]).toEqual({ title: 'Pegasus 41', price_current: 139.99, source: 'Nike' });
    expect((await q(`SELECT keyword FROM serp_results__items__related_searches ORDER BY _list_idx`)).map((r) => r.keyword)).toEqual(['running shoes women', 'best running shoes']);

    // The AI Overview typed: the overview, its parts and the source it cites.
    const [ai] = await q(`SELECT item_type, rank_absolute, markdown, asynchronous_ai_overview, extra FROM serp_results__items WHERE item_type = 'ai_overview'`);
    expect(ai).toMatchObject({ rank_absolute: 12n, markdown: 'Running shoes differ by...', asynchronous_ai_overview: false, extra: null });
    expect(await q(`SELECT item_type, text FROM serp_results__items__ai_overview_elements`)).toEqual([{ item_type: 'ai_overview_element', text: 'Running shoes differ by...' }]);
    expect(await q(`SELECT domain, url, _list_idx FROM serp_results__items__ai_overview_references`)).toEqual([{ domain: 'www.runnersworld.com', url: 'https://www.runnersworld.com/gear/best', _list_idx: 0 }]);
    // The unknown type: common columns typed, everything else kept in extra, and reported in a warehouse view.
    const [unknown] = await q(`SELECT item_type, rank_absolute, xpath, extra FROM serp_results__items WHERE item_type = 'ai_cheat_sheet'`);
    expect(unknown).toMatchObject({ item_type: 'ai_cheat_sheet', rank_absolute: 13n });
    expect(JSON.parse(String(unknown.extra))).toEqual({ cards: [{ q: 'Neutral or stability?', a: 'Depends on gait.' }] });

    // The regular variant's items, and the task's echo (device) for the views.
    expect(await q(`SELECT item_type, rank_group, domain FROM serp_regular__items ORDER BY rank_absolute`)).toEqual([
      { item_type: 'paid', rank_group: 1n, domain: 'www.shoeshop.com' }, { item_type: 'organic', rank_group: 1n, domain: 'www.runnersworld.com' }, { item_type: 'organic', rank_group: 2n, domain: 'www.nike.com' },
    ]);
    const history = await q(`SELECT device, se, date, domain, best_position FROM v_serp_rank_history ORDER BY best_position, domain`);
    expect(history.map((r) => [r.device, r.se, String(r.domain), Number(r.best_position)])).toEqual([
      ['mobile', 'google', 'runnersworld.com', 1], ['mobile', 'google', 'nike.com', 2],
    ]);
  });
});
