/**
 * A family's in-flight limit (FamilyDef.inFlight; Labs: 30) is a sub-limit of the one limiter: with room for 64
 * calls at once, Labs never has more than 30 in flight while another family's calls use the rest. A group's limit
 * (FamilyDef.inFlightBy; each vendor's live LLM responses: 30) holds each group apart.
 */
import { describe, expect, it } from 'vitest';
import { RateLimiter, inFlightGroup } from '../../src/queue/index.js';

describe('a family in-flight sub-limit', () => {
  it('holds Labs to 30 calls in flight while Backlinks uses the rest of the concurrency', async () => {
    const limiter = new RateLimiter({ calls: 100_000, windowMs: 60_000, concurrency: 64 });
    const inFlight = { labs: 0, backlinks: 0 };
    const most = { labs: 0, backlinks: 0 };
    const gate: Array<() => void> = [];
    const call = (family: 'labs' | 'backlinks', id: string) => limiter.schedule(id, async () => {
      inFlight[family]++;
      most[family] = Math.max(most[family], inFlight[family]);
      await new Promise<void>((r) => gate.push(r));
      inFlight[family]--;
    });
    const all = [
      ...Array.from({ length: 50 }, () => call('labs', 'dataforseo_labs.google.ranked_keywords.live')),
      ...Array.from({ length: 30 }, () => call('backlinks', 'backlinks.summary.live')),
    ];
    // Let every call that can start start (until a moment passes with no new start), then release them all.
    for (let round = 0; round < 20; round++) {
      let seen = -1;
      while (seen !== gate.length) {
        seen = gate.length;
        await new Promise((r) => setTimeout(r, 30));
      }
      if (round === 0) expect([inFlight.labs, inFlight.backlinks]).toEqual([30, 30]);
      gate.splice(0).forEach((r) => r());
    }
    await Promise.all(all.map((p) => p.catch(() => undefined)));
    expect(most.labs).toBe(30);
    expect(most.backlinks).toBe(30);
  });

  it('holds each vendor\'s live LLM responses to 30 apart, while the queued ones and other families are not held', async () => {
    expect(inFlightGroup('ai_optimization.claude.llm_responses.live')).toEqual({ key: 'ai_optimization.claude.llm_responses.live', limit: 30 });
    expect(inFlightGroup('ai_optimization.ai_keyword_data.keywords_search_volume.live')).toEqual({ key: 'ai_optimization.ai_keyword_data.', limit: 30 });
    expect(inFlightGroup('ai_optimization.claude.llm_responses.task_post')).toBeUndefined();
    expect(inFlightGroup('dataforseo_labs.google.ranked_keywords.live')).toEqual({ key: 'dataforseo_labs', limit: 30 });
    expect(inFlightGroup('domain_analytics.whois.overview.live')).toEqual({ key: 'domain_analytics', limit: 30 });
    expect(inFlightGroup('backlinks.summary.live')).toBeUndefined();
    const limiter = new RateLimiter({ calls: 100_000, windowMs: 60_000, concurrency: 100 });
    const ids = { chat: 'ai_optimization.chat_gpt.llm_responses.live', claude: 'ai_optimization.claude.llm_responses.live', mentions: 'ai_optimization.llm_mentions.search_mentions.live' };
    const inFlight = { chat: 0, claude: 0, mentions: 0 };
    const most = { chat: 0, claude: 0, mentions: 0 };
    const gate: Array<() => void> = [];
    const call = (k: keyof typeof ids) => limiter.schedule(ids[k], async () => {
      inFlight[k]++;
      most[k] = Math.max(most[k], inFlight[k]);
      await new Promise<void>((r) => gate.push(r));
      inFlight[k]--;
    });
    const all = [...Array.from({ length: 40 }, () => call('chat')), ...Array.from({ length: 40 }, () => call('claude')), ...Array.from({ length: 35 }, () => call('mentions'))];
    for (let round = 0; round < 20; round++) {
      let seen = -1;
      while (seen !== gate.length) {
        seen = gate.length;
        await new Promise((r) => setTimeout(r, 30));
      }
      if (round === 0) expect(inFlight).toEqual({ chat: 30, claude: 30, mentions: 35 });
      gate.splice(0).forEach((r) => r());
    }
    await Promise.all(all.map((p) => p.catch(() => undefined)));
    expect(most).toEqual({ chat: 30, claude: 30, mentions: 35 });
  });
});
