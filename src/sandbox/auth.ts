/** HTTP Basic authentication against the sandbox's configured credentials. */
import { timingSafeEqual } from 'node:crypto';

export function basicAuthHeader(login: string, password: string): string {
  return `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
}

export type AuthOutcome = { ok: true } | { ok: false; reason: string };

export function checkBasicAuth(header: string | undefined, login: string, password: string): AuthOutcome {
  if (!header) return { ok: false, reason: 'the Authorization header is missing; send "Authorization: Basic base64(login:password)"' };
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!m) return { ok: false, reason: 'the Authorization header must use the Basic scheme' };
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return { ok: false, reason: 'the Basic credentials must be "login:password"' };
  const given = Buffer.from(decoded);
  const expected = Buffer.from(`${login}:${password}`);
  const same = given.length === expected.length && timingSafeEqual(given, expected);
  return same ? { ok: true } : { ok: false, reason: 'login or password is wrong' };
}
