/**
 * Capture and replay of postbacks, so the postback figure measures the job's receiver and not the sandbox.
 *
 * The run's public webhook address (webhook.public_url) points at the relay: the sandbox delivers every postback
 * to it while the job posts (the relay keeps the gzip body and the path, with the run's secret, and answers 200,
 * so the sandbox counts it delivered). Once all are in, `replay` sends them, byte for byte, to the job's receiver
 * (webhook.listen_port) at a fixed concurrency, each on its own connection as the service does. The receiver
 * then ingests a ready backlog as fast as it can, and the sandbox's cost of building, gzipping and sending the
 * postbacks (about as much CPU as ingesting them, on the same 2 cores) stays out of the figure.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

interface Captured {
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

export interface ReplayResult {
  startedAt: number;
  endedAt: number;
  sent: number;
  /** Answers by HTTP status (0: connection error). */
  statuses: Record<string, number>;
  /** Share of the replay this process's event loop was busy (the sender must not be the bottleneck). */
  senderBusy: number;
}

export interface PostbackRelay {
  url: string;
  captured(): number;
  /** Sends every captured postback to http://127.0.0.1:port with `concurrency` requests in flight. */
  replay(port: number, concurrency: number): Promise<ReplayResult>;
  close(): Promise<void>;
}

export async function startPostbackRelay(): Promise<PostbackRelay> {
  const captured: Captured[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const h of ['content-type', 'content-encoding']) if (typeof req.headers[h] === 'string') headers[h] = req.headers[h] as string;
      captured.push({ path: req.url ?? '/', headers, body: Buffer.concat(chunks) });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    captured: () => captured.length,
    replay: async (target, concurrency) => {
      const statuses: Record<string, number> = {};
      const elu = performance.eventLoopUtilization();
      const startedAt = Date.now();
      let next = 0;
      const sendOne = (c: Captured) => new Promise<void>((resolve) => {
        const req = http.request({ host: '127.0.0.1', port: target, path: c.path, method: 'POST', agent: false, headers: { ...c.headers, 'content-length': c.body.length } }, (res) => {
          res.resume();
          res.on('end', () => {
            statuses[res.statusCode ?? 0] = (statuses[res.statusCode ?? 0] ?? 0) + 1;
            resolve();
          });
        });
        req.on('error', () => {
          statuses[0] = (statuses[0] ?? 0) + 1;
          resolve();
        });
        req.end(c.body);
      });
      await Promise.all(Array.from({ length: concurrency }, async () => {
        while (next < captured.length) await sendOne(captured[next++]);
      }));
      return { startedAt, endedAt: Date.now(), sent: captured.length, statuses, senderBusy: performance.eventLoopUtilization(elu).utilization };
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** A TCP port free on 127.0.0.1 right now (for a child's listener that must be known in advance). */
export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
