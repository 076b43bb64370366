/** E6: paraphrase, live. */
import type { FamilySandbox } from '../../family.js';
import type { LiveCompute } from '../../family.js';
import { generateParaphrase } from './data.js';

export const computeParaphrase: LiveCompute = (task) => ({
  result: [generateParaphrase(task.text as string, task.creativity_index as number)],
});

const sandbox: FamilySandbox = { live: { 'content_generation.paraphrase.live': computeParaphrase } };
export default sandbox;
