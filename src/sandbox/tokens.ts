/**
 * Paging tokens (on-page `search_after_token`, domains `offset_token`): the position of the next page and a hash
 * of every other request parameter, so a token used with changed parameters is refused as the reference says.
 */
import { canonicalJson, hashString } from './data/prng.js';

const PREFIX = 'sbx1.';

export function paramsHash(task: Record<string, unknown>, exclude: readonly string[]): string {
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(task)) if (!exclude.includes(k)) rest[k] = v;
  return hashString(canonicalJson(rest)).toString(36);
}

export function makeToken(hash: string, position: number): string {
  return PREFIX + Buffer.from(JSON.stringify({ h: hash, p: position })).toString('base64url');
}

export type TokenCheck = { ok: true; position: number } | { ok: false; rule: string };

export function readToken(token: string, hash: string): TokenCheck {
  if (!token.startsWith(PREFIX)) return { ok: false, rule: 'is not a token this endpoint gave out' };
  let parsed: { h?: unknown; p?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(token.slice(PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    return { ok: false, rule: 'is not a token this endpoint gave out' };
  }
  if (typeof parsed.p !== 'number' || !Number.isInteger(parsed.p) || parsed.p < 0) return { ok: false, rule: 'is not a token this endpoint gave out' };
  if (parsed.h !== hash) return { ok: false, rule: 'was given for other parameters; every other parameter must be identical to the request that returned it' };
  return { ok: true, position: parsed.p };
}
