/** The worker thread of prepare-pool.ts: prepares the lines it is sent and hands the result back, its arena moved. */
import { parentPort } from 'node:worker_threads';
import { prepareLines, type PrepareOptions } from './prepare.js';

export interface PrepareRequest { id: number; text: Uint8Array; opts: PrepareOptions }

parentPort!.on('message', ({ id, text, opts }: PrepareRequest) => {
  try {
    const p = prepareLines(text, opts);
    parentPort!.postMessage({ id, p }, [p.arena.buffer as ArrayBuffer]);
  } catch (err) {
    parentPort!.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
