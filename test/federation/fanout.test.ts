import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addInstanceDomain } from '../../api/core/federation/instance-domains.js';
import { upsertRemoteAccount, type RemoteActorData } from '../../api/core/federation/remote-accounts.js';
import { followAccount } from '../../api/core/relationships/follows.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { eventually, freePort } from './helpers.js';

/**
 * Many servers in one: an HTTP server on 0.0.0.0 answers every 127.x.y.z address (Linux routes
 * them all to loopback), standing in for one remote server per address. It records the POSTs each
 * inbox receives (by Host and path) and answers 202.
 */
class Sink {
  readonly server: Server;
  port = 0;
  /** Activity ids received, by inbox (`host:port/path`). */
  readonly received = new Map<string, string[]>();
  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method === 'POST') {
          const inbox = `${req.headers.host ?? ''}${req.url ?? ''}`;
          const id = (JSON.parse(Buffer.concat(chunks).toString()) as { id: string }).id;
          this.received.set(inbox, [...(this.received.get(inbox) ?? []), id]);
          res.statusCode = 202;
        } else {
          res.statusCode = 404;
        }
        res.end();
      });
    });
  }
  async start(): Promise<void> {
    this.port = await freePort('0.0.0.0');
    await new Promise<void>((r) => this.server.listen(this.port, '0.0.0.0', r));
  }
  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

/** Servers, followers on each: 600 followers (more than one page) on 150 servers (more than one batch). */
const SERVERS = 150;
const PER_SERVER = 4;
/** The server whose domain the instance blocks. */
const BLOCKED = 7;
const serverHost = (i: number) => `127.0.9.${i + 1}`;

describe('one post to many followers on many servers', () => {
  let sink: Sink;
  let inst: TestInstance;
  let dataDir: string;
  let port: number;
  let token = '';
  let domain = (i: number) => `${serverHost(i)}:0`;
  const start = () => startInstance({ bind: '127.0.0.2', port, origin: `http://127.0.0.2:${port}`, federationAllowLoopback: true, dataDir });

  beforeAll(async () => {
    sink = new Sink();
    await sink.start();
    domain = (i) => `${serverHost(i)}:${sink.port}`;
    dataDir = mkdtempSync(join(tmpdir(), 'hearth-fanout-'));
    port = await freePort('127.0.0.2');
    inst = await start();
    const alice = await inst.createUser('alice');
    token = alice.token;
    const remote = (host: string, name: string, sharedInbox: string | null): RemoteActorData => {
      const uri = `http://${host}/users/${name}`;
      const none = { url: null, avatarUrl: null, headerUrl: null, movedToUri: null, publicKeyPem: null, outbox: null, followers: null, following: null, featured: null, featuredTags: null };
      const profile = { actorType: 'Person' as const, displayName: name, note: '', fields: [], locked: false, discoverable: null, indexable: false, memorial: false, alsoKnownAs: [] };
      return { ...none, ...profile, uri, username: name, domain: host, inbox: `${uri}/inbox`, sharedInbox };
    };
    inst.deps.db.transaction(() => {
      for (let i = 0; i < SERVERS; i++) {
        for (let j = 0; j < PER_SERVER; j++) {
          const follower = upsertRemoteAccount(inst.deps, remote(domain(i), `f${j}`, `http://${domain(i)}/inbox`));
          followAccount(inst.deps, follower, alice.accountId);
        }
      }
      // An account on an allowed server whose shared inbox is on the blocked one: not reached at all.
      followAccount(inst.deps, upsertRemoteAccount(inst.deps, remote(domain(0), 'odd', `http://${domain(BLOCKED)}/inbox`)), alice.accountId);
      // An account without a shared inbox: reached at its own inbox.
      followAccount(inst.deps, upsertRemoteAccount(inst.deps, remote(domain(1), 'solo', null)), alice.accountId);
    });
    addInstanceDomain(inst.deps, 'block', domain(BLOCKED));
  });
  afterAll(async () => {
    await inst.close();
    await sink.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Every shared inbox but the blocked server's, and the one personal inbox. */
  const expected = () => new Set([...Array.from({ length: SERVERS }, (_, i) => i).filter((i) => i !== BLOCKED).map((i) => `${domain(i)}/inbox`), `${domain(1)}/users/solo/inbox`]);
  const reachedWith = (text: string) => [...sink.received].filter(([, ids]) => ids.some((id) => id.includes(text))).length;
  const post = async (text: string) => {
    const res = await inst.anon.post('/api/v1/statuses', { status: text, visibility: 'public' }, { token });
    expect(res.status).toBe(200);
    return (res.body as { uri: string }).uri;
  };

  it('reaches each shared inbox once, and nothing reaches the blocked server', async () => {
    const uri = await post('hello, many servers');
    await eventually(() => reachedWith(uri) >= expected().size, 15_000);
    // Anything sent twice, or to the blocked server, would arrive shortly after.
    await new Promise((r) => setTimeout(r, 1000));
    expect(new Set(sink.received.keys())).toEqual(expected());
    for (const [inbox, ids] of sink.received) expect(ids, inbox).toEqual([`${uri}/activity`]);
    expect(sink.received.has(`${domain(BLOCKED)}/inbox`)).toBe(false);
  });

  it('stopping right after the post still hands every delivery to the queue: after a restart, all arrive once', async () => {
    sink.received.clear();
    const uri = await post('posted just before a restart');
    // The delivery is read and enqueued in chunks after the request was answered: closing now must
    // wait for it rather than lose the batches not yet enqueued.
    await inst.close();
    inst = await start();
    await eventually(() => reachedWith(uri) >= expected().size, 15_000);
    await new Promise((r) => setTimeout(r, 1000));
    expect(new Set(sink.received.keys())).toEqual(expected());
    for (const [inbox, ids] of sink.received) expect(ids, inbox).toEqual([`${uri}/activity`]);
  });
});
