/** Paraphrase results (E6). */
import type { TableDef } from '../../catalog/table.js';
import { c } from '../../catalog/declare.js';

export const CONTENT_GENERATION_TABLES: readonly TableDef[] = [
  {
    name: 'paraphrases', parent: null, resultKind: 'paraphrase', extra: true,
    description: 'Paraphrase results (content generation).',
    columns: [
      c('input_tokens', 'BIGINT', 'Input tokens of the request.'),
      c('output_tokens', 'BIGINT', 'Output tokens of the response.'),
      c('new_tokens', 'BIGINT', 'New tokens in the response.'),
      c('generated_text', 'VARCHAR', 'Paraphrased text.'),
    ],
  },
];
