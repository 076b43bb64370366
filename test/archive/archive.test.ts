import { afterEach, describe, expect, it } from 'vitest';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ArchiveWriter } from '../../src/archive/writer.js';
import { listArchiveFiles, readLines, readProblem, type ReadReport } from '../../src/archive/reader.js';
import { readResponseFile, entryOf } from '../../src/archive/ingest.js';
import { resolveEndpoint } from '../../src/archive/records.js';
import { ingestCommand, reprocessCommand } from '../../src/run/archive-command.js';
import { warehousePaths } from '../../src/config/data-paths.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { loadConfig } from '../../src/config/index.js';
import { keywordTask, merchantTask, technologyTask } from '../normalize/fixtures.js';
import { dumpTables } from '../load/helpers.js';
import { allColumns } from '../../src/catalog/table.js';
import { table as tableDef } from '../../src/normalize/catalog.js';

const dirs: string[] = [];
afterEach(() => { while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true }); });
const tmpDir = () => { const d = mkdtempSync(path.join(os.tmpdir(), 'seo-etl-archive-')); dirs.push(d); return d; };
async function lines(file: string, report?: ReadReport): Promise<string[]> {
  const out: string[] = [];
  for await (const l of readLines(file, report)) out.push(l.toString('utf8'));
  return out;
}
const at = new Date('2026-01-15T12:00:00Z');

