import { describe, expect, test } from 'vitest';
import { askAgain } from '../../src/collect/fixed.js';

// Whether a tasks_fixed list that failed stays planned for `resume` (src/collect/fixed.ts).
describe('askAgain', () => {
  test.each([
    ['40202 after the retries', 40202, undefined, true],
    ['50000 range', 50301, undefined, true],
    ['HTTP 500 with its 50000 envelope', 50000, 500, true],
    ['HTTP 429', 429, 429, true],
    ['no answer at all (the list is free)', 0, 0, true],
    ['HTTP 404: the family is retired', 404, 404, false],
    ['HTTP 401: credentials refused', 401, 401, false],
    ['40204 access denied', 40204, 200, false],
    ['HTTP 502 from a gateway (free: asked again)', 502, 502, true],
  ])('%s -> %s', (_name, code, http, want) => {
    expect(askAgain(code, http)).toBe(want);
  });
});
