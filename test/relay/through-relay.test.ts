import Database from 'better-sqlite3';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestClient } from '../helpers/client.js';
import { eventually } from '../federation/helpers.js';
import { httpRequest } from './rig.js';
import { hearth, makeNet, startInstanceProc, startRelayProc, type InstanceProc, type Net, type RelayProc } from './processes.js';

interface Account { id: string; acct: string; display_name: string }
interface Status {
  id: string;
  uri: string;
  content: string;
  visibility: string;
  favourites_count: number;
  reblogs_count: number;
  in_reply_to_id: string | null;
  edited_at: string | null;
  poll: { id: string; votes_count: number; options: { title: string; votes_count: number | null }[] } | null;
  reblog: Status | null;
  account: Account;
}

const text = (html: string) => html.replace(/<[^>]+>/g, '');

/** Finds a remote account by handle (resolved over WebFinger). */
async function resolve(client: TestClient, handle: string): Promise<Account> {
  return eventually(async () => {
    const res = await client.get(`/api/v2/search?q=${encodeURIComponent(handle)}&resolve=true&type=accounts`);
    return (res.body as { accounts: Account[] }).accounts.find((a) => a.acct === handle) ?? null;
  }, 20_000);
}

/** A status in `client`'s home timeline whose text includes `needle`. */
function inHome(client: TestClient, needle: string): Promise<Status> {
  return eventually(async () => ((await client.get('/api/v1/timelines/home?limit=40')).body as Status[]).find((s) => text(s.content).includes(needle)) ?? null, 20_000);
}

/**
 * The relay's acceptance, with real processes: a relay, an instance that federates only through it
 * (in its own network namespace, unreachable by the peer, reaching nothing but the relay), and a
 * peer instance; every everyday interaction, both ways.
 */