describe('ArchiveWriter', () => {
  it('splices JSON bodies verbatim, keeps a non-JSON body as text and a multi-line body on one line', async () => {
    const dir = tmpDir();
    const w = new ArchiveWriter({ dir, runId: 'r1', now: () => at });
    await w.append({ endpointId: 'serp.endpoints', method: 'GET', path: '/v3/serp/endpoints', httpStatus: 200, body: '{"version":"1","tasks":[],"n":1.50}' });
    await w.append({ endpointId: null, method: 'GET', path: '/v3/x', httpStatus: 502, body: '<html>bad gateway</html>' });
    await w.append({ endpointId: null, method: 'GET', path: '/v3/y', httpStatus: 200, body: '{\n  "a": 1\n}' });
    await w.close();
    expect(w.closedFiles).toEqual([path.join(dir, '2026-01-15', 'r1-0001.ndjson.gz')]);
    const got = await lines(w.closedFiles[0]);
    expect(got[0]).toBe('{"run_id":"r1","seq":0,"endpoint_id":"serp.endpoints","method":"GET","path":"/v3/serp/endpoints","received_at":"2026-01-15T12:00:00.000Z","http_status":200,"response":{"version":"1","tasks":[],"n":1.50}}');
    expect(JSON.parse(got[1])).toMatchObject({ http_status: 502, response_text: '<html>bad gateway</html>' });
    expect(JSON.parse(got[2]).response).toEqual({ a: 1 });
  });

  it('rotates by size into complete files and continues numbering for a resumed run', async () => {
    const dir = tmpDir();
    const w = new ArchiveWriter({ dir, runId: 'r1', maxBytes: 200, now: () => at });
    for (let i = 0; i < 5; i++) await w.append({ endpointId: null, method: 'GET', path: `/p/${i}`, httpStatus: 200, body: `{"i":${i}}` });
    await w.close();
    expect(w.closedFiles.length).toBeGreaterThan(1);
    const again = new ArchiveWriter({ dir, runId: 'r1', now: () => at });
    await again.append({ endpointId: null, method: 'GET', path: '/p/5', httpStatus: 200, body: '{"i":5}' });
    await again.close();
    const files = listArchiveFiles(dir);
    expect(files.every((f) => f.endsWith('.ndjson.gz'))).toBe(true);
    const all = (await Promise.all(files.map((f) => lines(f)))).flat().map((l) => JSON.parse(l).response.i);
    expect(all).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('leaves a .partial file readable up to its last complete line when the process dies mid-file', async () => {
    const dir = tmpDir();
    const w = new ArchiveWriter({ dir, runId: 'r1', now: () => at });
    for (let i = 0; i < 3; i++) await w.append({ endpointId: null, method: 'GET', path: `/p/${i}`, httpStatus: 200, body: `{"i":${i}}` });
    const day = path.join(dir, '2026-01-15');
    const partial = readdirSync(day).find((f) => f.endsWith('.partial'))!;
    expect(partial).toBe('r1-0001.ndjson.gz.partial');
    // What a killed process leaves: the flushed bytes, no gzip trailer; and a copy torn in the middle of a block.
    const crashed = path.join(tmpDir(), '2026-01-15');
    mkdirSync(crashed, { recursive: true });
    copyFileSync(path.join(day, partial), path.join(crashed, 'r9-0001.ndjson.gz.partial'));
    const bytes = readFileSync(path.join(day, partial));
    writeFileSync(path.join(crashed, 'r9-0002.ndjson.gz.partial'), bytes.subarray(0, bytes.length - 7));
    await w.close();
    const files = listArchiveFiles(path.dirname(crashed));
    const r1: ReadReport = { file: files[0], lines: 0, droppedBytes: 0 };
    expect((await lines(files[0], r1)).map((l) => JSON.parse(l).response.i)).toEqual([0, 1, 2]);
    const r2: ReadReport = { file: files[1], lines: 0, droppedBytes: 0 };
    const salvaged = (await lines(files[1], r2)).map((l) => JSON.parse(l).response.i);
    expect(salvaged).toEqual([0, 1, 2].slice(0, salvaged.length));
    expect(salvaged.length).toBeGreaterThanOrEqual(2);
  });
  it('names a closed gzip file cut between two lines (no trailer), and not a .partial one so cut', async () => {
    const day = path.join(tmpDir(), '2026-01-15');
    mkdirSync(day, { recursive: true });
    const whole = gzipSync(['{"i":0}', '{"i":1}', ''].join('\n'));
    // Without its 8-byte trailer the stream still holds both lines whole: only the trailer says the file ended.
    writeFileSync(path.join(day, 'r1-0001.ndjson.gz'), whole.subarray(0, whole.length - 8));
    writeFileSync(path.join(day, 'r1-0002.ndjson.gz.partial'), whole.subarray(0, whole.length - 8));
    writeFileSync(path.join(day, 'r1-0003.ndjson.gz'), whole);
    const [cut, partial, intact] = listArchiveFiles(path.dirname(day));
    const read = async (file: string) => {
      const report: ReadReport = { file, lines: 0, droppedBytes: 0 };
      return { got: (await lines(file, report)).map((l) => JSON.parse(l).i), problem: readProblem(report) };
    };
    const a = await read(cut);
    expect(a.got).toEqual([0, 1]);
    expect(a.problem).toMatchObject({ file: cut, line: 3, task: null });
    expect(a.problem!.reason).toMatch(/^cut short: the gzip file ends without its trailer, after a complete line; the 2 line\(s\) before it are read/);
    expect(await read(partial)).toEqual({ got: [0, 1], problem: null });
    expect(await read(intact)).toEqual({ got: [0, 1], problem: null });
  });
});

describe('ingest and reprocess', () => {
  function liveEnvelope(t: ReturnType<typeof keywordTask>) {
    const task = { ...t.task, path: t.task.path.map((s) => s) };
    return { version: t.version, status_code: 20000, status_message: 'Ok.', time: '0.2 sec.', cost: 0, tasks_count: 1, tasks_error: 0, tasks: [task] };
  }

  it('resolves the endpoint of a live-service task from its path segments, whatever the engine is called', () => {
    const engines = loadConfig({ root: tmpDir() }).paths;
    const t = keywordTask('K1', 2, 1).task;
    expect(resolveEndpoint({ ...t, path: ['v3', 'keywords_data', 'google', 'keywords_for_site', 'task_get', 'K1'] }, {}, engines)).toBe('keywords_for_site.task_get');
    expect(resolveEndpoint({ ...t, path: ['v3', 'serp', 'map'], data: { api: 'serp', function: 'endpoints' } }, {}, engines)).toBe('serp.endpoints');
    expect(resolveEndpoint({ ...t, path: ['v3', 'merchant', 'google', 'products', 'task_get', 'advanced', 'X'] }, {}, engines)).toBe('merchant.google.products.task_get.advanced');
    // Backlinks is a family of the registry now; a path no family declares stays unknown.
    expect(resolveEndpoint({ ...t, path: ['v3', 'backlinks', 'summary', 'live'], data: {} }, {}, engines)).toBe('backlinks.summary.live');
    expect(resolveEndpoint({ ...t, path: ['v3', 'no_such_family', 'summary', 'live'], data: {} }, {}, engines)).toBe('unknown:v3/no_such_family/summary/live');
  });

  it('reads JSON, gzip JSON and NDJSON files, and names the file and line of bad input', () => {
    const dir = tmpDir();
    const env = liveEnvelope(keywordTask('K1', 2, 1));
    writeFileSync(path.join(dir, 'a.json'), JSON.stringify(env, null, 2));
    writeFileSync(path.join(dir, 'b.json.gz'), gzipSync(JSON.stringify(env)));
    writeFileSync(path.join(dir, 'c.ndjson'), `${JSON.stringify(env)}\n${JSON.stringify(env)}\n`);
    writeFileSync(path.join(dir, 'd.ndjson'), `${JSON.stringify(env)}\n{oops\n`);
    expect(readResponseFile(path.join(dir, 'a.json')).docs.length).toBe(1);
    expect(readResponseFile(path.join(dir, 'b.json.gz')).docs.length).toBe(1);
    expect(readResponseFile(path.join(dir, 'c.ndjson')).docs.length).toBe(2);
    // A bad line costs only itself (issue 46): named, and the line before it still read.
    const d = readResponseFile(path.join(dir, 'd.ndjson'));
    expect(d.docs.length).toBe(1);
    expect(d.problems).toMatchObject([{ file: path.join(dir, 'd.ndjson'), line: 2, task: null, reason: expect.stringMatching(/^not JSON/) }]);
    expect(() => entryOf({ nope: 1 }, 'x.json', loadConfig({ root: dir }).paths)).toThrow(/x\.json: tasks: required/);
  });

  it('ingests live-service files into the archive and tables; reprocess rebuilds the same tables from the archive', { timeout: 120_000 }, async () => {
    const root = tmpDir();
    const config = loadConfig({ root });
    const k = keywordTask('K1', 4, 1);
    k.task.path = ['v3', 'keywords_data', 'google', 'keywords_for_site', 'task_get', 'K1'];
    (k.task.result as any[])[0].keyword_difficulty = 77;
    const m = merchantTask('M1', 'google');
    m.task.path = ['v3', 'merchant', 'google', 'products', 'task_get', 'advanced', 'M1'];
    const d = technologyTask('D1', 3);
    d.task.path = ['v3', 'domain_analytics', 'technologies', 'domains_by_html_terms', 'live'];
    writeFileSync(path.join(root, 'kw.json'), JSON.stringify(liveEnvelope(k)));
    writeFileSync(path.join(root, 'more.ndjson.gz'), gzipSync([m, d].map((t) => JSON.stringify(liveEnvelope(t))).join('\n')));
    const out: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((s: string) => { out.push(String(s)); return true; }) as never;
    try {
      expect(await ingestCommand({ root, files: [path.join(root, 'kw.json'), path.join(root, 'more.ndjson.gz')] })).toBe(0);
    } finally {
      process.stdout.write = write;
    }
    expect(out.join('')).toMatch(/unknown fields kept in extra: 1 \(keyword_data\.keyword_difficulty x1\)/);
    const paths = warehousePaths(path.resolve(root, config.warehouse.dir));
    expect(listArchiveFiles(paths.raw).length).toBe(1);
    let wh = await Warehouse.open(paths.work);
    const before = await dumpTables(wh);
    wh.close();
    expect(before.keyword_data.length).toBe(4);
    const itemType = allColumns(tableDef('merchant_shopping__items')).filter((c) => c.name !== '_loaded_at').findIndex((c) => c.name === 'item_type');
    expect(new Set(before.merchant_shopping__items.map((r: any) => r[itemType]))).toEqual(new Set(['shopping_sponsored_carousel', 'shopping_carousel', 'shopping_paid', 'shopping_serp', 'related_searches']));
    expect(before.domain_technologies__items.length).toBe(3);
    process.stdout.write = (() => true) as never;
    try {
      expect(await reprocessCommand({ root })).toBe(0);
    } finally {
      process.stdout.write = write;
    }
    wh = await Warehouse.open(paths.work);
    expect(await dumpTables(wh)).toEqual(before);
    wh.close();
    expect(existsSync(paths.work) && statSync(paths.work).size > 0).toBe(true);
    // Readers see it: both commands publish the working warehouse, as a run does.
    const published = await Warehouse.open(paths.published);
    expect((await dumpTables(published)).keyword_data).toEqual(before.keyword_data);
    published.close();
    expect(existsSync(path.join(paths.dir, 'run.lock'))).toBe(false);
  });
});
