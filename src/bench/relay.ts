/**
 * Capture and replay of postbacks, so the postback figure measures the job's receiver and not the sandbox.
 *
 * The run's public webhook address (webhook.public_url) points at the relay: the sandbox delivers every postback
 * to it while the job posts (the relay keeps the gzip body and the path, with the run's secret, and answers 200,
 * so the sandbox counts it delivered). Once all are in, `replay` sends them, byte for byte, to the job's receiver
 * (webhook.listen_port) at a fixed concurrency, each on its own connection as the service does (written on a raw
 * socket: see requestBytes). The receiver
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
        let done = false;
        const answered = (status: number) => {
          if (done) return;
          done = true;
          statuses[status] = (statuses[status] ?? 0) + 1;
          resolve();
        };
        const socket = net.connect(target, '127.0.0.1');
        const chunks: Buffer[] = [];
        socket.on('data', (d: Buffer) => chunks.push(d));
        // The receiver closes the connection after its answer (the request says `connection: close`).
        socket.on('end', () => {
          socket.destroy();
          answered(statusOf(Buffer.concat(chunks)));
        });
        socket.on('error', () => {
          socket.destroy();
          answered(0);
        });
        socket.setTimeout(60_000, () => {
          socket.destroy();
          answered(0);
        });
        // Not half-closed: a receiver may drop a connection whose client stopped sending before it answered.
        socket.write(requestBytes(c, target));
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

/**
 * The HTTP/1.1 request for a captured postback, as a client with no connection reuse writes it: the service's
 * path, content headers and body, byte for byte. Written on a raw socket, so the sender (in the bench process,
 * on the same 2 cores as the job) spends a fraction of what a full HTTP client does per connection and the
 * figure measures the receiver rather than the sender.
 */
function requestBytes(c: Captured, port: number): Buffer {
  const head = [`POST ${c.path} HTTP/1.1`, `host: 127.0.0.1:${port}`, ...Object.entries(c.headers).map(([k, v]) => `${k}: ${v}`), `content-length: ${c.body.length}`, 'connection: close', '', ''].join('\r\n');
  return Buffer.concat([Buffer.from(head, 'latin1'), c.body]);
}

/** The status code of a raw HTTP/1.1 response; 0 when it is not one. */
function statusOf(response: Buffer): number {
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(response.subarray(0, 16).toString('latin1'));
  return m ? Number(m[1]) : 0;
}

/** A TCP port free on 127.0.0.1 right now (for a child's listener that must be known in advance). */
export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
