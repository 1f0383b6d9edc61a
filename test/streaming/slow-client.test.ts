import http from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { streamingHub } from '../../api/streaming/index.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { openSocket, seedRemoteAccount, seedRemoteStatus, subscriptions } from './helpers.js';

describe('a client that does not read is dropped instead of growing memory', () => {
  let inst: TestInstance;
  let bob: TestUser;
  let remote: string;
  beforeAll(async () => {
    inst = await startInstance();
    bob = await inst.createUser('bob');
    remote = seedRemoteAccount(inst, 'chatty', 'loud.example');
    // A small bound makes the test quick; the default is 1 MiB.
    streamingHub(inst.deps)!.maxBufferedBytes = 64 * 1024;
  });
  afterAll(async () => {
    await inst.close();
  });

  /** Emits big remote statuses until `done` holds (the kernel's socket buffers fill first). */
  async function flood(done: () => boolean): Promise<number> {
    const content = `<p>${'words and more words '.repeat(2500)}</p>`;
    let sent = 0;
    while (!done()) {
      if (sent > 2000) throw new Error('the slow client was never dropped');
      seedRemoteStatus(inst, remote, { content });
      sent++;
      await new Promise((r) => setImmediate(r));
      if (sent % 20 === 0) await new Promise((r) => setTimeout(r, 5));
    }
    return sent;
  }

  it('over WebSocket', async () => {
    const hub = streamingHub(inst.deps)!;
    const before = hub.droppedSlow;
    const healthy = await openSocket(inst, bob.token, { query: 'stream=public' });
    const slow = new WebSocket(`${inst.url.replace(/^http/, 'ws')}/api/v1/streaming?stream=public`, { headers: { authorization: `Bearer ${bob.token}` } });
    await new Promise((r) => slow.once('open', r));
    await subscriptions(inst, 2);
    // Stop reading: what the server sends piles up in the kernel, then in the server's buffer.
    (slow as unknown as { _socket: Socket })._socket.pause();
    const sent = await flood(() => hub.droppedSlow > before);
    expect(hub.sessionCount).toBe(1);
    // The healthy client got everything, and keeps getting events.
    await healthy.until(() => healthy.events.length >= sent, 10_000);
    expect(healthy.ws.readyState).toBe(WebSocket.OPEN);
    slow.terminate();
    healthy.close();
    await subscriptions(inst, 0);
  });

  it('over server-sent events', async () => {
    const hub = streamingHub(inst.deps)!;
    const before = hub.droppedSlow;
    const url = new URL(`${inst.url}/api/v1/streaming/public`);
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http.get({ host: url.hostname, port: url.port, path: url.pathname, headers: { authorization: `Bearer ${bob.token}` } }, resolve).once('error', reject);
    });
    expect(res.statusCode).toBe(200);
    res.pause();
    await subscriptions(inst, 1);
    await flood(() => hub.droppedSlow > before);
    expect(hub.sessionCount).toBe(0);
    res.destroy();
  });
});
