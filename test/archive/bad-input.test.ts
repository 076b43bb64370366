/**
 * Issue 46, "bad input still gets its clear error": a malformed or truncated archive line is named (file, line, task
 * id), nothing of its task is loaded, the rest loads, and the command exits 1. Each case goes through `reprocess` (the
 * raw archive's lines) and `ingest` (saved response files: NDJSON, a cut gzip file, bare envelope files), with the
 * lines prepared on the calling thread and on a worker thread (the commands' `worker` seam; by default the size
 * of the archive decides, src/load/archive-load.ts workerPays).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ingestCommand, reprocessCommand } from '../../src/run/archive-command.js';
import { warehousePaths } from '../../src/config/data-paths.js';
import { loadConfig } from '../../src/config/index.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { EXIT } from '../../src/exit.js';
import { keywordTask, merchantTask } from '../normalize/fixtures.js';
import type { CollectedTask } from '../../src/normalize/extract.js';

const dirs: string[] = [];
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

/** A task in the live service's shape (its path names the endpoint), under a new id. */
function live(c: CollectedTask, id: string): CollectedTask {
  const task = { ...c.task, id, path: c.endpointId.startsWith('merchant') ? ['v3', 'merchant', 'google', 'products', 'task_get', 'advanced', id] : ['v3', 'keywords_data', 'google', 'keywords_for_site', 'task_get', id] };
  return { ...c, task };
}
const envelope = (tasks: unknown[]) => ({ version: '0.1.20240801', status_code: 20000, status_message: 'Ok.', time: '0.2 sec.', cost: 0, tasks_count: tasks.length, tasks_error: 0, tasks });
const kw = (id: string) => live(keywordTask(id, 3, 1), id).task;
const merchant = (id: string) => live(merchantTask(id, 'google'), id).task;
/** An archive line as the writer makes it (keys in its order). */
const record = (seq: number, response: unknown) => JSON.stringify({ run_id: 'r1', seq, endpoint_id: null, method: 'GET', path: '', received_at: '2026-01-15T03:00:00.000Z', http_status: 200, response });

/**
 * The cases, line by line: what a line holds, and what must be said of it. `line` renders a document as an archive
 * line (reprocess) or as a bare envelope line (ingest). Tasks A* must load; B* must load nothing.
 */
function caseLines(line: (seq: number, env: unknown) => string): string[] {
  const cut = line(1, envelope([kw('B1')]));
  const corrupt = line(2, envelope([kw('B2')])).replace(',"status_message"', '\u0000"status_message"');
  const noId = { ...kw('B4') } as Record<string, unknown>;
  delete noId.id;
  const oddMerchant = merchant('A7');
  (oddMerchant.result as any[])[0].items[0].type = 1; // an item type that is no text: loaded, the value kept in extra
  return [
    line(0, envelope([kw('A1')])),
    cut.slice(0, Math.floor(cut.length / 2)), // 2: cut in the middle
    corrupt, // 3: a corrupted byte
    line(3, { status_code: 20000, tasks: { id: 'B3' } }), // 4: JSON, but no envelope
    line(4, envelope([noId, kw('A5')])), // 5: a task without an id beside a good one
    line(5, envelope([{ ...kw('B5'), result: { items: [] } }])), // 6: result is no list
    line(6, envelope([oddMerchant])), // 7: a value of an unexpected type (loads)
    line(7, envelope([merchant('A2')])),
  ];
}
/** A file of gzip members, one a line, the last cut in its middle (a crash mid-write). */
function cutGzip(lines: string[]): Buffer {
  const members = lines.map((l) => gzipSync(`${l}\n`));
  const last = members.pop()!;
  return Buffer.concat([...members, last.subarray(0, Math.floor(last.length * 0.6))]);
}

interface Outcome { code: number; out: string; err: string; root: string; log: any[] }

