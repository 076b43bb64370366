/**
 * The keyword overlap and LLM brand mentions views over answers in the live shapes (the sandbox's, values set by
 * hand) fed through ingest: overlap finds exactly the keywords two or more domains rank for organically, with each
 * domain's position and the volume; brand mentions count each LLM's latest answer to a question naming a brand, and
 * the sources those answers cite.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { VIEWS } from '../../src/publish/views.js';
import { ROOT } from '../helpers/project.js';
import { useIngestProject } from '../helpers/ingest-project.js';

const { post, ingest, rows } = useIngestProject('overlap-views');

const view = (name: string) => VIEWS.find((v) => v.name === name)!.select;
/** The analyst's query of docs/pipelines.md that reads `from` (one statement of its sql blocks), as published. */
function docQuery(from: string): string {
  const doc = readFileSync(path.join(ROOT, 'docs/pipelines.md'), 'utf8');
  const statements = [...doc.matchAll(/```sql\n([\s\S]*?)```/g)].flatMap((m) => m[1].split(';'));
  const found = statements.filter((x) => x.includes(`FROM ${from}`));
  expect(found, from).toHaveLength(1);
  return found[0].replace(/^\s*--.*$/gm, '').replace(/^[\s]*(?:\n|$)/gm, '').trim();
}
/** A query over the views as the published warehouse has them: each view inlined as a subquery. */
const overViews = (sql: string) => VIEWS.reduce((text, v) => text.replace(new RegExp(`\\b${v.name}\\b`, 'g'), `(${v.select})`), sql);

describe('keyword overlap between competitors', () => {
  it('finds exactly the keywords two or more domains rank for, with each position and the volume', async () => {
    // Per domain: [keyword, organic position] (paid: a paid ad, which does not count).
    const ranks: Record<string, Array<[string, number, 'organic' | 'paid']>> = {
      'a.com': [['tents', 3, 'organic'], ['stoves', 5, 'organic'], ['lanterns', 7, 'organic'], ['a only', 1, 'organic'], ['a too', 2, 'organic']],
      'b.com': [['stoves', 4, 'organic'], ['lanterns', 9, 'organic'], ['tents', 1, 'paid'], ['b only', 3, 'organic'], ['b too', 8, 'organic']],
      'c.com': [['lanterns', 2, 'organic'], ['c only', 6, 'organic'], ['c too', 11, 'organic'], ['c also', 12, 'organic'], ['c last', 13, 'organic']],
    };
    const answers: Array<[string, unknown]> = [];
    for (const [domain, list] of Object.entries(ranks)) {
      const env = await post('/v3/dataforseo_labs/google/ranked_keywords/live', { target: domain, location_code: 2840, language_code: 'en', limit: 5 });
      const items = env.tasks[0].result[0].items;
      expect(items).toHaveLength(5);
      list.forEach(([kw, pos, type], i) => {
        items[i].keyword_data.keyword = kw;
        items[i].keyword_data.keyword_info.search_volume = kw.length * 100;
        Object.assign(items[i].ranked_serp_element.serp_item, { type, rank_group: pos, url: `https://${domain}/${kw.replace(' ', '-')}` });
      });
      answers.push([`ranked-${domain}.json`, env]);
    }
    await ingest(answers);
    const overlap = await rows(`SELECT keyword, domain, position, search_volume, domains_ranking, url, location_code, language_code FROM (${view('v_labs_keyword_overlap')}) ORDER BY keyword, domain`);
    expect(overlap.map((r) => [r.keyword, r.domain, r.position, Number(r.search_volume), Number(r.domains_ranking)])).toEqual([
      ['lanterns', 'a.com', 7, 800, 3],
      ['lanterns', 'b.com', 9, 800, 3],
      ['lanterns', 'c.com', 2, 800, 3],
      ['stoves', 'a.com', 5, 600, 2],
      ['stoves', 'b.com', 4, 600, 2],
    ]);
    expect([overlap[0].url, Number(overlap[0].location_code), overlap[0].language_code]).toEqual(['https://a.com/lanterns', 2840, 'en']);
    // docs/pipelines.md's query: shared keywords where a competitor outranks the domain.
    const outranked = await rows(overViews(docQuery('v_labs_keyword_overlap o')).replaceAll("'example.com'", "'a.com'"));
    expect(outranked.map((r) => [r.keyword, r.our_position, r.competitor, r.their_position])).toEqual([['lanterns', 7, 'c.com', 2], ['stoves', 5, 'b.com', 4]]);
  });
});

describe('LLM mentions of a brand', () => {
  it('counts the latest answer to each question per model, with the sources it cites', async () => {
    const env = await post('/v3/ai_optimization/llm_mentions/search_mentions/live', { target: [{ keyword: 'trailhub' }], platform: 'chat_gpt', location_code: 2840, language_code: 'en', limit: 3 });
    const items = env.tasks[0].result[0].items;
    expect(items).toHaveLength(3);
    const answer = (i: number, platform: string, model: string, question: string, brands: string[], sources: string[]) =>
      Object.assign(items[i], {
        platform, model_name: model, question,
        brand_entities: brands.map((title, r) => ({ rank: r + 1, title, category: 'outdoor' })),
        sources: sources.map((url, r) => ({ ...items[0].sources?.[0], rank: r + 1, url, domain: new URL(url).hostname })),
      });
    answer(0, 'chat_gpt', 'gpt-4o', 'best tent?', ['TrailHub', 'Acme'], ['https://a.org/1', 'https://b.org/1']);
    answer(1, 'chat_gpt', 'gpt-4o', 'best stove?', ['TrailHub'], ['https://a.org/2']);
    answer(2, 'google', 'ai_overview', 'best tent?', ['Acme'], []);
    // A later collection: the stove answer no longer names TrailHub but Acme; the other answers are the same.
    const later = structuredClone(env);
    later.tasks[0].id = '11261537-0000-0000-0000-0000000000a2';
    later.tasks[0].result[0].items[1].brand_entities = [{ rank: 1, title: 'Acme', category: 'outdoor' }];
    await ingest([['mentions-1.json', env]]);
    await new Promise((r) => setTimeout(r, 20));
    await ingest([['mentions-2.json', later]]);
    const got = await rows(`SELECT brand, platform, model_name, mentions, cited_urls, cited_domains_count, cited_domains, location_code, language_code FROM (${view('v_ai_llm_brand_mentions')}) ORDER BY brand, platform`);
    expect(got.map((r) => [r.brand, r.platform, r.model_name, Number(r.mentions), Number(r.cited_urls), Number(r.cited_domains_count), r.cited_domains])).toEqual([
      ['Acme', 'chat_gpt', 'gpt-4o', 2, 3, 2, 'a.org, b.org'],
      ['Acme', 'google', 'ai_overview', 1, 0, 0, null],
      ['TrailHub', 'chat_gpt', 'gpt-4o', 1, 2, 2, 'a.org, b.org'],
    ]);
    expect([Number(got[0].location_code), got[0].language_code]).toEqual([2840, 'en']);
    // docs/pipelines.md's query: each brand's share of an LLM's answers naming brands.
    const shares = await rows(overViews(docQuery('v_ai_llm_brand_mentions')));
    expect(shares.map((r) => [r.platform, r.brand, Number(r.share_pct)])).toEqual([['chat_gpt', 'Acme', 66.7], ['chat_gpt', 'TrailHub', 33.3], ['google', 'Acme', 100]]);
  });
});
