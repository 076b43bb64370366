/**
 * Where a credential can appear in a text, and only there, it is replaced: the Authorization header's value
 * (`Basic <token>`), a URL's password (`user:<password>@host`), and a field of a body or query string named like
 * a password (`"password": "<password>"`, `password=<password>`), plain or URL-encoded. Replacing every occurrence
 * of a short password turned `task_post` into `task_[redacted]ost` (password "p") and "login or password is
 * incorrect" into "... is [redacted]" (password "incorrect"). A secret of LONG_SECRET characters or more is
 * replaced wherever it occurs as well: a string that long is not ordinary text by accident (the Basic token is).
 */

/** From this length a secret is replaced anywhere, not only where a credential goes. */
export const LONG_SECRET = 12;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** A word matched in any case (JavaScript has no inline case-insensitive group). */
const anyCase = (w: string) => [...w].map((ch) => (/[a-z]/i.test(ch) ? `[${ch.toLowerCase()}${ch.toUpperCase()}]` : escape(ch))).join('');

/** Field and parameter names that carry a credential's value. */
const KEY = `(?:${['password', 'passwd', 'pass', 'pwd', 'secret', 'token', 'api_key', 'apikey'].map(anyCase).join('|')})`;
/** Where a value ends: a quote, a separator, a closing bracket, white space or the end. */
const END = String.raw`(?=["'&,;)}\]\s]|$)`;

const cache = new Map<string, RegExp>();

/** The places one secret can stand: after `Basic `, as a URL's password, as the value of a credential field. */
function placesOf(secret: string): RegExp {
  let re = cache.get(secret);
  if (!re) {
    const s = escape(secret);
    re = new RegExp([
      String.raw`(${anyCase('basic')}\s+)${s}(?![A-Za-z0-9+/=])`,
      String.raw`(:\/\/[^\s/?#@:]*:)${s}(?=@)`,
      String.raw`(${KEY}["']?\s*[:=]\s*["']?)${s}${END}`,
    ].join('|'), 'g');
    if (cache.size > 64) cache.clear();
    cache.set(secret, re);
  }
  re.lastIndex = 0;
  return re;
}

/** `text` with each secret replaced by `mark` where a credential can appear (and anywhere when it is long). Pure. */
export function redactSecretsIn(text: string, secrets: readonly string[], mark: string): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret) continue;
    const forms = new Set([secret, encodeURIComponent(secret)]);
    for (const form of forms) {
      if (!out.includes(form)) continue;
      if (form.length >= LONG_SECRET) out = out.split(form).join(mark);
      else out = out.replace(placesOf(form), (_m, basic?: string, url?: string, field?: string) => `${basic ?? url ?? field ?? ''}${mark}`);
    }
  }
  return out;
}
