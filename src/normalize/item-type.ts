/**
 * Engine-neutral item types. The service prefixes item types with the engine's path name (`google_shopping_serp`);
 * the sandbox uses its placeholder names (`engine_a_shopping_serp`). Tables store the type without the prefix so
 * that queries do not depend on which engine answered.
 */
import { CORE_TABLES } from './catalog.js';
import { ENGINE_TOKENS } from '../config/index.js';

/** Every neutral type the catalog knows, longest first so that `..._carousel_element` wins over `..._carousel`. */
export const KNOWN_ITEM_TYPES: readonly string[] = [...new Set([
  ...CORE_TABLES.flatMap((t) => t.knownItemTypes ?? []),
  ...CORE_TABLES.flatMap((t) => t.onlyForItemTypes ?? []),
  'shopping_sponsored_carousel_element',
])].sort((a, b) => b.length - a.length);

/**
 * `<engine>_shopping_serp` -> `shopping_serp`, whatever the engine name is. A type the catalog knows is recognised
 * by its suffix; any other loses the prefix of a known engine name (configured names, the placeholder tokens and
 * the task's `data.se`); a type with no recognisable prefix is kept as it is.
 */
export function neutralItemType(type: string, engines: readonly string[]): string {
  const known = knownItemType(type);
  if (known !== null) return known;
  const names = [...engines, ...ENGINE_TOKENS].filter((e) => e.length > 0).sort((a, b) => b.length - a.length);
  for (const e of names) if (type.startsWith(`${e}_`) && type.length > e.length + 1) return type.slice(e.length + 1);
  return type;
}

/**
 * The catalog type a type names by its suffix (`<anything>_shopping_serp` or `shopping_serp` itself), whatever the
 * engines; null when it names none.
 */
export function knownItemType(type: string): string | null {
  for (const k of KNOWN_ITEM_TYPES) {
    if (type === k) return k;
    if (type.length > k.length && type.endsWith(k) && type[type.length - k.length - 1] === '_') return k;
  }
  return null;
}
