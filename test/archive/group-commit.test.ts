import { afterEach, describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ArchiveWriter, archiveLine } from '../../src/archive/writer.js';
import { listArchiveFiles, readLines } from '../../src/archive/reader.js';

// A disk that fills up on demand: the writer's writes fail with ENOSPC while `disk.full` is set.
const disk = { full: false };
const write = (fd: number, chunk: Buffer) => {
  if (disk.full) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  writeSync(fd, chunk);
};

const dirs: string[] = [];
afterEach(() => { while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true }); });
const tmpDir = () => { const d = mkdtempSync(path.join(os.tmpdir(), 'seo-etl-archive-gc-')); dirs.push(d); return d; };
const at = new Date('2026-01-15T12:00:00Z');
const entry = (i: number) => ({ endpointId: null, method: 'POST', path: '(postback)', httpStatus: 200, body: `{"tasks":[{"id":"t${i}","pad":"${'x'.repeat(i % 7 * 50)}"}]}` });

async function seqsIn(file: string): Promise<number[]> {
  const out: number[] = [];
  for await (const l of readLines(file)) out.push(JSON.parse(l.toString('utf8')).seq);
  return out;
}

/** What a process killed right now would leave: a copy of the open file, read as the reader salvages it. */
async function seqsIfKilledNow(dir: string, into: string): Promise<number[]> {
  const day = path.join(dir, '2026-01-15');
  const partial = readdirSync(day).find((f) => f.endsWith('.partial'));
  if (!partial) return [];
  mkdirSync(into, { recursive: true });
  const copy = path.join(into, `${Math.random().toString(36).slice(2)}-0001.ndjson.gz.partial`);
  copyFileSync(path.join(day, partial), copy);
  return seqsIn(copy);
}

describe('ArchiveWriter group commit', () => {
  it('resolves an append only once its line is in the file: a kill at that moment keeps it and every line acknowledged before', async () => {
    const dir = tmpDir();
    const crashes = tmpDir();
    const w = new ArchiveWriter({ dir, runId: 'r1', now: () => at });
    const acknowledged: number[] = [];
    const checks: Promise<void>[] = [];
    // Appends issued together, as 64 postbacks in flight are: they share flushes.
    const appends = Array.from({ length: 120 }, (_, i) => w.append(entry(i)).then(() => {
      acknowledged.push(i);
      const mustHave = [...acknowledged];
      checks.push(seqsIfKilledNow(dir, crashes).then((kept) => {
        for (const seq of mustHave) expect(kept).toContain(seq);
      }));
    }));
    await Promise.all(appends);
    await Promise.all(checks);
    expect(acknowledged.sort((a, b) => a - b)).toEqual(Array.from({ length: 120 }, (_, i) => i));
    await w.close();
  });

  it('appends issued while a flush is under way are written in append order, and close waits for them all', async () => {
    const dir = tmpDir();
    const w = new ArchiveWriter({ dir, runId: 'r1', now: () => at });
    await w.append(entry(0));
    const pending = Array.from({ length: 300 }, (_, i) => w.append(entry(i + 1)));
    await w.close();
    await Promise.all(pending);
    const files = listArchiveFiles(dir);
    expect(files.every((f) => f.endsWith('.ndjson.gz'))).toBe(true);
    expect((await Promise.all(files.map(seqsIn))).flat()).toEqual(Array.from({ length: 301 }, (_, i) => i));
  });

  it('rotates inside a group: every line lands once, in order, in complete files', async () => {
    const dir = tmpDir();
    const w = new ArchiveWriter({ dir, runId: 'r1', maxBytes: 2000, now: () => at });
    await Promise.all(Array.from({ length: 120 }, (_, i) => w.append(entry(i))));
    await w.close();
    const files = listArchiveFiles(dir);
    expect(files.length).toBeGreaterThan(3);
    expect(files.every((f) => f.endsWith('.ndjson.gz'))).toBe(true);
    expect((await Promise.all(files.map(seqsIn))).flat()).toEqual(Array.from({ length: 120 }, (_, i) => i));
  });

  it('writes the same line from an already parsed body as from the text alone', () => {
    for (const body of ['{"version":"1","tasks":[],"n":1.50}', '{\n  "a": [1, {"b": "c\\u2028"}]\n}', '  {"x": 1}  ']) {
      const base = { endpointId: null, method: 'POST', path: '(postback)', httpStatus: 200, body };
      expect(archiveLine('r1', 3, { ...base, parsed: JSON.parse(body) }, at)).toBe(archiveLine('r1', 3, base, at));
    }
  });

  it('never acknowledges a line it could not write, and goes on in a new file once it can', async () => {
    const dir = tmpDir();
    const w = new ArchiveWriter({ dir, runId: 'r1', now: () => at, write });
    await Promise.all([0, 1, 2].map((i) => w.append(entry(i))));
    disk.full = true;
    const failed = await Promise.allSettled([3, 4].map((i) => w.append(entry(i))));
    disk.full = false;
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(String((failed[0] as PromiseRejectedResult).reason)).toMatch(/ENOSPC/);
    await Promise.all([5, 6].map((i) => w.append(entry(i))));
    await w.close();
    const files = listArchiveFiles(dir);
    // The file the failure hit stays .partial, readable up to its last complete line; the next one is complete.
    expect(files.map((f) => path.basename(f))).toEqual(['r1-0001.ndjson.gz.partial', 'r1-0002.ndjson.gz']);
    expect(await seqsIn(files[0])).toEqual([0, 1, 2]);
    expect(await seqsIn(files[1])).toEqual([5, 6]);
  });
});
