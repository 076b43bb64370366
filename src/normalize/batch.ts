/**
 * How many results one load transaction takes: at most a count (collect.load_batch) and at most LOAD_BYTES of
 * answers. A count alone let one transaction take a million rows of large results (a 20,000-keyword answer is
 * 260,000 rows), all of them held in memory, parsed, until it committed.
 */
import type { CollectedTask } from './extract.js';

/** Answer bytes a load transaction takes at most; a larger single answer goes alone. */
export const LOAD_BYTES = 8 * 2 ** 20;

export const bytesOf = (results: readonly CollectedTask[]): number => results.reduce((n, r) => n + (r.bytes ?? 0), 0);

/** Whether `results` make a whole load transaction already. */
export function batchFull(results: readonly CollectedTask[], maxResults: number, maxBytes = LOAD_BYTES): boolean {
  return results.length >= maxResults || bytesOf(results) >= maxBytes;
}

/** Takes the first load transaction's worth off the front of `results` (at least one result when there is any). */
export function takeBatch(results: CollectedTask[], maxResults: number, maxBytes = LOAD_BYTES): CollectedTask[] {
  let n = 0;
  let bytes = 0;
  while (n < results.length && n < maxResults) {
    const b = results[n].bytes ?? 0;
    if (n > 0 && bytes + b > maxBytes) break;
    bytes += b;
    n++;
  }
  return results.splice(0, n);
}
