/** `seo-etl sandbox [--port N] [--host H]`: runs the sandbox in the foreground until interrupted. */
import { loadConfig } from '../config/index.js';
import { UserError } from '../exit.js';
import { startSandbox } from './index.js';

export interface SandboxCommandOptions {
  root?: string;
  port?: number;
  host?: string;
}

export async function sandboxCommand(opts: SandboxCommandOptions): Promise<number> {
  const config = loadConfig({ root: opts.root });
  const port = opts.port ?? config.sandbox.port;
  const host = opts.host ?? '127.0.0.1';
  const sandbox = await startSandbox({ config, port, host }).catch((err: NodeJS.ErrnoException) => {
    const why = { EADDRINUSE: 'is in use', EACCES: 'is not allowed', EADDRNOTAVAIL: 'is not an address of this machine' }[err.code ?? ''];
    if (why) throw new UserError(`--port/--host: ${host}:${port} ${why}; pick another (--port 0 picks a free one)`);
    throw err;
  });
  const { login, password } = config.sandbox;
  process.stdout.write(
    `sandbox listening on ${sandbox.url}\n` +
      `credentials: ${login}:${password}\n` +
      `try: curl -u ${login}:${password} ${sandbox.url}/v3/serp/endpoints\n` +
      `test controls: ${sandbox.url}/_sandbox/calls (loopback only; see docs/sandbox.md)\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await sandbox.close();
  return 0;
}
