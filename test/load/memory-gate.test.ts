import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { MemoryGate } from '../../src/load/memory-gate.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { Ledger } from '../../src/ledger/index.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cleanup: (() => void)[] = [];
afterEach(() => {
  while (cleanup.length) cleanup.pop()!();
});

async function fileWarehouse(): Promise<{ w: Warehouse; other: DuckDBConnection }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'seo-etl-gate-'));
  const w = await Warehouse.open(path.join(dir, 'w.duckdb'), { memoryLimit: '256MB' });
  const other = await w.connect();
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }), () => w.close(), () => other.closeSync());
  return { w, other };
}

/** A statement that holds about 40 MB DuckDB cannot spill (one list of a million strings): more than a rest allows. */
const HEAVY = `SELECT len(list(md5(range::VARCHAR))) FROM range(1000000)`;

describe('MemoryGate', () => {
  it('runs `alone` after the `beside` work running, and keeps later `beside` work waiting until it is done', async () => {
    const gate = new MemoryGate();
    const events: string[] = [];
    const slow = (name: string, ms: number) => async () => { events.push(`${name}+`); await sleep(ms); events.push(`${name}-`); };
    const a = gate.beside(slow('read1', 40));
    const b = gate.beside(slow('read2', 20));
    const rest = gate.alone(slow('rest', 30));
    const c = gate.beside(slow('read3', 5));
    await Promise.all([a, b, rest, c]);
    expect(events.slice(0, 2)).toEqual(['read1+', 'read2+']);
    const restIn = events.indexOf('rest+');
    expect(restIn).toBeGreaterThan(events.indexOf('read1-'));
    expect(restIn).toBeGreaterThan(events.indexOf('read2-'));
    expect(events.slice(restIn)).toEqual(['rest+', 'rest-', 'read3+', 'read3-']);
  });

  it('lets work continue after a failure on either side', async () => {
    const gate = new MemoryGate();
    await expect(gate.alone(async () => { throw new Error('rest failed'); })).rejects.toThrow('rest failed');
    await expect(gate.beside(async () => { throw new Error('read failed'); })).rejects.toThrow('read failed');
    expect(await gate.alone(async () => 1)).toBe(1);
    expect(await gate.beside(async () => 2)).toBe(2);
  });
});

describe('a lowered memory limit and the other connections', () => {
  it('a statement of another connection run in the lowered moment runs out of memory; through `beside` it waits and succeeds', async () => {
    const { w, other } = await fileWarehouse();
    let unguarded: Promise<unknown> | undefined;
    let guarded: Promise<unknown> | undefined;
    let guardedSettled = false;
    await w.underMemoryLimit(8e6, '256MB', async () => {
      // What the ledger's reads did before: run on their own connection whatever the limit is now.
      unguarded = other.runAndReadAll(HEAVY);
      await unguarded.catch(() => undefined);
      guarded = w.beside(() => other.runAndReadAll(HEAVY)).finally(() => { guardedSettled = true; });
      await sleep(200);
      expect(guardedSettled).toBe(false);
    });
    await expect(unguarded).rejects.toThrow(/out of memory/i);
    const r = (await guarded) as Awaited<ReturnType<DuckDBConnection['runAndReadAll']>>;
    expect(Number(r.getRows()[0][0])).toBe(1_000_000);
  });

  it('the ledger opened with the warehouse as its read gate reads only once a rest restored the limit', async () => {
    const { w, other } = await fileWarehouse();
    const ledger = await Ledger.open(other, { read: (work) => w.beside(work) });
    let read: Promise<unknown> | undefined;
    let settled = false;
    await w.underMemoryLimit(8e6, '256MB', async () => {
      read = ledger.runs().finally(() => { settled = true; });
      await sleep(200);
      expect(settled).toBe(false);
    });
    expect(await read).toEqual([]);
  });

  it('a rest (trimCache) waits for a ledger read already running, and the read runs under the whole limit', async () => {
    const { w, other } = await fileWarehouse();
    await w.connection.run(`SET checkpoint_threshold = '1GB'`); // its blocks stay cached, as a night's loads leave them
    await w.connection.run(`CREATE TABLE big AS SELECT range AS id, md5(range::VARCHAR) AS s FROM range(600000)`);
    expect(await w.memoryInUse()).toBeGreaterThan(8e6);
    const read = w.beside(async () => {
      await sleep(100); // the rest below is asked for while this read runs
      return (await other.runAndReadAll(HEAVY)).getRows()[0][0];
    });
    const trimmed = w.trimCache(4e6, '256MB');
    expect(Number(await read)).toBe(1_000_000);
    expect(await trimmed).toBeLessThanOrEqual(4e6);
  });
});
