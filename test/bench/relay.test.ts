import { afterEach, describe, expect, test } from 'vitest';
import { gzipSync } from 'node:zlib';
import { startPostbackRelay, type PostbackRelay } from '../../src/bench/relay.js';
import { startWebhookReceiver, type PostbackEvent, type WebhookReceiver } from '../../src/collect/webhook.js';

let relay: PostbackRelay | undefined;
let rx: WebhookReceiver | undefined;
afterEach(async () => { await relay?.close(); await rx?.close(); relay = rx = undefined; });

describe('postback relay', () => {
  test('replays every captured postback to the receiver, body and path as captured, and counts the answers', async () => {
    const got: PostbackEvent[] = [];
    rx = await startWebhookReceiver({
      host: '127.0.0.1', port: 0, maxBodyBytes: 1 << 20, secret: 'relay-secret-relay-secret',
      onPostback: (e) => { got.push(e); return e.id !== 'unknown'; },
    });
    relay = await startPostbackRelay();
    const path = new URL(rx.postbackUrl.replace('$id', 'ID').replace('$tag', 'seo-etl%2Fp%2Fs%2Fk'));
    const bodies = new Map<string, string>();
    const ids = [...Array.from({ length: 30 }, (_, i) => `task-${i}`), 'unknown'];
    for (const id of ids) {
      const text = JSON.stringify({ version: '0.1', tasks: [{ id, status_code: 20000, result: [{ n: id.length, s: 'é'.repeat(id.length) }] }] });
      bodies.set(id, text);
      // As the sandbox delivers them: to the relay's address, the receiver's path.
      const r = await fetch(`${relay.url}${path.pathname}${path.search.replace('ID', id)}`, { method: 'POST', body: gzipSync(text), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
      expect(r.status).toBe(200);
    }
    // A postback to a wrong secret is replayed too, and answered 404 by the receiver.
    await fetch(`${relay.url}/cb/wrong/postback?id=x`, { method: 'POST', body: gzipSync('{"tasks":[]}') });
    expect(relay.captured()).toBe(ids.length + 1);
    expect(got).toHaveLength(0);

    const replay = await relay.replay(rx.port, 8);
    expect(replay.sent).toBe(ids.length + 1);
    expect(replay.statuses).toEqual({ 200: ids.length - 1, 404: 2 });
    expect(got.map((e) => e.id).sort()).toEqual([...ids].sort());
    for (const e of got) {
      expect(e.body).toBe(bodies.get(e.id!));
      expect(e.tag).toBe('seo-etl/p/s/k');
    }
  });
});
