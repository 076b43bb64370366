import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const moduleUrl = pathToFileURL(path.resolve(__dirname, '../../dist/exit-when-done.js')).href;

/** Runs a tiny program that sets an exit code, maybe leaks a handle, and calls exitWhenDone(300). */
function run(leak: boolean) {
  const code = `
    import { exitWhenDone } from ${JSON.stringify(moduleUrl)};
    process.exitCode = 7;
    ${leak ? 'setInterval(() => {}, 1000);' : ''}
    exitWhenDone(300);
  `;
  return spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 20_000 });
}

describe('exitWhenDone', () => {
  it('ends a process that a leaked handle holds open, with its exit code, naming what held it', () => {
    const r = run(true);
    expect(r.error, 'the process had to be killed: it never exited').toBeUndefined();
    expect(r.status).toBe(7);
    expect(r.stderr).toMatch(/the command finished, but .*Timeout.* still held the process open/);
  });

  it('lets a process with nothing left exit on its own, at once and silently', () => {
    const r = run(false);
    expect(r.status).toBe(7);
    expect(r.stderr).toBe('');
  });
});
