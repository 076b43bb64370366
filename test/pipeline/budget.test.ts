/**
 * The one answer to "may I spend X?" (issue 30): posting and live calls ask the same Budget, which counts what
 * was spent, what calls in flight may cost, and which steps it stopped.
 */
import { describe, expect, test } from 'vitest';
import { Budget } from '../../src/pipeline/index.js';

describe('Budget', () => {
  test('holds what calls in flight may cost against the budget until each settles with its real cost', async () => {
    let ledgerReads = 0;
    const b = new Budget(1, async () => { ledgerReads++; return 0.4; });
    const a = await b.take(0.3);
    expect(a).not.toBeNull();
    expect(await b.take(0.31)).toBeNull(); // 0.4 spent + 0.3 in flight + 0.31 > 1
    a!.settle(0.1); // the call cost less than its price
    expect(await b.spentUsd()).toBeCloseTo(0.5);
    expect(await b.take(0.5)).not.toBeNull(); // exactly the budget: allowed (compared in micro-dollars)
    expect(await b.take(0.000001)).toBeNull();
    expect(ledgerReads).toBe(1);
    expect(await b.refresh()).toBe(0.4); // the ledger's sum again
    expect(ledgerReads).toBe(2);
  });

  test('fitting: the tasks of a batch that fit after what was spent and is in flight, cheaper ones after one that did not', async () => {
    const b = new Budget(10, async () => 9.7);
    const t = (price: number, k: string) => ({ price, k });
    expect((await b.fitting([t(0.5, 'big'), t(0.01, 'small'), t(0.2, 'mid')])).map((x) => x.k)).toEqual(['small', 'mid']);
    await b.take(0.25);
    expect((await b.fitting([t(0.05, 'a'), t(0.01, 'b')])).map((x) => x.k)).toEqual(['a']);
  });

  test('one record of the steps it stopped', () => {
    const b = new Budget(1, async () => 0);
    expect(b.stopped).toBe(false);
    b.stop('live');
    b.stop('live');
    expect([...b.stoppedSteps]).toEqual(['live']);
    expect(b.stopped).toBe(true);
  });
});