describe('through the relay, both ways (real processes)', () => {
  let net: Net;
  let relay: RelayProc;
  let a: InstanceProc;
  let b: InstanceProc;
  let alice: TestClient;
  let bob: TestClient;
  let aliceHandle: string;
  let bobHandle: string;
  let bobOnA: Account;
  let aliceOnB: Account;

  beforeAll(async () => {
    net = makeNet();
    relay = await startRelayProc(net);
    const host = `${net.relayForPeer}:${relay.port}`;
    const code = relay.addTenant(host);
    expect(code).toMatch(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
    a = await startInstanceProc(net, 'instance', ['alice'], () => ['--relay', relay.url, '--relay-code', code], () => `http://${host}`);
    b = await startInstanceProc(net, 'peer', ['bob'], (port) => ['--origin', `http://${net.peer}:${port}`], (port) => `http://${net.peer}:${port}`);
    alice = a.client('alice');
    bob = b.client('bob');
    aliceHandle = `alice@${host}`;
    bobHandle = `bob@${new URL(b.origin).host}`;
    await eventually(() => JSON.parse(hearth(['relay', 'status', '--data', a.dataDir])).connected === true, 20_000);
  }, 120_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await relay?.close();
    net?.cleanup();
  });

  it('reports the connection with the relay status command, and the origin came from the enrolment', () => {
    const status = JSON.parse(hearth(['relay', 'status', '--data', a.dataDir])) as Record<string, unknown>;
    expect(status).toMatchObject({ connected: true, origin: a.origin, backlog: 0, lastError: null });
    // Where the machine allows it, the peer has no route to the instance at all.
    expect(['netns', 'loopback']).toContain(net.kind);
  });

  it('follow and accept, both ways (WebFinger and actors through the tunnel)', async () => {
    bobOnA = await resolve(alice, bobHandle);
    expect((await alice.post(`/api/v1/accounts/${bobOnA.id}/follow`)).status).toBe(200);
    await eventually(async () => ((await alice.get(`/api/v1/accounts/relationships?id[]=${bobOnA.id}`)).body as { following: boolean }[])[0]?.following, 20_000);
    aliceOnB = await resolve(bob, aliceHandle);
    expect((await bob.post(`/api/v1/accounts/${aliceOnB.id}/follow`)).status).toBe(200);
    await eventually(async () => ((await bob.get(`/api/v1/accounts/relationships?id[]=${aliceOnB.id}`)).body as { following: boolean }[])[0]?.following, 20_000);
  });

  it('public posts, both ways', async () => {
    expect((await alice.post('/api/v1/statuses', { status: 'hello from behind the relay', visibility: 'public' })).status).toBe(200);
    expect((await bob.post('/api/v1/statuses', { status: 'hello from the peer', visibility: 'public' })).status).toBe(200);
    expect((await inHome(bob, 'hello from behind the relay')).account.acct).toBe(aliceHandle);
    expect((await inHome(alice, 'hello from the peer')).account.acct).toBe(bobHandle);
  });

  it('favourites and boosts, both ways', async () => {
    const onB = await inHome(bob, 'hello from behind the relay');
    const onA = await inHome(alice, 'hello from the peer');
    expect((await bob.post(`/api/v1/statuses/${onB.id}/favourite`)).status).toBe(200);
    expect((await bob.post(`/api/v1/statuses/${onB.id}/reblog`)).status).toBe(200);
    expect((await alice.post(`/api/v1/statuses/${onA.id}/favourite`)).status).toBe(200);
    expect((await alice.post(`/api/v1/statuses/${onA.id}/reblog`)).status).toBe(200);
    const mineA = await inHome(alice, 'hello from behind the relay');
    await eventually(async () => {
      const s = (await alice.get(`/api/v1/statuses/${mineA.id}`)).body as Status;
      return s.favourites_count === 1 && s.reblogs_count === 1;
    }, 20_000);
    const mineB = await inHome(bob, 'hello from the peer');
    await eventually(async () => {
      const s = (await bob.get(`/api/v1/statuses/${mineB.id}`)).body as Status;
      return s.favourites_count === 1 && s.reblogs_count === 1;
    }, 20_000);
  });

  it('replies, both ways, threaded on each side', async () => {
    const onB = await inHome(bob, 'hello from behind the relay');
    expect((await bob.post('/api/v1/statuses', { status: `@${aliceHandle} a reply from the peer`, in_reply_to_id: onB.id })).status).toBe(200);
    const replyOnA = await eventually(async () => {
      const notes = (await alice.get('/api/v1/notifications?types[]=mention')).body as { status: Status }[];
      return notes.find((n) => text(n.status.content).includes('a reply from the peer'))?.status ?? null;
    }, 20_000);
    expect(replyOnA.in_reply_to_id).not.toBeNull();
    const onA = await inHome(alice, 'hello from the peer');
    expect((await alice.post('/api/v1/statuses', { status: 'a reply from behind the relay', in_reply_to_id: onA.id })).status).toBe(200);
    const replyOnB = await inHome(bob, 'a reply from behind the relay');
    expect(replyOnB.in_reply_to_id).not.toBeNull();
  });

  it('direct messages, both ways', async () => {
    expect((await alice.post('/api/v1/statuses', { status: `@${bobHandle} a secret from alice`, visibility: 'direct' })).status).toBe(200);
    expect((await bob.post('/api/v1/statuses', { status: `@${aliceHandle} a secret from bob`, visibility: 'direct' })).status).toBe(200);
    expect((await inHome(bob, 'a secret from alice')).visibility).toBe('direct');
    expect((await inHome(alice, 'a secret from bob')).visibility).toBe('direct');
  });

  it('edits, both ways', async () => {
    const mineA = await inHome(alice, 'hello from behind the relay');
    expect((await alice.put(`/api/v1/statuses/${mineA.id}`, { status: 'hello from behind the relay, edited' })).status).toBe(200);
    const mineB = await inHome(bob, 'hello from the peer');
    expect((await bob.put(`/api/v1/statuses/${mineB.id}`, { status: 'hello from the peer, edited' })).status).toBe(200);
    expect((await inHome(bob, 'hello from behind the relay, edited')).edited_at).not.toBeNull();
    expect((await inHome(alice, 'hello from the peer, edited')).edited_at).not.toBeNull();
  });

  it('poll votes, both ways', async () => {
    expect((await alice.post('/api/v1/statuses', { status: 'tea or coffee? (alice)', poll: { options: ['tea', 'coffee'], expires_in: 3600 } })).status).toBe(200);
    expect((await bob.post('/api/v1/statuses', { status: 'cats or dogs? (bob)', poll: { options: ['cats', 'dogs'], expires_in: 3600 } })).status).toBe(200);
    const onB = await inHome(bob, 'tea or coffee? (alice)');
    const onA = await inHome(alice, 'cats or dogs? (bob)');
    expect((await bob.post(`/api/v1/polls/${onB.poll?.id}/votes`, { choices: ['1'] })).status).toBe(200);
    expect((await alice.post(`/api/v1/polls/${onA.poll?.id}/votes`, { choices: ['0'] })).status).toBe(200);
    const mineA = await inHome(alice, 'tea or coffee? (alice)');
    await eventually(async () => ((await alice.get(`/api/v1/polls/${mineA.poll?.id}`)).body as { votes_count: number }).votes_count === 1, 20_000);
    const mineB = await inHome(bob, 'cats or dogs? (bob)');
    await eventually(async () => ((await bob.get(`/api/v1/polls/${mineB.poll?.id}`)).body as { votes_count: number }).votes_count === 1, 20_000);
  });

  it('profile updates, both ways', async () => {
    expect((await alice.patch('/api/v1/accounts/update_credentials', { display_name: 'Alice Behind The Relay' })).status).toBe(200);
    expect((await bob.patch('/api/v1/accounts/update_credentials', { display_name: 'Bob The Peer' })).status).toBe(200);
    await eventually(async () => ((await bob.get(`/api/v1/accounts/${aliceOnB.id}`)).body as Account).display_name === 'Alice Behind The Relay', 20_000);
    await eventually(async () => ((await alice.get(`/api/v1/accounts/${bobOnA.id}`)).body as Account).display_name === 'Bob The Peer', 20_000);
  });

  it('a post written while the instance has no tunnel reaches the peer after it reconnects', async () => {
    await relay.proc.stop();
    await eventually(() => JSON.parse(hearth(['relay', 'status', '--data', a.dataDir])).connected === false, 20_000);
    expect((await alice.post('/api/v1/statuses', { status: 'written while the relay was away', visibility: 'public' })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1000));
    expect(((await bob.get('/api/v1/timelines/home?limit=40')).body as Status[]).some((s) => text(s.content).includes('written while the relay was away'))).toBe(false);
    await relay.restart();
    expect((await inHome(bob, 'written while the relay was away')).account.acct).toBe(aliceHandle);
  });

  it('while the instance is offline, the peer gets its public documents from the relay, and nothing private', async () => {
    expect((await alice.post('/api/v1/statuses', { status: 'for followers only', visibility: 'private' })).status).toBe(200);
    const gone = ((await alice.post('/api/v1/statuses', { status: 'soon deleted', visibility: 'public' })).body as Status);
    const mine = (await alice.get(`/api/v1/accounts/${(await alice.get('/api/v1/accounts/verify_credentials')).body.id}/statuses?limit=40`)).body as Status[];
    const publicPost = mine.find((s) => text(s.content).includes('written while the relay was away'));
    const privatePost = mine.find((s) => text(s.content).includes('for followers only'));
    expect((await alice.delete(`/api/v1/statuses/${gone.id}`)).status).toBe(200);
    // The instance goes once what changed is on the relay (its Tombstone and the newest posts).
    const cached = (path: string) => {
      const db = new Database(join(relay.dataDir, 'relay.sqlite3'), { readonly: true });
      try {
        return db.prepare('SELECT status FROM cache WHERE key = ?').get(path) as { status: number } | undefined;
      } finally {
        db.close();
      }
    };
    await eventually(() => cached(new URL(gone.uri).pathname)?.status === 410 && cached(new URL(publicPost?.uri ?? '').pathname)?.status === 200, 20_000);
    await a.proc.stop();
    const get = (url: string) => httpRequest(url, { headers: { accept: 'application/activity+json' } });
    const actor = await get(`${a.origin}/users/alice`);
    expect(actor.status).toBe(200);
    expect(actor.headers['x-hearth-relay']).toBe('cache');
    expect(JSON.parse(actor.text)).toMatchObject({ id: `${a.origin}/users/alice`, name: 'Alice Behind The Relay' });
    const wf = await get(`${a.origin}/.well-known/webfinger?resource=acct:${aliceHandle}`);
    expect(wf.status).toBe(200);
    const post = await get(publicPost?.uri ?? '');
    expect(post.status).toBe(200);
    expect(JSON.parse(post.text).content).toContain('written while the relay was away');
    const outbox = await get(`${a.origin}/users/alice/outbox`);
    expect(outbox.status).toBe(200);
    // A private post is not there (503, never its content), a deleted one is 410 with a Tombstone.
    const hidden = await get(privatePost?.uri ?? '');
    expect(hidden.status).toBe(503);
    expect(hidden.text).not.toContain('for followers only');
    const deleted = await get(gone.uri);
    expect(deleted.status).toBe(410);
    expect(JSON.parse(deleted.text)).toMatchObject({ type: 'Tombstone', id: gone.uri });
    // The peer still resolves the account while the instance sleeps.
    expect((await bob.get(`/api/v1/accounts/${aliceOnB.id}`)).status).toBe(200);
    await a.restart();
    await eventually(() => JSON.parse(hearth(['relay', 'status', '--data', a.dataDir])).connected === true, 20_000);
  });

  it("the relay's storage never holds the instance's ActivityPub private keys, nor its tunnel key", () => {
    const db = new Database(join(a.dataDir, 'hearth.sqlite3'), { readonly: true });
    const secrets: string[] = [];
    try {
      for (const row of db.prepare('SELECT private_key_pem FROM accounts WHERE private_key_pem IS NOT NULL').all() as { private_key_pem: string }[]) secrets.push(row.private_key_pem);
      const instanceKeys = db.prepare("SELECT value FROM settings WHERE key = 'federation.instance_actor_keys'").get() as { value: string } | undefined;
      if (instanceKeys) secrets.push((JSON.parse(instanceKeys.value) as { privateKeyPem: string }).privateKeyPem);
      secrets.push((db.prepare('SELECT tunnel_private_key FROM relay_enrolment').get() as { tunnel_private_key: string }).tunnel_private_key);
    } finally {
      db.close();
    }
    expect(secrets.length).toBeGreaterThanOrEqual(3);
    // The body of each key (a long base64 run) is looked for in every file the relay keeps.
    const needles = secrets.map((pem) => pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '').slice(0, 64));
    const files = readdirSync(relay.dataDir).map((f) => readFileSync(join(relay.dataDir, f)));
    expect(files.length).toBeGreaterThan(0);
    for (const needle of needles) for (const bytes of files) expect(bytes.includes(Buffer.from(needle))).toBe(false);
  });

  it('deletes, both ways', async () => {
    const onB = await inHome(bob, 'a reply from behind the relay');
    const onA = await inHome(alice, 'a reply from the peer').catch(async () => {
      const notes = (await alice.get('/api/v1/notifications?types[]=mention')).body as { status: Status }[];
      return notes.find((n) => text(n.status.content).includes('a reply from the peer'))?.status as Status;
    });
    const mineA = ((await alice.get('/api/v1/timelines/home?limit=40')).body as Status[]).find((s) => text(s.content).includes('a reply from behind the relay'));
    const mineB = await eventually(async () => {
      const notes = (await bob.get(`/api/v1/accounts/${(await bob.get('/api/v1/accounts/verify_credentials')).body.id}/statuses?limit=40`)).body as Status[];
      return notes.find((s) => text(s.content).includes('a reply from the peer')) ?? null;
    });
    expect((await alice.delete(`/api/v1/statuses/${mineA?.id}`)).status).toBe(200);
    expect((await bob.delete(`/api/v1/statuses/${mineB.id}`)).status).toBe(200);
    await eventually(async () => (await bob.get(`/api/v1/statuses/${onB.id}`)).status === 404, 20_000);
    await eventually(async () => (await alice.get(`/api/v1/statuses/${onA.id}`)).status === 404, 20_000);
  });
});
