/**
 * Puts a generated SERP value into the exact shape of the official client's model for it: every declared field
 * present (null when the generator had nothing for it), nothing undeclared, nested objects and polymorphic items
 * (resolved by `type`, as the client's fromJS does) shaped the same way. The models are data
 * (src/families/serp/models.generated.ts), so the sandbox follows the client without a hand-kept field list.
 */
import { SERP_CLASS_FIELDS, SERP_ITEM_CLASSES } from '../../../families/serp/models.generated.js';

/** `DiscussionsAndForumsElement` -> `discussions_and_forums_element`: the `type` the service writes for an element class. */
export function typeNameOf(cls: string): string {
  return cls.replace(/^SerpApi/, '').replace(/Info$/, '').replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/** The class a value of declared class `cls` is: the subclass its `type` names when `cls` is a polymorphic base. */
export function classOf(cls: string, value: unknown): string {
  const t = (value as { type?: unknown } | null)?.type;
  return (typeof t === 'string' && SERP_ITEM_CLASSES[cls]?.[t]) || cls;
}

/** Whether the models know item type `type` under base `base` (an unknown one is passed through whole). */
export const knownItemType = (base: string, type: string): boolean => Boolean(SERP_ITEM_CLASSES[base]?.[type]);

export function shaped(cls: string, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object' || Array.isArray(value)) return value;
  const v = value as Record<string, unknown>;
  if (SERP_ITEM_CLASSES[cls] && typeof v.type === 'string' && !SERP_ITEM_CLASSES[cls][v.type]) return value; // a type the models do not know yet
  const real = classOf(cls, v);
  const fields = SERP_CLASS_FIELDS[real];
  if (!fields) return value;
  const out: Record<string, unknown> = {};
  for (const [name, type] of Object.entries(fields)) {
    const x = v[name];
    out[name] = name === 'type' && x === undefined ? typeNameOf(real) : shapedValue(type, x);
  }
  return out;
}

function shapedValue(type: string, x: unknown): unknown {
  if (x === null || x === undefined) return null;
  if (type.endsWith('[]')) return Array.isArray(x) ? x.map((e) => shapedValue(type.slice(0, -2), e)) : null;
  if (SERP_CLASS_FIELDS[type] || SERP_ITEM_CLASSES[type]) return shaped(type, x);
  return x;
}
