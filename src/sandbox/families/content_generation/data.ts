/** Paraphrase results (E6): swaps words for synonyms, more of them as creativity_index grows. */
import { countTokens } from '../../../api/validate.js';
import { Rng, hashString } from '../../data/prng.js';

const SYNONYMS: Record<string, string[]> = {
  good: ['great', 'fine', 'solid'], bad: ['poor', 'weak'], big: ['large', 'huge', 'sizeable'], small: ['little', 'compact', 'tiny'],
  fast: ['quick', 'rapid', 'speedy'], slow: ['unhurried', 'sluggish'], buy: ['purchase', 'get'], use: ['employ', 'utilize'],
  make: ['create', 'build', 'produce'], help: ['assist', 'support'], show: ['display', 'present'], find: ['discover', 'locate'],
  important: ['essential', 'key', 'crucial'], easy: ['simple', 'straightforward'], hard: ['difficult', 'tough'],
  new: ['fresh', 'novel', 'recent'], old: ['aged', 'former', 'previous'], start: ['begin', 'launch'], end: ['finish', 'close'],
  many: ['numerous', 'several'], often: ['frequently', 'regularly'], very: ['really', 'highly'], best: ['finest', 'top'],
  get: ['obtain', 'receive'], need: ['require'], want: ['wish', 'desire'], people: ['folks', 'individuals'], world: ['globe'],
  text: ['content', 'copy'], great: ['excellent', 'superb'], quickly: ['rapidly', 'swiftly'],
};

export interface ParaphraseResult { input_tokens: number; output_tokens: number; new_tokens: number; generated_text: string }

export function generateParaphrase(text: string, creativity: number, seed = hashString(`${text}\u0000${creativity}`)): ParaphraseResult {
  const rng = new Rng(seed);
  let changed = 0;
  const generated = text.replace(/[\p{L}]+/gu, (word) => {
    const options = SYNONYMS[word.toLowerCase()];
    if (!options || !rng.chance(0.3 + 0.7 * creativity)) return word;
    changed++;
    const pick = rng.pick(options);
    return word[0] === word[0].toUpperCase() ? pick[0].toUpperCase() + pick.slice(1) : pick;
  });
  return { input_tokens: countTokens(text), output_tokens: countTokens(generated), new_tokens: changed, generated_text: generated };
}
