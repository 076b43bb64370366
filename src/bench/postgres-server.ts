/**
 * A throwaway PostgreSQL server for the tests and the benchmark: this machine's PostgreSQL binaries (the Makefile installs them
 * when missing), a cluster in a temporary folder, listening on 127.0.0.1 on a free port, with a password (so the
 * tests see that it never leaks). PostgreSQL refuses to run as root: as root, it runs as the `postgres` user.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface TestPostgres {
  url: string;
  password: string;
  port: number;
  /** Stops the server, keeping its data (to test a destination that is down). */
  stop(): void;
  start(): void;
  query<T = Record<string, unknown>>(sql: string, values?: unknown[]): Promise<T[]>;
  close(): void;
}

export function postgresBin(): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).filter((v) => existsSync(path.join(base, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a)) : [];
  if (!versions.length) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql (make test installs postgresql)');
  return path.join(base, versions[0], 'bin');
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export async function startPostgres(): Promise<TestPostgres> {
  const bin = postgresBin();
  const dir = mkdtempSync(path.join(tmpdir(), 'seo-etl-pg-'));
  const asRoot = process.getuid?.() === 0;
  const pgUser = asRoot ? Number(execFileSync('id', ['-u', 'postgres']).toString().trim()) : undefined;
  const pgGroup = asRoot ? Number(execFileSync('id', ['-g', 'postgres']).toString().trim()) : undefined;
  if (asRoot) chownSync(dir, pgUser!, pgGroup!);
  const run = (cmd: string, args: string[]) => {
    const full = path.join(bin, cmd);
    return asRoot ? execFileSync('runuser', ['-u', 'postgres', '--', full, ...args], { stdio: 'pipe' }) : execFileSync(full, args, { stdio: 'pipe' });
  };
  const password = `pw-${Math.random().toString(36).slice(2)}-secret`;
  const pwfile = path.join(dir, 'pw');
  writeFileSync(pwfile, `${password}\n`);
  if (asRoot) chownSync(pwfile, pgUser!, pgGroup!);
  const data = path.join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=scram-sha-256', `--pwfile=${pwfile}`, '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const start = () => {
    run('pg_ctl', ['start', '-w', '-t', '60', '-D', data, '-l', path.join(dir, 'log'),
      '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=32MB -c max_connections=40`]);
  };
  const stop = () => {
    run('pg_ctl', ['stop', '-w', '-m', 'fast', '-D', data]);
  };
  start();
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  return {
    url,
    password,
    port,
    start,
    stop,
    async query<T>(sql: string, values?: unknown[]): Promise<T[]> {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        return (await c.query(sql, values as unknown[])).rows as T[];
      } finally {
        await c.end();
      }
    },
    close() {
      try { stop(); } catch { /* already stopped */ }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
