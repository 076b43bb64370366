import { afterEach, describe, expect, test } from 'vitest';
import { gzipSync } from 'node:zlib';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ArchiveWriter } from '../../src/archive/writer.js';
import { listArchiveFiles, readLines } from '../../src/archive/reader.js';
import { startWebhookReceiver, type WebhookReceiver, type PostbackEvent, type PingbackEvent, type RejectedEvent } from '../../src/collect/webhook.js';

const envelope = { version: '0.1', status_code: 20000, status_message: 'Ok.', time: '0.01 sec.', cost: 0, tasks_count: 1, tasks_error: 0, tasks: [{ id: 't1', status_code: 20000, result: [] }] };
let rx: WebhookReceiver | undefined;
afterEach(async () => { await rx?.close(); rx = undefined; });

async function start(maxBodyBytes = 64 * 1024) {
  const got = { pings: [] as PingbackEvent[], posts: [] as PostbackEvent[], rejected: [] as RejectedEvent[] };
  rx = await startWebhookReceiver({
    host: '127.0.0.1', port: 0, maxBodyBytes, secret: 's3cret-s3cret-s3cret',
    onPingback: (e) => { got.pings.push(e); }, onPostback: (e) => { got.posts.push(e); }, onRejected: (e) => { got.rejected.push(e); },
  });
  return got;
}
const fill = (tpl: string, id: string, tag: string) => tpl.replace('$id', id).replace('$tag', encodeURIComponent(tag));

describe('webhook receiver', () => {
  test('pingback with the run secret is accepted with its id and decoded tag', async () => {
    const got = await start();
    const r = await fetch(fill(rx!.pingbackUrl, 'abc', 'seo-etl/p/s/k1 #2'));
    expect(r.status).toBe(200);
    expect(got.pings).toHaveLength(1);
    expect(got.pings[0]).toMatchObject({ id: 'abc', tag: 'seo-etl/p/s/k1 #2' });
  });

  test('gzip postback is decoded to its envelope', async () => {
    const got = await start();
    const r = await fetch(fill(rx!.postbackUrl, 't1', 'x'), { method: 'POST', body: gzipSync(JSON.stringify(envelope)), headers: { 'content-encoding': 'gzip' } });
    expect(r.status).toBe(200);
    expect(got.posts[0].envelope.tasks[0].id).toBe('t1');
    expect(JSON.parse(got.posts[0].body)).toEqual(envelope);
  });

  test('a request without the secret or with a wrong one has no effect', async () => {
    const got = await start();
    const wrong = rx!.pingbackUrl.replace('s3cret-s3cret-s3cret', 's3cret-s3cret-s3creT');
    expect((await fetch(fill(wrong, 'abc', 't'))).status).toBe(404);
    const port = rx!.port;
    expect((await fetch(`http://127.0.0.1:${port}/cb//pingback?id=abc`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${port}/pingback?id=abc`)).status).toBe(404);
    expect(got.pings).toHaveLength(0);
    expect(got.rejected.every((r) => !r.path.includes('s3cret-s3cret-s3cret'))).toBe(true);
  });

  test('a gzip bomb is cut off at the size limit', async () => {
    const got = await start(64 * 1024);
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20)); // 50 MiB of spaces, ~50 KiB compressed
    expect(bomb.length).toBeLessThan(64 * 1024);
    const before = process.memoryUsage().rss;
    const r = await fetch(fill(rx!.postbackUrl, 't1', 'x'), { method: 'POST', body: bomb });
    expect(r.status).toBe(413);
    expect(got.posts).toHaveLength(0);
    expect(process.memoryUsage().rss - before).toBeLessThan(40 * 1024 * 1024);
  });

  test('an oversized body and truncated or malformed bodies are rejected without effect', async () => {
    const got = await start(1024);
    expect((await fetch(fill(rx!.postbackUrl, 't1', 'x'), { method: 'POST', body: 'x'.repeat(5000) })).status).toBe(413);
    const gz = gzipSync(JSON.stringify(envelope));
    expect((await fetch(fill(rx!.postbackUrl, 't1', 'x'), { method: 'POST', body: gz.subarray(0, gz.length - 10) })).status).toBe(400);
    expect((await fetch(fill(rx!.postbackUrl, 't1', 'x'), { method: 'POST', body: '{"tasks": [' })).status).toBe(400);
    expect((await fetch(fill(rx!.postbackUrl, 't1', 'x'), { method: 'POST', body: '{"no":"tasks"}' })).status).toBe(400);
    expect(got.posts).toHaveLength(0);
    expect(got.rejected.length).toBe(4);
    // and the receiver still works afterwards
    expect((await fetch(fill(rx!.postbackUrl, 't1', 'x'), { method: 'POST', body: JSON.stringify(envelope) })).status).toBe(200);
    expect(got.posts).toHaveLength(1);
  });

  test('a postback is answered only after its handler finished, and 500 when the handler failed', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    let fail = false;
    rx = await startWebhookReceiver({
      host: '127.0.0.1', port: 0, maxBodyBytes: 64 * 1024, secret: 's3cret-s3cret-s3cret',
      onPostback: async () => { await gate; if (fail) throw new Error('disk full'); },
    });
    let answered: number | null = null;
    const req = fetch(fill(rx.postbackUrl, 't1', 'x'), { method: 'POST', body: gzipSync(JSON.stringify(envelope)) }).then((r) => { answered = r.status; });
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 5));
    expect(answered).toBeNull();
    release();
    await req;
    expect(answered).toBe(200);
    fail = true;
    expect((await fetch(fill(rx.postbackUrl, 't1', 'x'), { method: 'POST', body: gzipSync(JSON.stringify(envelope)) })).status).toBe(500);
  });

  test('postbacks answered 200 while archived as the run does it are in the archive file at that moment', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'seo-etl-webhook-archive-'));
    const archive = new ArchiveWriter({ dir, runId: 'r1' });
    try {
      rx = await startWebhookReceiver({
        host: '127.0.0.1', port: 0, maxBodyBytes: 64 * 1024, secret: 's3cret-s3cret-s3cret',
        onPostback: async (e) => { await archive.append({ endpointId: null, method: 'POST', path: '(postback)', httpStatus: 200, body: e.body, parsed: e.envelope, receivedAt: e.receivedAt }); },
      });
      const ids = Array.from({ length: 40 }, (_, i) => `task-${i}`);
      const inFileWhenAnswered = await Promise.all(ids.map(async (id) => {
        const body = gzipSync(JSON.stringify({ ...envelope, tasks: [{ ...envelope.tasks[0], id }] }));
        const r = await fetch(fill(rx!.postbackUrl, id, 'x'), { method: 'POST', body });
        expect(r.status).toBe(200);
        // What a kill right after the answer would leave.
        const copy = path.join(dir, `${id}-0001.ndjson.gz.partial`);
        copyFileSync(listArchiveFiles(dir).find((f) => f.endsWith('.partial'))!, copy);
        const kept: string[] = [];
        for await (const l of readLines(copy)) kept.push(JSON.parse(l.toString('utf8')).response.tasks[0].id);
        return kept.includes(id);
      }));
      expect(inFileWhenAnswered.every(Boolean)).toBe(true);
    } finally {
      await archive.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
