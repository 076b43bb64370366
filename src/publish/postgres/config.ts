/**
 * The one place a connection URL is shown: every message that names the destination goes through `redactUrl`, so
 * the password never reaches a log, a summary or an error. The URL's rules are the configuration's (src/config/postgres.ts).
 */
import { redactSecretsIn } from '../../log/secret-text.js';

/** The URL with its password replaced by `***` (and any `password=` query parameter too). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    for (const k of [...u.searchParams.keys()]) if (/pass/i.test(k)) u.searchParams.set(k, '***');
    return u.toString();
  } catch {
    return '(unparsable PostgreSQL URL)';
  }
}

/** The URL, and its password where a credential can stand in a text (src/log/secret-text.ts), replaced by `***`. */
export function redactText(text: string, url: string): string {
  const out = text.split(url).join(redactUrl(url));
  try {
    const u = new URL(url);
    const secrets = [u.password, decodeURIComponent(u.password), ...[...u.searchParams.entries()].filter(([k]) => /pass/i.test(k)).map(([, v]) => v)];
    return redactSecretsIn(out, secrets, '***');
  } catch {
    return out; // not a URL: nothing more to hide
  }
}