/** Runs a command in-process with stdout and stderr captured. */
async function capture(root: string, prefix: string, run: () => Promise<number>): Promise<Outcome> {
  const out: string[] = [];
  const err: string[] = [];
  const [w1, w2] = [process.stdout.write.bind(process.stdout), process.stderr.write.bind(process.stderr)];
  process.stdout.write = ((s: string) => { out.push(String(s)); return true; }) as never;
  process.stderr.write = ((s: string) => { err.push(String(s)); return true; }) as never;
  let code: number;
  try {
    code = await run();
  } finally {
    process.stdout.write = w1;
    process.stderr.write = w2;
  }
  const logs = path.join(dataDir(root), 'logs');
  const file = readdirSync(logs).find((f) => f.startsWith(prefix))!;
  const log = readFileSync(path.join(logs, file), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  return { code, out: out.join(''), err: err.join(''), root, log };
}

const dataDir = (root: string) => warehousePaths(path.resolve(root, loadConfig({ root, env: {} }).warehouse.dir)).dir;

/** The tables (catalog and ledger alike) holding a row of the task. */
async function tablesWith(root: string, taskId: string): Promise<string[]> {
  const wh = await Warehouse.open(warehousePaths(path.resolve(root, loadConfig({ root, env: {} }).warehouse.dir)).work);
  try {
    const tables = (await wh.connection.runAndReadAll(`SELECT DISTINCT table_name FROM duckdb_columns() WHERE column_name IN ('_task_id', 'task_id') AND schema_name = 'main'`)).getRows().map((r) => String(r[0]));
    const out: string[] = [];
    for (const t of tables) {
      const col = (await wh.connection.runAndReadAll(`SELECT column_name FROM duckdb_columns() WHERE table_name = '${t}' AND column_name IN ('_task_id', 'task_id')`)).getRows()[0][0];
      const n = Number((await wh.connection.runAndReadAll(`SELECT count(*) FROM "${t}" WHERE "${col}" = '${taskId}'`)).getRows()[0][0]);
      if (n) out.push(t);
    }
    return out;
  } finally {
    wh.close();
  }
}

/** What each command must say: [file, line, task, reason] in order. */
type Named = [string, number, string | null, RegExp | string];

function expectNamed(o: Outcome, named: Named[]): void {
  expect(o.code).toBe(EXIT.taskFailures);
  // The summary: one line per problem, in file and line order, in plain words.
  const said = o.out.split('\n').filter((l) => l.startsWith('  ') && /:\d+(, task [^:]+)?: /.test(l));
  expect(said.length).toBe(named.length);
  named.forEach(([file, line, task, reason], i) => {
    expect(said[i].startsWith(`  ${file}:${line}${task ? `, task ${task}` : ''}: `), said[i]).toBe(true);
    const why = said[i].slice(said[i].indexOf(': ') + 2);
    if (typeof reason === 'string') expect(why).toContain(reason);
    else expect(why).toMatch(reason);
  });
  expect(o.out).toMatch(new RegExp(`bad input, not loaded \\(${named.length}; everything else loaded\\)`));
  // The log: one warning per problem with its place; stderr says the same for people, without a stack trace.
  const warned = o.log.filter((r) => r.msg === 'bad input, not loaded');
  expect(warned.map((r) => [r.file, r.line, r.task])).toEqual(named.map(([f, l, t]) => [f, l, t]));
  expect(o.err.split('\n').filter((l) => l.includes('bad input, not loaded')).length).toBe(named.length);
  expect(o.err).not.toMatch(/^\s+at /m);
}

async function expectLoaded(root: string, good: string[], bad: string[]): Promise<void> {
  for (const id of bad) expect(await tablesWith(root, id), `rows of ${id}`).toEqual([]);
  const wh = await Warehouse.open(warehousePaths(path.resolve(root, loadConfig({ root, env: {} }).warehouse.dir)).work);
  try {
    const ids = (await wh.connection.runAndReadAll('SELECT _task_id FROM tasks ORDER BY 1')).getRows().map((r) => String(r[0]));
    expect(ids).toEqual(good);
    const items = Number((await wh.connection.runAndReadAll(`SELECT count(*) FROM merchant_shopping__items WHERE _task_id = 'A2'`)).getRows()[0][0]);
    expect(items).toBeGreaterThan(0);
    expect(Number((await wh.connection.runAndReadAll(`SELECT count(*) FROM keyword_data WHERE _task_id = 'A5'`)).getRows()[0][0])).toBe(3);
  } finally {
    wh.close();
  }
}

for (const worker of [false, true]) {
  const on = worker ? 'on a worker thread' : 'on the calling thread';

  describe(`seo-etl reprocess of an archive with bad lines, ${on}`, () => {
    let o: Outcome;
    let raw: string;
    beforeAll(async () => {
      const root = mkdtempSync(path.join(os.tmpdir(), 'seo-etl-badline-reprocess-'));
      dirs.push(root);
      raw = path.join(dataDir(root), 'raw', '2026-01-15');
      mkdirSync(raw, { recursive: true });
      writeFileSync(path.join(raw, 'r1-0001.ndjson.gz'), gzipSync(`${caseLines(record).join('\n')}\n`));
      writeFileSync(path.join(raw, 'r1-0002.ndjson.gz'), cutGzip([record(8, envelope([kw('A3')])), record(9, envelope([kw('A4')])), record(10, envelope([kw('B7')]))]));
      o = await capture(root, 'reprocess-', () => reprocessCommand({ root, worker }));
    }, 120_000);

    test('names each bad line and task once (file, line, task id), in the summary, the log and stderr; exits 1', () => {
      const f1 = path.join(raw, 'r1-0001.ndjson.gz');
      const f2 = path.join(raw, 'r1-0002.ndjson.gz');
      expectNamed(o, [
        [f1, 2, 'B1', /^not JSON, cut short or corrupted/],
        [f1, 3, 'B2', /^not JSON, cut short or corrupted/],
        [f1, 4, null, 'response: not an API response envelope'],
        [f1, 5, null, 'tasks[0]: a task without an id'],
        [f1, 6, 'B5', 'tasks[0]: result: not a list (object)'],
        [f2, 3, 'B7', /^cut short: the file ends inside this line; the 2 line\(s\) before it are read/],
      ]);
      // What a bad task counted goes with it: six tasks loaded; A7's odd item type is the one value counted.
      expect(o.out).toMatch(/; tasks 6 \(0 failed\)\n/);
      expect(o.out).toMatch(/values of an unexpected type/);
    });

    test('loads nothing of a bad task and every good one, the lines before a cut included', async () => {
      await expectLoaded(o.root, ['A1', 'A2', 'A3', 'A4', 'A5', 'A7'], ['B1', 'B2', 'B3', 'B5', 'B7']);
    });
  });

  describe(`seo-etl ingest of files with bad lines, ${on}`, () => {
    let o: Outcome;
    let files: string[];
    beforeAll(async () => {
      const root = mkdtempSync(path.join(os.tmpdir(), 'seo-etl-badline-ingest-'));
      dirs.push(root);
      files = ['lines.ndjson', 'cut.ndjson.gz', 'bare.json', 'bare-cut.json'].map((f) => path.join(root, f));
      writeFileSync(files[0], `${caseLines((_, env) => JSON.stringify(env)).join('\n')}\n`);
      writeFileSync(files[1], cutGzip([kw('A3'), kw('A4'), kw('B7')].map((t) => JSON.stringify(envelope([t])))));
      // Bare envelope files, pretty-printed as a user saves them: one with a bad task, one cut short.
      writeFileSync(files[2], JSON.stringify(envelope([kw('A6'), { ...kw('B8'), result: 'none' }]), null, 2));
      const cut = JSON.stringify(envelope([kw('B9')]), null, 2);
      writeFileSync(files[3], cut.slice(0, Math.floor(cut.length / 2)));
      o = await capture(root, 'ingest-', () => ingestCommand({ root, files, worker }));
    }, 120_000);

    test('names each bad line and task once by the file given and its line, archived ones with their archived place; exits 1', () => {
      const cutLine = readFileSync(files[3], 'utf8').trimEnd().split('\n').length; // the input ends on its last line
      expectNamed(o, [
        [files[0], 2, 'B1', /^not JSON, cut short or corrupted/],
        [files[0], 3, 'B2', /^not JSON, cut short or corrupted/],
        [files[0], 4, null, 'neither an archive line nor an API response envelope'],
        [files[0], 5, null, /^tasks\[0\]: a task without an id \(archived as .*ingest-.*-0001\.ndjson\.gz:2\)$/],
        [files[0], 6, 'B5', 'tasks[0]: result: not a list (object)'],
        [files[1], 3, 'B7', /^not JSON, cut short or corrupted/],
        [files[2], 1, 'B8', /^tasks\[1\]: result: not a list \(string\) \(archived as .*:8\)$/],
        [files[3], cutLine, 'B9', /^not JSON, cut short or corrupted/],
      ]);
      expect(o.out).toMatch(/; tasks 7 \(0 failed\)\n/);
    });

    test('loads nothing of a bad task and every good one, the lines before a cut included', async () => {
      await expectLoaded(o.root, ['A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'A7'], ['B1', 'B2', 'B3', 'B5', 'B7', 'B8', 'B9']);
    });
  });
}

describe('seo-etl reprocess of an archive a killed run left open (.partial)', () => {
  let o: Outcome;
  let file: string;
  beforeAll(async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'seo-etl-badline-partial-'));
    dirs.push(root);
    const raw = path.join(dataDir(root), 'raw', '2026-01-15');
    mkdirSync(raw, { recursive: true });
    file = path.join(raw, 'r1-0001.ndjson.gz.partial');
    writeFileSync(file, cutGzip([record(0, envelope([kw('A1')])), record(1, envelope([kw('A5')])), record(2, envelope([kw('B1')]))]));
    o = await capture(root, 'reprocess-', () => reprocessCommand({ root }));
  }, 120_000);

  test('says the cut last line as a killed run\'s, loads the lines before it and exits 0: it is no bad input', async () => {
    expect(o.code).toBe(EXIT.ok);
    expect(o.out).not.toMatch(/bad input, not loaded/);
    expect(o.out).toMatch(/left by a killed run \(1\):/);
    expect(o.out).toContain(`  ${file}:3, task B1: a killed run's last line, cut in its write; the 2 line(s) before it are read`);
    expect(o.log.filter((r) => r.msg === 'left by a killed run').map((r) => [r.file, r.line, r.task])).toEqual([[file, 3, 'B1']]);
    expect(await tablesWith(o.root, 'B1')).toEqual([]);
    expect(await tablesWith(o.root, 'A1')).toContain('tasks');
    expect(await tablesWith(o.root, 'A5')).toContain('keyword_data');
  });
});
