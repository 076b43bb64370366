/**
 * Where archive lines are prepared (prepare.ts): on a worker thread, so parsing and normalizing the next lines runs
 * on the second core while the main thread appends and commits the lines before; or on the calling thread, for a
 * load too small to repay starting a thread (its first answer comes after about 0.2 s and 0.27 s of CPU here). One
 * implementation either way: the same prepareLines.
 */
import { Worker } from 'node:worker_threads';
import { prepareLines, type PrepareOptions, type PreparedLoad } from './prepare.js';
import type { PrepareRequest } from './prepare-worker.js';

export interface Preparer {
  prepare(text: Uint8Array, opts: PrepareOptions): Promise<PreparedLoad>;
  close(): Promise<void>;
}

/** Prepares on the calling thread. */
export const inThread: Preparer = {
  prepare: async (text, opts) => prepareLines(text, opts),
  close: async () => undefined,
};

/** Prepares on one worker thread, requests answered in order. */
export function onWorker(): Preparer {
  // Under the test runner the sources are TypeScript: the worker loads them through tsx, as the runner does.
  // A young generation of 64 MB: with the default the worker used about 13% more CPU (docs/journal/performance-2026-11-22-to-2026-11-27.md).
  const limits = { resourceLimits: { maxYoungGenerationSizeMb: 64 } };
  const worker = import.meta.url.endsWith('.ts')
    ? new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL('./prepare-worker.ts', import.meta.url).href)}); })`, { eval: true, ...limits })
    : new Worker(new URL('./prepare-worker.js', import.meta.url), limits);
  const pending = new Map<number, { resolve: (p: PreparedLoad) => void; reject: (e: Error) => void }>();
  let next = 0;
  let failure: Error | null = null;
  const failAll = (err: Error) => {
    failure ??= err;
    for (const p of pending.values()) p.reject(failure);
    pending.clear();
  };
  worker.on('message', (m: { id: number; p?: PreparedLoad; error?: string }) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (!pending.size) worker.unref();
    if (m.p) p.resolve(m.p);
    else p.reject(new Error(m.error));
  });
  worker.on('error', (err) => failAll(err));
  worker.on('exit', (code) => failAll(new Error(`the load's worker thread exited (code ${code})`)));
  worker.unref();
  return {
    prepare(text, opts) {
      if (failure) return Promise.reject(failure);
      const id = next++;
      return new Promise<PreparedLoad>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        if (pending.size === 1) worker.ref(); // a request outstanding keeps the process alive, an idle worker does not
        const req: PrepareRequest = { id, text, opts };
        worker.postMessage(req, [text.buffer as ArrayBuffer]);
      });
    },
    async close() {
      failure ??= new Error('the load\'s worker thread was closed');
      await worker.terminate();
    },
  };
}
