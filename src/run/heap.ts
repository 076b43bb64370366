/**
 * The job process's V8 heap policy, set by the command that starts a job (never by runJob, which tests and the
 * bench call in processes of their own).
 */
import { setFlagsFromString } from 'node:v8';

/** Heap growth past the last full collection, percent: a night's live set is small and its garbage plentiful. */
const HEAP_GROWING_PERCENT = 50;

export function tuneHeapForJob(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
