import { describe, expect, test } from 'vitest';
import { batchFull, takeBatch } from '../../src/normalize/batch.js';
import type { CollectedTask } from '../../src/normalize/extract.js';

const result = (id: string, bytes?: number): CollectedTask => ({ endpointId: 'x', task: { id } as CollectedTask['task'], version: '', ...(bytes === undefined ? {} : { bytes }) });
const ids = (rs: CollectedTask[]) => rs.map((r) => r.task.id);

describe('a load transaction bounded by results and by answer bytes', () => {
  test('takes results in order until the next would pass the bytes; a larger single answer goes alone', () => {
    const buffer = [result('a', 3), result('b', 4), result('c', 20), result('d', 1), result('e', 9), result('f', 2)];
    const batches: string[][] = [];
    while (buffer.length) batches.push(ids(takeBatch(buffer, 100, 10)));
    expect(batches).toEqual([['a', 'b'], ['c'], ['d', 'e'], ['f']]);
  });

  test('the count still bounds it, and results of unknown size count only by number', () => {
    const buffer = [result('a'), result('b'), result('c', 5), result('d'), result('e')];
    expect(ids(takeBatch(buffer, 2, 4))).toEqual(['a', 'b']);
    expect(ids(takeBatch(buffer, 2, 4))).toEqual(['c']);
    expect(ids(takeBatch(buffer, 2, 4))).toEqual(['d', 'e']);
    expect(takeBatch(buffer, 2, 4)).toEqual([]);
  });

  test('a batch is full at the count or at the bytes', () => {
    expect(batchFull([result('a', 3), result('b', 3)], 5, 10)).toBe(false);
    expect(batchFull([result('a', 3), result('b', 7)], 5, 10)).toBe(true);
    expect(batchFull([result('a'), result('b')], 2, 10)).toBe(true);
  });
});
