import { describe, expect, test } from 'vitest';
import { Writable } from 'node:stream';
import { Progress } from '../../src/run/progress.js';

function tty() {
  const chunks: string[] = [];
  const w = new Writable({ write(c, _e, cb) { chunks.push(String(c)); cb(); } }) as Writable & { isTTY: boolean };
  w.isTTY = true;
  return { stream: w as unknown as NodeJS.WriteStream, text: () => chunks.join('') };
}

describe('progress line', () => {
  test('shows posted/planned, the other counters, cost and an ETA once something loaded', () => {
    const p = new Progress(null);
    p.add('planned', 10);
    p.add('posted', 4);
    expect(p.line()).toMatch(/^posted 4\/10 {2}ready 0 {2}collected 0 {2}loaded 0 {2}failed 0 {2}\$0\.0000 {2}\d+s$/);
    p.add('loaded', 5);
    p.counts.costUsd = 0.25;
    expect(p.line()).toContain('$0.2500');
    expect(p.eta()).not.toBeNull();
  });

  test('on a terminal the final line is drawn once, even when stop is called again', () => {
    const t = tty();
    const p = new Progress(t.stream);
    p.add('planned', 1);
    (p as unknown as { draw(): void }).draw();
    p.stop();
    p.stop();
    expect(t.text().match(/\n/g)).toHaveLength(1);
  });

  test('off a terminal nothing is drawn', () => {
    const chunks: string[] = [];
    const w = new Writable({ write(c, _e, cb) { chunks.push(String(c)); cb(); } }) as unknown as NodeJS.WriteStream;
    const p = new Progress(w);
    p.add('planned', 3);
    p.stop();
    expect(chunks).toEqual([]);
  });
});
