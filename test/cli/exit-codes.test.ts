/**
 * Usage mistakes exit 2 (bad input, as the README says) with commander's one-line message and no stack trace; the
 * help asked for exits 0. Each case runs the built CLI as a child process, as cron would.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { ROOT } from '../helpers/project.js';
import { EXIT } from '../../src/exit.js';
import { runCli } from '../reliability/helpers.js';

const env = { ...process.env, SEO_ETL_API_BASE_URL: 'sandbox' };
const cli = (args: string[]) => runCli(args, { env, timeoutMs: 30_000 });

let busy: Server;
let busyPort = 0;
beforeAll(async () => {
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  busyPort = (busy.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

describe('usage mistakes exit 2 with a short message and no stack trace', () => {
  const cases: Array<[string, () => string[], RegExp]> = [
    ['an unknown command', () => ['bogus'], /unknown command 'bogus'/],
    ['an unknown option', () => ['status', '--bogus'], /unknown option '--bogus'/],
    ['a missing argument', () => ['run'], /missing required argument 'pipeline'/],
    ['a port that is not a number', () => ['sandbox', '--port', 'abc'], /--port must be a whole number from 0 to 65535/],
    ['a port out of range', () => ['sandbox', '--port', '99999'], /--port must be a whole number from 0 to 65535/],
    ['a day that is not in the calendar', () => ['run', `${ROOT}/pipelines/nightly.yaml`, '--run-date', '2026-13-45'], /--run-date.*must be a calendar day written YYYY-MM-DD/],
    ['a port already in use', () => ['sandbox', '--port', String(busyPort)], /127\.0\.0\.1:\d+ is in use/],
  ];
  test.each(cases)('%s', async (_name, args, says) => {
    const r = await cli(args());
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(says);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    // Not the whole help text: one message and a pointer to the help.
    expect(r.stderr.length, r.stderr).toBeLessThan(400);
  });
});

test('docs outside any project exits 2, naming the way out, instead of a stack trace', async () => {
  const r = await runCli(['docs'], { env, timeoutMs: 30_000, cwd: tmpdir() });
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(/no seo-etl project found/);
  expect(r.stderr).not.toMatch(/\n\s+at /);
});

test('help asked for exits 0; run --help lists every exit code, the CLI\'s description the families', async () => {
  const r = await cli(['run', '--help']);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/Usage: seo-etl run/);
  const listed = [...r.stdout.slice(r.stdout.indexOf('Exit codes:')).matchAll(/^\s+(\d+)\s{2}/gm)].map((m) => Number(m[1]));
  expect(listed).toEqual(expect.arrayContaining(Object.values(EXIT)));
  expect(r.stdout).toMatch(/^\s+8\s+completed into DuckDB and Parquet, but publishing to the lake failed$/m);
  expect(r.stdout).toContain('--allow-future-date');
  const top = await cli(['--help']);
  expect(top.stdout.replace(/\s+/g, ' ')).toMatch(/DataForSEO Labs, Backlinks/);
});
