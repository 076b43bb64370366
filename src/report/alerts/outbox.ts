/**
 * The durable record of alerts: `<data folder>/reports/alerts.jsonl`, one JSON line per event, each appended and
 * synced before the next step. `raised` records an alert once (by key) with the channels it is owed to; `sent`
 * records a delivery to one channel. So a resumed or repeated run raises nothing new for the same movement, and
 * a channel that was down is owed its alerts until a later run delivers them.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { Alert } from './evaluate.js';

type Event =
  | { event: 'raised'; at: string; key: string; run_id: string; rule: string; text: string; channels: string[] }
  | { event: 'sent'; at: string; channel: string; run_id: string; keys: string[] };

export class AlertOutbox {
  private readonly raised = new Map<string, { alert: Alert; channels: string[] }>();
  private readonly sent = new Set<string>();

  private constructor(readonly file: string, private readonly now: () => Date) {}

  static open(file: string, now: () => Date = () => new Date()): AlertOutbox {
    const box = new AlertOutbox(file, now);
    if (!existsSync(file)) return box;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      let e: Event;
      try { e = JSON.parse(line) as Event; } catch { continue; } // a line cut by a crash is the last one: skipped
      if (e.event === 'raised') box.raised.set(e.key, { alert: { key: e.key, runId: e.run_id, rule: e.rule, text: e.text }, channels: e.channels });
      else for (const k of e.keys) box.sent.add(`${e.channel}\u0000${k}`);
    }
    return box;
  }

  /** Records the alerts not raised before, owed to `channels`; returns them. */
  raise(alerts: readonly Alert[], channels: readonly string[]): Alert[] {
    const fresh = alerts.filter((a) => !this.raised.has(a.key));
    if (!fresh.length) return [];
    this.append(fresh.map((a) => ({ event: 'raised', at: this.now().toISOString(), key: a.key, run_id: a.runId, rule: a.rule, text: a.text, channels: [...channels] })));
    for (const a of fresh) this.raised.set(a.key, { alert: a, channels: [...channels] });
    return fresh;
  }

  /** Alerts owed to a channel and not delivered yet, grouped by run (one message each), oldest run first. */
  pending(channel: string): Map<string, Alert[]> {
    const out = new Map<string, Alert[]>();
    for (const { alert, channels } of this.raised.values()) {
      if (!channels.includes(channel) || this.sent.has(`${channel}\u0000${alert.key}`)) continue;
      out.set(alert.runId, [...(out.get(alert.runId) ?? []), alert]);
    }
    return new Map([...out.entries()].sort(([a], [b]) => a.localeCompare(b)));
  }

  markSent(channel: string, runId: string, alerts: readonly Alert[]): void {
    this.append([{ event: 'sent', at: this.now().toISOString(), channel, run_id: runId, keys: alerts.map((a) => a.key) }]);
    for (const a of alerts) this.sent.add(`${channel}\u0000${a.key}`);
  }

  private append(events: readonly Event[]): void {
    const fd = openSync(this.file, 'a');
    try {
      writeSync(fd, events.map((e) => `${JSON.stringify(e)}\n`).join(''));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}
