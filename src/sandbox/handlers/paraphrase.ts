/** E6: paraphrase, live. */
import type { LiveCompute } from './live.js';
import { generateParaphrase } from '../data/paraphrase.js';

export const computeParaphrase: LiveCompute = (task) => ({
  result: [generateParaphrase(task.text as string, task.creativity_index as number)],
});
