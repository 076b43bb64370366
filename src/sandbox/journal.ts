/**
 * The sandbox's memory across processes: an append-only file of what happened to its tasks, written before the
 * answer that reports it leaves, so a job killed mid-night finds with `resume` every task the live service would
 * still have. Used by the embedded sandbox of `seo-etl run`; a sandbox started without a state file forgets.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { StoredTask } from './store.js';

export type JournalEvent =
  | { e: 'add'; task: StoredTask }
  | { e: 'collect'; id: string; collectedAt: number | null; fixedCollectedAt: number | null }
  | { e: 'delivery'; id: string; ok: boolean }
  | { e: 'reparse'; id: string; at: number };

export class TaskJournal {
  private constructor(private readonly file: string, private fd: number) {}

  /** Opens (creating) the journal; returns it with the events it already held. A torn last line is dropped. */
  static open(file: string): { journal: TaskJournal; events: JournalEvent[] } {
    mkdirSync(path.dirname(file), { recursive: true });
    const events: JournalEvent[] = [];
    if (existsSync(file)) {
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        if (!line) continue;
        try { events.push(JSON.parse(line) as JournalEvent); } catch { /* the line a kill cut short */ }
      }
    }
    return { journal: new TaskJournal(file, openSync(file, 'a')), events };
  }

  append(ev: JournalEvent): void {
    writeSync(this.fd, `${JSON.stringify(ev)}\n`);
  }

  /** Replaces the file with one `add` per task as it is now (what a restart needs), atomically. */
  rewrite(tasks: Iterable<StoredTask>): void {
    const tmp = `${this.file}.tmp`;
    const fd = openSync(tmp, 'w');
    for (const task of tasks) writeSync(fd, `${JSON.stringify({ e: 'add', task } satisfies JournalEvent)}\n`);
    closeSync(fd);
    closeSync(this.fd);
    renameSync(tmp, this.file);
    this.fd = openSync(this.file, 'a');
  }

  close(): void {
    closeSync(this.fd);
  }
}
