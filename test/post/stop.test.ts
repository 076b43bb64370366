/** The pure decisions of posting: which refusals stop the account, fail a step or a batch; what fits a budget. */
import { describe, expect, test } from 'vitest';
import { refusalKind, accountStop, stopExitCode, newStops } from '../../src/post/stop.js';
import { withinBudget } from '../../src/post/index.js';
import { EXIT } from '../../src/exit.js';

describe('refusalKind', () => {
  test.each([
    [40100, 401, 'account'], [40200, 402, 'account'], [40203, 200, 'account'], [40204, 200, 'account'],
    [40205, undefined, 'account'], [40206, undefined, 'account'], [40207, 200, 'account'], [401, 401, 'account'],
    [40400, 404, 'retired'], [40402, 404, 'retired'], [40501, 200, 'request'], [40006, 200, 'request'],
  ] as const)('%i (HTTP %s) is %s', (code, http, kind) => {
    expect(refusalKind(code, http)).toBe(kind);
  });
});

describe('stops', () => {
  test("an account stop carries the service's words and the advice once; it decides exit 5 unless it names its own", () => {
    const s = accountStop(40203, 200, '40203 The cost limit has been exceeded.', { step: 'shop' });
    expect(s.message).toBe("40203 The cost limit has been exceeded. (the account's daily cost limit is reached: raise it in the dashboard or `seo-etl resume` tomorrow)");
    expect(accountStop(40203, 200, s.message).message).toBe(s.message);
    const stops = newStops();
    expect(stopExitCode(stops)).toBeUndefined();
    stops.account = s;
    expect(stopExitCode(stops)).toBe(EXIT.refused);
    stops.account = { ...s, exitCode: EXIT.unreachable };
    expect(stopExitCode(stops)).toBe(EXIT.unreachable);
  });
});

describe('withinBudget', () => {
  const t = (price: number, k: string) => ({ price, k });
  test('posts the tasks that fit, in order, and a cheaper one after one that did not; exact to the micro-dollar', () => {
    expect(withinBudget([t(0.075, 'a'), t(0.075, 'b'), t(0.075, 'c')], 9.85, 10).map((x) => x.k)).toEqual(['a', 'b']);
    expect(withinBudget([t(0.5, 'big'), t(0.01, 'small')], 9.7, 10).map((x) => x.k)).toEqual(['small']);
    expect(withinBudget([t(0.1, 'a'), t(0.2, 'b')], 9.7, 10).map((x) => x.k)).toEqual(['a', 'b']);
    expect(withinBudget([t(0.1, 'a')], 10, 10)).toEqual([]);
  });
});
