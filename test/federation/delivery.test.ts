import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { followAccount } from '../../api/core/relationships/follows.js';
import { findAccountById } from '../../api/db/repos/accounts.js';
import { resetClock, setClockTo } from '../../api/util/clock.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { eventually, freePort } from './helpers.js';

/**
 * A peer server on loopback: serves actor documents (two followers sharing one inbox) and records
 * every POST to its shared inbox; `mode` makes it answer 503 (down) or 202 (up).
 */
class Sink {
  server: Server;
  mode: 'up' | 'down' = 'up';
  /** Activity ids of POSTs answered 202, in order. */
  accepted: string[] = [];
  attempts = 0;
  /** Time taken to answer a POST (a slow peer keeps a delivery run going); POSTs are answered one after another. */
  delayMs = 0;
  private turn: Promise<void> = Promise.resolve();
  origin = '';
  constructor() {
    this.server = createServer((req, res) => void this.handle(req, res));
  }
  async start(): Promise<void> {
    const port = await freePort('127.0.0.5');
    this.origin = `http://127.0.0.5:${port}`;
    await new Promise<void>((r) => this.server.listen(port, '127.0.0.5', r));
  }
  private async handle(req: IncomingMessage, res: import('node:http').ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', this.origin);
    const user = /^\/users\/(\w+)$/.exec(url.pathname)?.[1];
    if (req.method === 'GET' && user) {
      const id = `${this.origin}/users/${user}`;
      res.setHeader('content-type', 'application/activity+json');
      res.end(JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', id, type: 'Person', preferredUsername: user, inbox: `${id}/inbox`, endpoints: { sharedInbox: `${this.origin}/inbox` }, followers: `${id}/followers` }));
      return;
    }
    if (req.method === 'POST') {
      this.attempts++;
      if (this.delayMs) {
        // A slow peer answers one POST at a time, so that a run of deliveries takes a while
        // however many the instance sends at once.
        const delay = this.delayMs;
        const mine = this.turn.then(() => new Promise<void>((r) => setTimeout(r, delay)));
        this.turn = mine;
        await mine;
      }
      if (this.mode === 'down') {
        res.statusCode = 503;
        res.end();
        return;
      }
      this.accepted.push((JSON.parse(Buffer.concat(chunks).toString()) as { id: string }).id);
      res.statusCode = 202;
      res.end();
      return;
    }
    res.statusCode = 404;
    res.end();
  }
  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

describe('durable delivery: restarts and a peer down for an hour, nothing sent twice', () => {
  let sink: Sink;
  let dataDir: string;
  let port: number;
  let inst: TestInstance;
  let token = '';
  const start = () => startInstance({ bind: '127.0.0.2', port, origin: `http://127.0.0.2:${port}`, federationAllowLoopback: true, dataDir });
  beforeAll(async () => {
    sink = new Sink();
    await sink.start();
    dataDir = mkdtempSync(join(tmpdir(), 'hearth-delivery-'));
    port = await freePort('127.0.0.2');
    inst = await start();
    const alice = await inst.createUser('alice');
    token = alice.token;
    // Two followers on the peer, sharing its inbox: each activity is delivered there once.
    for (const name of ['f1', 'f2']) {
      const remote = await inst.app.federation?.resolveAccount(`${sink.origin}/users/${name}`);
      const follower = remote ? findAccountById(inst.deps.db, remote.id) : undefined;
      if (!follower) throw new Error('follower not stored');
      followAccount(inst.deps, follower, alice.accountId);
    }
  });
  afterEach(() => resetClock());
  afterAll(async () => {
    await inst.close();
    await sink.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const post = (text: string) => inst.anon.post('/api/v1/statuses', { status: text, visibility: 'public' }, { token });

  it('a restart in the middle of a delivery run loses nothing and repeats nothing', async () => {
    sink.delayMs = 400;
    for (let i = 0; i < 5; i++) expect((await post(`run ${i}`)).status).toBe(200);
    // Stop as soon as the first delivery is in: the rest is still queued (or in hand, and finished on close).
    await eventually(() => sink.accepted.length >= 1);
    expect(sink.accepted.length).toBeLessThan(5);
    await inst.close();
    sink.delayMs = 0;
    inst = await start();
    await eventually(() => sink.accepted.length >= 5);
    await new Promise((r) => setTimeout(r, 1000));
    expect(sink.accepted).toHaveLength(5);
    expect(new Set(sink.accepted).size).toBe(5);
  });

  it('a peer down for an hour gets every activity once when it is back', async () => {
    sink.accepted = [];
    sink.mode = 'down';
    const before = sink.attempts;
    expect((await post('while the peer is down')).status).toBe(200);
    await eventually(() => sink.attempts > before);
    // Half an hour later (the queue's clock; the next retry is due 10 s after the failure) still down.
    const failed = sink.attempts;
    setClockTo(Date.now() + 30 * 60 * 1000);
    await eventually(() => sink.attempts > failed, 5_000);
    // An hour later, the peer is back: the retry goes out and succeeds once.
    sink.mode = 'up';
    setClockTo(Date.now() + 90 * 60 * 1000);
    await eventually(() => sink.accepted.length >= 1, 5_000);
    await new Promise((r) => setTimeout(r, 1000));
    expect(sink.accepted).toHaveLength(1);
  });
});
