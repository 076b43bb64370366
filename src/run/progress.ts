/**
 * The run's live counters, drawn on a terminal as a progress bar with counts, cost and ETA by cli-progress (a
 * widely used bar library: throttled redraws, ETA over a moving window, cursor and line-wrap handling), and silent
 * elsewhere: cron and `tee` get human log lines instead of control characters (src/log/log-output.ts).
 * The last frame is drawn from the ledger's summary, the numbers the summary prints below it.
 */
import cliProgress from 'cli-progress';
import type { RunSummary } from '../ledger/index.js';

export interface ProgressCounts {
  planned: number;
  posted: number;
  ready: number;
  collected: number;
  loaded: number;
  failed: number;
  costUsd: number;
}

export interface ProgressOptions {
  /** Sandbox money is labelled as such on the bar too. */
  sandbox?: boolean;
}

/** Counts as the ledger has them at the end: a task counts as posted once the service holds it (or held it). */
export function countsOf(s: RunSummary): ProgressCounts {
  const b = s.byState;
  return {
    planned: s.tasks, posted: s.tasks - b.planned - b.posting, ready: b.ready, collected: b.collected + b.loaded,
    loaded: b.loaded, failed: b.failed, costUsd: s.costUsd,
  };
}

/** The bar's text beside the bar itself: one place, so a test can read what a frame says. */
export function progressText(c: ProgressCounts, sandbox = false): string {
  return `${c.loaded + c.failed}/${c.planned} done, ${c.failed} failed | posted ${c.posted} | $${c.costUsd.toFixed(4)}${sandbox ? ' sandbox' : ''}`;
}

export class Progress {
  readonly counts: ProgressCounts = { planned: 0, posted: 0, ready: 0, collected: 0, loaded: 0, failed: 0, costUsd: 0 };
  private readonly bars: cliProgress.MultiBar | undefined;
  private readonly bar: cliProgress.SingleBar | undefined;
  private readonly timer: NodeJS.Timeout | undefined;
  private reporter: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(stream: NodeJS.WriteStream | null, private readonly opts: ProgressOptions = {}) {
    if (!stream?.isTTY) return;
    // A MultiBar of one: its log() prints lines above the bar instead of through it.
    this.bars = new cliProgress.MultiBar({
      stream, fps: 5, barsize: 12, etaBuffer: 30, etaAsynchronousUpdate: true, hideCursor: false, noTTYOutput: false,
      // Fits 80 columns: the library cuts a frame at the terminal's width.
      format: '{bar} {text} | {duration_formatted}, ETA {eta_formatted}',
      // Before a rate is known the library's ETA is a word ('NULL', 'INF'): shown as '?'.
      formatTime: (t, options, roundTo) => (typeof t === 'number' && Number.isFinite(t) ? cliProgress.Format.TimeFormat(t, options, roundTo) : '?'),
    }, cliProgress.Presets.shades_classic);
    this.bar = this.bars.create(1, 0, { text: this.text() });
    // The stages add to the counters directly; the bar reads them five times a second.
    this.timer = setInterval(() => this.refresh(), 200).unref();
  }

  add(key: keyof ProgressCounts, n = 1): void {
    this.counts[key] += n;
  }

  /**
   * A resumed run starts from what its earlier attempts did: its planned tasks, those loaded or failed, and their
   * cost (the stages count only what this attempt adds to those; posting is counted as tasks are found again).
   */
  seed(earlier: RunSummary | undefined): void {
    if (!earlier) return;
    const c = countsOf(earlier);
    for (const k of ['planned', 'loaded', 'failed', 'costUsd'] as const) this.counts[k] += c[k];
  }

  /** Off a terminal: the counts every `ms` to `report` (a log line), so a long night in `tee` shows it is moving. */
  reportEvery(ms: number, report: (counts: ProgressCounts) => void): void {
    if (this.bars || this.stopped) return;
    let last = '';
    this.reporter = setInterval(() => {
      const now = JSON.stringify(this.counts);
      if (now !== last) report({ ...this.counts });
      last = now;
    }, ms).unref();
  }

  /** Whether a bar is drawn (log lines then go through log()). */
  get drawn(): boolean {
    return this.bars !== undefined && !this.stopped;
  }

  /** A line printed above the bar (a warning while it is drawn). */
  log(line: string): void {
    if (this.drawn) this.bars!.log(line.endsWith('\n') ? line : `${line}\n`);
  }

  private text(): string {
    return progressText(this.counts, this.opts.sandbox);
  }

  private refresh(): void {
    if (!this.bar) return;
    this.bar.setTotal(Math.max(this.counts.planned, 1));
    this.bar.update(this.counts.loaded + this.counts.failed, { text: this.text() });
  }

  /**
   * Draws the last frame once, from the run's summary when there is one (so it shows the summary's numbers);
   * later calls (the job's `finally`) do nothing.
   */
  stop(final?: RunSummary): void {
    if (this.stopped) return;
    this.stopped = true;
    if (final) Object.assign(this.counts, countsOf(final));
    if (this.timer) clearInterval(this.timer);
    if (this.reporter) clearInterval(this.reporter);
    if (!this.bars) return;
    this.refresh();
    this.bars.stop();
  }
}
