/**
 * A reader in another process holding a DuckDB file open read-only, as a notebook does: `ask` runs its query once
 * more and answers the first value of the first row, as text.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './project.js';

export interface DuckdbReader {
  /** Resolves to 'open' once the file is open. */
  opened: Promise<string>;
  ask(): Promise<string>;
  quit(): Promise<void>;
}

export function startDuckdbReader(file: string, sql: string): DuckdbReader {
  const script = `
    const { DuckDBInstance } = await import(${JSON.stringify(path.join(ROOT, 'node_modules/@duckdb/node-api/lib/index.js'))});
    const i = await DuckDBInstance.create(${JSON.stringify(file)}, { access_mode: 'READ_ONLY' });
    const c = await i.connect();
    process.stdout.write('open\\n');
    process.stdin.on('data', async (d) => {
      if (String(d).includes('quit')) { c.closeSync(); i.closeSync(); process.exit(0); }
      const r = await c.runAndReadAll(${JSON.stringify(sql)});
      process.stdout.write(String(r.getRows()[0][0]) + '\\n');
    });`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  let buf = '';
  const waiters: ((line: string) => void)[] = [];
  child.stdout.on('data', (d) => {
    buf += String(d);
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) { const line = buf.slice(0, nl); buf = buf.slice(nl + 1); waiters.shift()?.(line); }
  });
  const next = () => new Promise<string>((resolve) => waiters.push(resolve));
  return {
    opened: next(),
    ask: async () => { const p = next(); child.stdin.write('ask\n'); return p; },
    quit: () => new Promise<void>((resolve) => { child.on('exit', () => resolve()); child.stdin.write('quit\n'); }),
  };
}
