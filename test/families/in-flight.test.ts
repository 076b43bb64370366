/**
 * A family's in-flight limit (FamilyDef.inFlight; Labs: 30) is a sub-limit of the one limiter: with room for 64
 * calls at once, Labs never has more than 30 in flight while another family's calls use the rest.
 */
import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/queue/index.js';

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
});
