/**
 * The run's live counters, drawn as one status line on a terminal (redrawn in place at most 5 times a second)
 * and silent elsewhere: cron and CI get pino's JSON log lines instead of control characters.
 */
export interface ProgressCounts {
  planned: number;
  posted: number;
  ready: number;
  collected: number;
  loaded: number;
  failed: number;
  costUsd: number;
}

export class Progress {
  readonly counts: ProgressCounts = { planned: 0, posted: 0, ready: 0, collected: 0, loaded: 0, failed: 0, costUsd: 0 };
  private readonly startedAt = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private lastLine = '';
  private stopped = false;

  constructor(private readonly stream: NodeJS.WriteStream | null) {
    if (stream?.isTTY) this.timer = setInterval(() => this.draw(), 200).unref();
  }

  add(key: keyof ProgressCounts, n = 1): void {
    this.counts[key] += n;
  }

  /** Seconds left at the current loading pace; null until something has loaded. */
  eta(now = Date.now()): number | null {
    const { planned, loaded, failed } = this.counts;
    const done = loaded + failed;
    if (done === 0 || planned === 0) return null;
    const perTask = (now - this.startedAt) / done;
    return Math.max(0, Math.round(((planned - done) * perTask) / 1000));
  }

  line(now = Date.now()): string {
    const c = this.counts;
    const eta = this.eta(now);
    const elapsed = Math.round((now - this.startedAt) / 1000);
    return `posted ${c.posted}/${c.planned}  ready ${c.ready}  collected ${c.collected}  loaded ${c.loaded}  failed ${c.failed}  ` +
      `$${c.costUsd.toFixed(4)}  ${elapsed}s${eta === null ? '' : `  eta ${eta}s`}`;
  }

  private draw(): void {
    if (!this.stream) return;
    const line = this.line();
    if (line === this.lastLine) return;
    this.lastLine = line;
    this.stream.write(`\r\x1b[2K${line}`);
  }

  /** Draws the final line once; later calls (the job's `finally`) do nothing. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.stream?.isTTY && this.lastLine) this.stream.write(`\r\x1b[2K${this.line()}\n`);
    this.timer = undefined;
  }
}
