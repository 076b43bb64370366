/**
 * The name PostgreSQL keeps for a table or column of the catalog: itself when it fits in 63 bytes, else its first 54
 * characters, `_` and 8 characters of a hash of the whole, stable for the same name. Deep generated tables and
 * columns pass that limit; cut plainly, two of them would meet under one name. One rule for the PostgreSQL
 * destination and the data dictionary, which shows the short name beside the full one.
 */
export function pgName(name: string): string {
  if (Buffer.byteLength(name) <= 63) return name;
  let h = 0x811c9dc5;
  for (const ch of name) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return `${name.slice(0, 54)}_${h.toString(36).padStart(8, '0').slice(-8)}`;
}
