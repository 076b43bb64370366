/** A validator's issue said in words a user reads ("must be at least 1"), not the validator's own text. */

export interface ValidatorIssue {
  code?: string;
  message: string;
  expected?: string;
  origin?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  inclusive?: boolean;
  format?: string;
  values?: unknown[];
}

/** What a type mismatch asks for. */
const A_TYPE: Record<string, string> = { number: 'a number', int: 'a whole number', string: 'text', boolean: 'true or false', object: 'a mapping of keys', array: 'a list' };

export const shown = (v: unknown): string => (v === undefined ? 'nothing' : typeof v === 'string' ? `'${v}'` : JSON.stringify(v));

/** The rule an issue states, with the value given when that helps; custom messages (already words) pass through. */
export function ruleInWords(i: ValidatorIssue, value: unknown): string {
  const got = ` (got ${shown(value)})`;
  switch (i.code) {
    case 'invalid_type':
      return i.expected ? `must be ${A_TYPE[i.expected] ?? i.expected}${got}` : i.message;
    case 'too_small':
      if (i.origin === 'string') return Number(i.minimum) <= 1 ? 'must not be empty' : `must be at least ${i.minimum} characters long${got}`;
      if (i.origin === 'number') return `must be ${i.inclusive === false ? 'more than' : 'at least'} ${i.minimum}${got}`;
      return i.message;
    case 'too_big':
      if (i.origin === 'number') return `must be ${i.inclusive === false ? 'less than' : 'at most'} ${i.maximum}${got}`;
      return i.message;
    case 'invalid_format':
      return i.format === 'url' ? `must be an http:// or https:// address${got}` : i.message.startsWith('Invalid') ? `${i.message.replace(/^Invalid/, 'not a valid')}${got}` : `must be ${i.message}${got}`;
    case 'invalid_union':
      return `${i.message}${got}`;
    case 'invalid_value':
      return i.values?.length ? `must be ${i.values.map(shown).join(' or ')}${got}` : i.message;
    default:
      return i.message;
  }
}
