/**
 * A password is redacted where a credential can stand (the Authorization header, a URL, a body's field), not as a
 * substring of every text (issue 47, point 7): a short or common password ("post", "password") left log lines such
 * as `task_[redacted]` and "login or [redacted] is incorrect".
 */
import { describe, expect, test } from 'vitest';
import { createLogger, secretsOf, REDACTED } from '../../src/log/logger.js';
import { LONG_SECRET, redactSecretsIn } from '../../src/log/secret-text.js';

/** What one log call writes, with the secrets of `password`. */
function logged(password: string, fields: Record<string, unknown>, msg: string): string {
  const seen: string[] = [];
  const log = createLogger({ level: 'info', secrets: secretsOf({ login: 'user', password }), destination: { write: (s: string) => { seen.push(s); } } });
  log.warn(fields, msg);
  return seen.join('');
}

describe('a password that is a common word', () => {
  test('"post": endpoint names and paths keep their letters; the URL, header and body keep no password', () => {
    const token = Buffer.from('user:post').toString('base64');
    const line = logged('post', {
      endpoint: 'serp.google.organic.task_post',
      url: 'https://user:post@api.example/v3/serp/google/organic/task_post',
      request: `POST /v3/serp/google/organic/task_post\nAuthorization: Basic ${token}\n{"login":"user","password":"post"}`,
    }, 'posting 3 tasks to serp.google.organic.task_post');
    const o = JSON.parse(line) as Record<string, string>;
    expect(o.msg).toBe('posting 3 tasks to serp.google.organic.task_post');
    expect(o.endpoint).toBe('serp.google.organic.task_post');
    expect(o.url).toBe(`https://user:${REDACTED}@api.example/v3/serp/google/organic/task_post`);
    expect(o.request).toBe(`POST /v3/serp/google/organic/task_post\nAuthorization: Basic ${REDACTED}\n{"login":"user","password":"${REDACTED}"}`);
  });

  test('"password": the service\'s messages about the password stay readable', () => {
    const line = logged('password', { error: 'You are not authorized: login or password is incorrect', query: 'login=user&password=password&x=1' }, 'password check failed');
    const o = JSON.parse(line) as Record<string, string>;
    expect(o.error).toBe('You are not authorized: login or password is incorrect');
    expect(o.msg).toBe('password check failed');
    expect(o.query).toBe(`login=user&password=${REDACTED}&x=1`);
  });

  test('a URL-encoded password in a URL, and a long one anywhere', () => {
    expect(redactSecretsIn('GET https://user:p%40st@h/x', ['p@st'], '***')).toBe('GET https://user:***@h/x');
    const long = 'x'.repeat(LONG_SECRET);
    expect(redactSecretsIn(`a${long}b`, [long], '***')).toBe('a***b');
    expect(redactSecretsIn('apost', ['post'], '***')).toBe('apost');
  });
});
