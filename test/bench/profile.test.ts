/**
 * The profile attribution of src/bench/profile.ts on a small hand-written V8 profile: each sample's self time goes to
 * the innermost frame a rule names, JSON.parse by the line calling it, the rest to `other`.
 */
import { describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { attributeProfile, breakdownTable, describeBreakdown, describeLimit, profileReport, startProfiler, type CpuProfile, type ProfileNode } from '../../src/bench/profile.js';

const W = 'file:///repo/dist';
const frame = (id: number, functionName: string, url: string, children: number[] = [], positionTicks?: ProfileNode['positionTicks']): ProfileNode => ({
  id, callFrame: { functionName, url, lineNumber: 9, columnNumber: 0 }, children, positionTicks,
});

// root -> runJob -> { attempt (client, JSON.parse on line 12) -> decode (node:internal) ; loadTasks -> objectRow (normalize) ;
//   add (append.ts) -> flushSync (node-api) -> (native) ; write (archive) -> byteLength (node:buffer) }, (garbage collector), (idle), (program)
const nodes: ProfileNode[] = [
  frame(1, '(root)', '', [2, 20, 21, 22]),
  frame(2, 'runJob', `${W}/run/job.js`, [3, 5, 7, 10, 12]),
  frame(3, 'attempt', `${W}/api/client.js`, [4], [{ line: 12, ticks: 3 }, { line: 14, ticks: 1 }]),
  frame(4, 'decode', 'node:internal/encoding'),
  frame(5, 'loadTasks', `${W}/load/warehouse.js`, [6]),
  frame(6, 'objectRow', `${W}/normalize/extract.js`),
  frame(7, 'add', `${W}/load/append.js`, [8]),
  frame(8, 'flushSync', 'file:///repo/node_modules/@duckdb/node-api/lib/DuckDBAppender.js', [9]),
  frame(9, 'appendDataChunk', ''),
  frame(10, 'writeGroup', `${W}/archive/writer.js`, [11]),
  frame(11, 'byteLength', 'node:buffer'),
  frame(12, 'post', `${W}/post/index.js`),
  frame(20, '(garbage collector)', ''),
  frame(21, '(idle)', ''),
  frame(22, '(program)', ''),
];

// Self time in ms per node; one sample each, its time delta in microseconds.
const selfMs: [number, number][] = [[3, 40], [4, 10], [6, 15], [7, 5], [9, 20], [11, 5], [12, 1], [20, 4], [21, 50], [22, 0]];
const profile: CpuProfile = {
  nodes,
  startTime: 0,
  endTime: 150_000,
  samples: selfMs.map(([id]) => id),
  timeDeltas: selfMs.map(([, ms]) => ms * 1000),
};

const sources: Record<string, string[]> = {
  [`${W}/api/client.js`]: Array.from({ length: 20 }, (_, i) => (i + 1 === 12 ? '  const parsed = JSON.parse(received.body);' : '  x();')),
};
const lineText = (url: string, line: number) => sources[url]?.[line - 1];

describe('attributeProfile', () => {
  const b = attributeProfile(profile, lineText);

  test('self time goes to the innermost named frame; JSON.parse by its calling line; the rest is other', () => {
    expect(b.totalMs).toBe(150);
    expect(b.ms).toEqual({
      json_parse: 30, // 3 of attempt's 4 ticks were on the JSON.parse line
      http: 10 + 10, // attempt's other line, and decode (unnamed) under attempt
      normalizer: 15,
      appender: 5,
      duckdb: 20, // the native call under node-api's flushSync, not the appender calling it
      archive: 5, // node:buffer's byteLength under the archive writer
      gzip: 0,
      ledger: 0,
      gc: 4,
      idle: 50,
      other: 1, // post under runJob: no rule names either
    });
    expect(b.top.json_parse[0]).toEqual({ where: 'attempt dist/api/client.js:12', ms: 30 });
    expect(b.top.duckdb[0]).toEqual({ where: 'appendDataChunk (native)', ms: 20 });
  });

  test('a profile without line ticks or sources puts the calling function in its own category', () => {
    const c = attributeProfile(profile, () => undefined);
    expect(c.ms.json_parse).toBe(0);
    expect(c.ms.http).toBe(50);
  });

  test('the one-line summary names the busy share, the categories largest first and the biggest function of the large ones', () => {
    expect(describeBreakdown(b)).toBe('main thread busy 67% of 0.1 s: JSON.parse 20% (attempt 20%), DuckDB 13% (appendDataChunk 13%), HTTP 13% (attempt 7%), normalizer 10% (objectRow 10%), appender 3%, archive 3%, GC 3%, idle 33%');
  });

  test("the loading window runs from the first to the last sample in the normalizer (or the appender); a nameless native frame is named after its caller", () => {
    // idle 50 ms, then normalize 10, an anonymous native call under flushSync 20, normalize 5, then idle 30 and post 1.
    const nodes2: ProfileNode[] = [...nodes.map((n) => (n.id === 9 ? frame(9, '', '') : n))];
    const p2: CpuProfile = { nodes: nodes2, startTime: 0, endTime: 116_000, samples: [21, 6, 9, 6, 21, 12], timeDeltas: [50, 10, 20, 5, 30, 1].map((ms) => ms * 1000) };
    const loading = attributeProfile(p2, lineText, 'loading');
    expect(loading.totalMs).toBe(35);
    expect(loading.ms).toMatchObject({ normalizer: 15, duckdb: 20, idle: 0, other: 0 });
    expect(loading.top.duckdb[0].where).toBe('flushSync>native (native)');
    const whole = attributeProfile(p2, lineText);
    expect(whole.totalMs).toBe(116);
    expect(whole.ms).toMatchObject({ normalizer: 15, duckdb: 20, idle: 80, other: 1 });
    const r = profileReport(p2, 86, lineText);
    expect(describeLimit(r)).toBe('while results were loaded (0.0 s of the profiled 0.1 s) main thread busy 100% of 0.0 s: DuckDB 57% (flushSync>native 57%), normalizer 43% (objectRow 43%), idle 0%; over the whole run the main thread was busy 31%, and the process used 0.1 s of CPU, 0.1 s of it on other threads (DuckDB\'s, the thread pool\'s, an archive load\'s worker)');
  });

  test('the table has a column per category and a row per run', () => {
    const t = breakdownTable([{ name: 'merchant (100 tasks)', b, processCpuMs: 300 }]).split('\n');
    expect(t[0]).toContain('| JSON.parse | normalizer | appender | DuckDB |');
    expect(t[2]).toBe('| merchant (100 tasks) | 0.1 | 67% | 20% | 10% | 3% | 13% | 0% | 13% | 3% | 0% | 3% | 1% | 33% | 0.2 |');
  });
});

describe('startProfiler', () => {
  test('profiles this thread: a busy loop of JSON.parse in a script shows up as JSON.parse, by its line', async () => {
    // A plain script file, so that the profile's lines are the file's lines (vitest transforms the test's own).
    const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-profile-'));
    const script = path.join(dir, 'busy.mjs');
    writeFileSync(script, [
      'export function busy(text, ms) {',
      '  const until = Date.now() + ms;',
      '  let n = 0;',
      '  while (Date.now() < until) n += JSON.parse(text).length;',
      '  return n;',
      '}',
      '',
    ].join('\n'));
    try {
      const { busy } = (await import(pathToFileURL(script).href)) as { busy: (text: string, ms: number) => number };
      const text = JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ i, s: `v${i}` })));
      const p = await startProfiler(200);
      const n = busy(text, 150);
      const profile = await p.stop();
      expect(n).toBeGreaterThan(0);
      expect(profile.samples.length).toBeGreaterThan(50);
      const b = attributeProfile(profile);
      expect(b.totalMs).toBeGreaterThan(100);
      expect(b.ms.idle).toBeLessThan(b.totalMs / 2);
      // At least half of the 150 ms loop: the rest of the span is the profiler starting and stopping, longer in a
      // worker that has run other files.
      expect(b.ms.json_parse, JSON.stringify(b.ms)).toBeGreaterThan(75);
      expect(b.top.json_parse[0].where).toMatch(/^busy .*busy\.mjs:4$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
