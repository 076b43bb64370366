/**
 * chunk-fill.ts writes DuckDB's string_t slots itself through @duckdb/node-bindings (issue 30): the package is
 * declared and pinned with the node-api that loads it, and the layout is proven against DuckDB before any load,
 * so an upgrade that changes it stops loading loudly instead of corrupting strings.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkStringLayout, fillColumn, probeStringLayout } from '../../src/load/chunk-fill.js';
import { ROOT } from '../helpers/project.js';

const json = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { version: string; dependencies: Record<string, string> };
const require = createRequire(path.join(ROOT, 'package.json'));

describe('the low-level string fill', () => {
  it('is declared: @duckdb/node-bindings pinned to the exact version installed and to the one @duckdb/node-api loads', () => {
    const deps = json(path.join(ROOT, 'package.json')).dependencies;
    const bindings = json(require.resolve('@duckdb/node-bindings/package.json')).version;
    const api = json(require.resolve('@duckdb/node-api/package.json'));
    expect(deps['@duckdb/node-bindings']).toBe(bindings);
    expect(deps['@duckdb/node-api']).toBe(api.version);
    expect(api.dependencies['@duckdb/node-bindings']).toBe(bindings);
  });

  it('proves the layout against DuckDB: the probe strings read back as written', async () => {
    await expect(probeStringLayout()).resolves.toBeUndefined();
    await expect(checkStringLayout()).resolves.toBeUndefined();
  });

  it('fails loudly, naming the package, when DuckDB reads back other strings than were meant', async () => {
    // What a changed layout does: the slots written point at other bytes than the strings meant.
    const shifted: typeof fillColumn = (chunk, column, type, values, count) =>
      fillColumn(chunk, column, type, values.map((v) => (v === 'thirteen bytes' ? 'thirteen bytez' : v)), count);
    await expect(probeStringLayout(shifted)).rejects.toThrow(/@duckdb\/node-bindings .*string layout is not the one src\/load\/chunk-fill.ts writes \(probe 3: wrote "thirteen bytes", read "thirteen bytez"\)/);
  });
});
