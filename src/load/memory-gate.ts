/**
 * Who may run while DuckDB's memory limit is lowered. `memory_limit` is one setting of the whole database: lowered
 * for a rest (trimCache) or a lean checkpoint/export, it holds for every connection, and a ledger query on another
 * connection that ran in that moment ran out of memory. Statements of other connections run `beside` (many at
 * once); a lowered limit runs `alone` once they finished, and statements arriving meanwhile wait for it to be
 * restored. A waiting `alone` goes before later `beside` work, so steady polling cannot starve a rest.
 */
export class MemoryGate {
  private besideRunning = 0;
  private aloneRunning = false;
  /** In arrival order; an `alone` entry blocks everything behind it. */
  private readonly waiting: { alone: boolean; go: () => void }[] = [];

  /** Runs `work` with other `beside` work, never while the limit is lowered. */
  async beside<T>(work: () => Promise<T>): Promise<T> {
    if (this.aloneRunning || this.waiting.length) await new Promise<void>((go) => this.waiting.push({ alone: false, go }));
    else this.besideRunning++;
    try {
      return await work();
    } finally {
      this.besideRunning--;
      this.next();
    }
  }

  /** Runs `work` once no `beside` work runs, and lets none start until it is done. */
  async alone<T>(work: () => Promise<T>): Promise<T> {
    if (this.aloneRunning || this.besideRunning || this.waiting.length) await new Promise<void>((go) => this.waiting.push({ alone: true, go }));
    else this.aloneRunning = true;
    try {
      return await work();
    } finally {
      this.aloneRunning = false;
      this.next();
    }
  }

  /** Lets in what may run now, in arrival order (the counters are taken for those let in). */
  private next(): void {
    while (this.waiting.length && !this.aloneRunning) {
      const head = this.waiting[0];
      if (head.alone) {
        if (this.besideRunning) return;
        this.waiting.shift();
        this.aloneRunning = true;
        head.go();
        return;
      }
      this.waiting.shift();
      this.besideRunning++;
      head.go();
    }
  }
}
