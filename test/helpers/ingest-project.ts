/**
 * A project folder and the embedded sandbox for tests that save answers in the live shapes and feed them through
 * `seo-etl ingest`, as a user would: `call`/`post` ask the sandbox, `ingest` loads saved files or answers, `rows`
 * reads the working warehouse, `published` the published one. Registers its own afterAll.
 */
import { afterAll, expect } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ingestCommand } from '../../src/run/archive-command.js';
import { warehousePaths } from '../../src/config/data-paths.js';
import { loadConfig } from '../../src/config/index.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { ROOT, queryFile } from './project.js';

export interface IngestProject {
  /** The project folder (its data folder is where the config puts it). */
  readonly root: string;
  call(method: 'GET' | 'POST', p: string, body?: unknown): Promise<any>;
  /** POSTs one task. */
  post(p: string, task: unknown): Promise<any>;
  /** Ingests saved files, or answers saved under the given names first; expects exit 0; returns what it printed. */
  ingest(what: string[] | Array<[string, unknown]>): Promise<string>;
  /** Rows of a query against the working warehouse. */
  rows(sql: string): Promise<Record<string, any>[]>;
  /** Rows of a query against the published warehouse (the one with the curated views). */
  published(sql: string): Promise<Record<string, any>[]>;
}

export function useIngestProject(prefix: string): IngestProject {
  const root = mkdtempSync(path.join(os.tmpdir(), `seo-etl-${prefix}-`));
  // The sandbox starts with the first call: a test that only ingests saved answers does not pay for it.
  let started: Promise<{ box: Sandbox; auth: string }> | undefined;
  const sandbox = () => (started ??= (async () => {
    const config = loadConfig({ root: ROOT, env: {} });
    const box = await startSandbox({ config, port: 0 });
    return { box, auth: `Basic ${Buffer.from(`${config.sandbox.login}:${config.sandbox.password}`).toString('base64')}` };
  })());
  afterAll(async () => {
    if (started) await (await started).box.close();
    rmSync(root, { recursive: true, force: true });
  });
  const call = async (method: 'GET' | 'POST', p: string, body?: unknown) => {
    const { box, auth } = await sandbox();
    return (await fetch(`${box.url}${p}`, { method, headers: { Authorization: auth, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined })).json() as Promise<any>;
  };
  return {
    root,
    call,
    post: (p, task) => call('POST', p, [task]),
    async ingest(what) {
      const files = what.map((w) => {
        if (typeof w === 'string') return w;
        const f = path.join(root, w[0]);
        writeFileSync(f, JSON.stringify(w[1]));
        return f;
      });
      const write = process.stdout.write.bind(process.stdout);
      const out: string[] = [];
      process.stdout.write = ((s: string) => { out.push(String(s)); return true; }) as never;
      try {
        expect(await ingestCommand({ root, files })).toBe(0);
      } finally {
        process.stdout.write = write;
      }
      return out.join('');
    },
    published: (sql) => queryFile(warehousePaths(path.resolve(root, loadConfig({ root, env: {} }).warehouse.dir)).published, sql),
    async rows(sql) {
      const wh = await Warehouse.open(warehousePaths(path.resolve(root, loadConfig({ root, env: {} }).warehouse.dir)).work);
      try {
        return (await wh.connection.runAndReadAll(sql)).getRowObjectsJS() as Record<string, any>[];
      } finally {
        await wh.close();
      }
    },
  };
}
