import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { loadConfig, type Config } from '../../src/config/index.js';
import { loadPipeline, PipelineError, type PositionedIssue, type QueryFn } from '../../src/pipeline/index.js';

export const repoRoot = path.resolve(import.meta.dirname, '../..');

/** An in-memory DuckDB opened before the file's tests and closed after them: `run` to set up, `query` to expand. */
export function useMemoryDuckDB(): { run: (sql: string) => Promise<unknown>; query: QueryFn } {
  let instance: DuckDBInstance | undefined;
  let conn: DuckDBConnection | undefined;
  beforeAll(async () => {
    instance = await DuckDBInstance.create(':memory:');
    conn = await instance.connect();
  });
  afterAll(() => {
    conn?.closeSync();
    instance?.closeSync();
  });
  return {
    run: (sql) => conn!.run(sql),
    query: async (sql) => (await conn!.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[],
  };
}

export function testConfig(overrides: Record<string, unknown> = {}): Config {
  return loadConfig({ root: repoRoot, env: {}, overrides });
}

/** Writes files into a fresh temporary folder; returns the folder. */
export function writeFiles(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-pipeline-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

/** Loads `pipeline.yaml` (plus any input files) from a temporary folder. */
export function load(yaml: string, inputs: Record<string, string> = {}, config: Config = testConfig()) {
  const dir = writeFiles({ 'pipeline.yaml': yaml, ...inputs });
  const file = path.join(dir, 'pipeline.yaml');
  return { dir, file, pipeline: () => loadPipeline(file, config) };
}

/** The issues loading a pipeline reports (it must fail with a PipelineError). */
export function issuesOf(yaml: string, inputs: Record<string, string> = {}): { file: string; dir: string; issues: PositionedIssue[]; error: PipelineError } {
  const { file, dir, pipeline } = load(yaml, inputs);
  try {
    pipeline();
  } catch (err) {
    expect(err).toBeInstanceOf(PipelineError);
    return { file, dir, issues: (err as PipelineError).issues, error: err as PipelineError };
  }
  throw new Error('expected the pipeline to be rejected');
}

/** Line (1-based) of the first line of `yaml` that contains `needle`, and the column where it starts. */
export function lineOf(yaml: string, needle: string): { line: number; column: number } {
  const lines = yaml.split('\n');
  const i = lines.findIndex((l) => l.includes(needle));
  if (i < 0) throw new Error(`no line contains ${needle}`);
  return { line: i + 1, column: lines[i].indexOf(needle) + 1 };
}
