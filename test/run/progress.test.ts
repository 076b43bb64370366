/** The progress bar (cli-progress) on a terminal: counts, cost and ETA; its last frame shows the summary's numbers. */
import { describe, expect, test } from 'vitest';
import { Writable } from 'node:stream';
import { Progress, countsOf, progressText } from '../../src/run/progress.js';
import { TASK_STATES } from '../../src/ledger/schema.js';
import type { RunSummary } from '../../src/ledger/index.js';

function tty() {
  const chunks: string[] = [];
  const w = new Writable({ write(c, _e, cb) { chunks.push(String(c)); cb(); } }) as Writable & { isTTY: boolean; columns: number };
  w.isTTY = true;
  w.columns = 200;
  return { stream: w as unknown as NodeJS.WriteStream, text: () => chunks.join('') };
}

function summary(states: Partial<Record<(typeof TASK_STATES)[number], number>>, costUsd: number): RunSummary {
  const byState = Object.fromEntries(TASK_STATES.map((s) => [s, states[s] ?? 0])) as RunSummary['byState'];
  return {
    run: { runId: 'p-2026-01-15', pipeline: 'p', runDate: '2026-01-15', pipelineFile: null, budgetUsd: 1, status: 'completed', attempts: 1, startedAt: '', updatedAt: '', finishedAt: null, note: null },
    tasks: Object.values(byState).reduce((a, b) => a + b, 0), byState, costUsd, steps: [], failures: [],
  };
}

/** The frames drawn, without the terminal's control sequences. */
const frames = (text: string) => text.replace(/\x1b(\[[0-9;?]*[A-Za-z]|[78])/g, '\n').split('\n').map((l) => l.trim()).filter(Boolean);

describe('progress bar', () => {
  test('draws done/planned, posted, loaded, failed, the cost (labelled sandbox money) and an ETA', async () => {
    const t = tty();
    const p = new Progress(t.stream, { sandbox: true });
    p.add('planned', 10);
    p.add('posted', 4);
    p.add('loaded', 3);
    p.counts.costUsd = 0.25;
    await new Promise((r) => setTimeout(r, 450));
    p.stop();
    const last = frames(t.text()).at(-1)!;
    expect(last).toContain('3/10 done, 0 failed | posted 4 | $0.2500 sandbox');
    expect(last).toMatch(/\| \d+s, ETA (\d+[hms]|\d+m\d+s|\?)$/);
    expect(last.length).toBeLessThanOrEqual(80);
  });

  test('the last frame shows the ledger summary, the numbers the summary prints (posted 24 of 25 became 25)', () => {
    const t = tty();
    const p = new Progress(t.stream);
    p.add('planned', 25);
    p.add('posted', 24);
    p.add('loaded', 25);
    p.counts.costUsd = 0.3;
    const s = summary({ loaded: 24, failed: 1 }, 0.3105);
    p.stop(s);
    p.stop();
    const last = frames(t.text()).at(-1)!;
    expect(last).toContain(progressText(countsOf(s)));
    expect(last).toContain('25/25 done, 1 failed | posted 25 | $0.3105');
    expect(t.text().match(/\n/g)).toHaveLength(1);
  });

  test('a warning while the bar is drawn is printed on its own line above it, not through it', async () => {
    const t = tty();
    const p = new Progress(t.stream);
    p.add('planned', 2);
    p.log('[02:15:07] WARN: POST without a clear answer  step=products');
    await new Promise((r) => setTimeout(r, 450));
    p.stop();
    const text = t.text();
    expect(text).toMatch(/\x1b\[2K|\x1b\[0K|\r/);
    expect(text).toContain('[02:15:07] WARN: POST without a clear answer  step=products\n');
    expect(text.lastIndexOf('WARN')).toBeLessThan(text.lastIndexOf(' done, '));
    p.log('after the bar: not drawn');
    expect(t.text()).not.toContain('after the bar');
  });

  test('off a terminal the counts are reported now and then instead (a log line), only when they moved', async () => {
    const p = new Progress(null);
    const seen: string[] = [];
    p.reportEvery(40, (c) => seen.push(`${c.loaded}/${c.planned}`));
    p.add('planned', 4);
    await new Promise((r) => setTimeout(r, 100));
    p.add('loaded', 2);
    await new Promise((r) => setTimeout(r, 100));
    p.stop();
    const after = seen.length;
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toEqual(['0/4', '2/4']);
    expect(seen.length).toBe(after);
  });

  test('a resumed run starts from its earlier attempts: 30 of 40 done, not 0 of 0', () => {
    const t = tty();
    const p = new Progress(t.stream);
    p.seed(summary({ loaded: 28, failed: 2, posted: 10 }, 1.5));
    p.add('loaded', 4);
    p.stop();
    expect(frames(t.text()).at(-1)).toContain('34/40 done, 2 failed | posted 0 | $1.5000');
  });

  test('off a terminal nothing is drawn', () => {
    const chunks: string[] = [];
    const w = new Writable({ write(c, _e, cb) { chunks.push(String(c)); cb(); } }) as unknown as NodeJS.WriteStream;
    const p = new Progress(w);
    p.add('planned', 3);
    p.stop(summary({ loaded: 3 }, 0));
    expect(chunks).toEqual([]);
  });
});
