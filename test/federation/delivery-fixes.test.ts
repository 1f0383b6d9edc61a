import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestUser } from '../helpers/instance.js';
import { resetClock, setClockTo } from '../../api/util/clock.js';
import { FakeRemote, MASTODON_CONTEXT, PUBLIC, mastodonPerson, type FakeActor, type Received } from './fake-remote.js';
import { eventually, startFederated } from './helpers.js';
import { drain } from './replay.js';

type Inst = Awaited<ReturnType<typeof startFederated>>;
const AP = 'application/activity+json';

/** An addressing property as a list (JSON-LD compaction writes a single value bare). */
const list = (v: unknown): unknown[] => (v === undefined ? [] : [v].flat());

/** Whether a request was signed RFC 9421 (draft-cavage otherwise). */
const rfc9421 = (r: Received) => r.headers['signature-input'] !== undefined;

describe('federation fixes found against real servers: who gets what, and what it says', () => {
  let inst: Inst;
  let masto: FakeRemote;
  let mona: FakeActor;
  let alice: TestUser;
  let seq = 1;

  beforeAll(async () => {
    inst = await startFederated('127.0.0.2');
    masto = await FakeRemote.start('127.0.0.5');
    mona = await masto.actor('/users/mona', (a) => mastodonPerson(masto, a, 'mona'));
    alice = await inst.createUser('alice');
  });
  afterAll(async () => {
    await inst.close();
    await masto.close();
  });

  /** A public Note by mona, served by her server and looked up by alice (search, resolve). */
  async function monaPost(): Promise<{ uri: string; id: string }> {
    const uri = `${mona.id}/statuses/${seq++}`;
    masto.serve(new URL(uri).pathname, {
      '@context': MASTODON_CONTEXT,
      id: uri,
      type: 'Note',
      attributedTo: mona.id,
      content: '<p>a post by mona</p>',
      published: new Date().toISOString(),
      to: [PUBLIC],
      cc: [`${mona.id}/followers`],
    });
    const res = await alice.client.get(`/api/v2/search?q=${encodeURIComponent(uri)}&resolve=true&type=statuses`);
    const id = (res.body as { statuses: { id: string; uri: string }[] }).statuses.find((s) => s.uri === uri)?.id;
    if (!id) throw new Error(`${uri} was not resolved`);
    return { uri, id };
  }

  /** Activities of a type delivered to mona's server whose `object` (or its id) is `object`. */
  const delivered = (type: string, object: string) =>
    masto.deliveries(type).filter((a) => {
      const o = a.object as string | { id?: string; object?: unknown; inReplyTo?: unknown };
      return typeof o === 'string' ? o === object : o.id === object || o.object === object || o.inReplyTo === object;
    });

  it('a public reply reaches the author it answers without mentioning them; a followers-only one does not', async () => {
    const post = await monaPost();
    const quiet = await alice.client.post('/api/v1/statuses', { status: 'for my followers only', in_reply_to_id: post.id, visibility: 'private' });
    expect(quiet.status).toBe(200);
    const reply = await alice.client.post('/api/v1/statuses', { status: 'nice post (no mention)', in_reply_to_id: post.id, visibility: 'public' });
    expect(reply.status).toBe(200);
    expect(reply.body.mentions).toEqual([]);
    const create = await eventually(() => delivered('Create', post.uri)[0]);
    const note = create.object as { id: string; inReplyTo: string; tag?: unknown[] };
    expect(note.id).toBe(reply.body.uri);
    expect(note.tag ?? []).toEqual([]);
    // Alice has no followers at mona's server: the reply went there because it answers mona.
    expect(masto.received.filter((r) => r.method === 'POST').every((r) => r.path === '/inbox')).toBe(true);
    expect(delivered('Create', post.uri).map((c) => (c.object as { id: string }).id)).toEqual([reply.body.uri]);

    // Its edit and its deletion follow it there.
    expect((await alice.client.put(`/api/v1/statuses/${reply.body.id}`, { status: 'nice post, edited' })).status).toBe(200);
    await eventually(() => masto.deliveries('Update').some((u) => (u.object as { id: string }).id === reply.body.uri));
    expect((await alice.client.delete(`/api/v1/statuses/${reply.body.id}`)).status).toBe(200);
    await eventually(() => masto.deliveries('Delete').some((d) => (d.object as { id: string }).id === reply.body.uri));
  });

  it('a favourite and a boost reach the author of the status; the Announce has `published` and Mastodon addressing', async () => {
    const post = await monaPost();
    expect((await alice.client.post(`/api/v1/statuses/${post.id}/favourite`)).status).toBe(200);
    const like = await eventually(() => delivered('Like', post.uri)[0]);
    expect(like.actor).toBe(`${inst.origin}/users/alice`);
    expect((await alice.client.post(`/api/v1/statuses/${post.id}/unfavourite`)).status).toBe(200);
    const unlike = await eventually(() => masto.deliveries('Undo').find((u) => (u.object as { id?: string }).id === like.id));
    expect(list(unlike.to)).toEqual([mona.id]);
    const boost = await alice.client.post(`/api/v1/statuses/${post.id}/reblog`, { visibility: 'public' });
    expect(boost.status).toBe(200);
    const announce = await eventually(() => delivered('Announce', post.uri)[0]);
    expect(announce.id).toBe(boost.body.uri);
    expect(Date.parse(String(announce.published))).toBe(Date.parse(boost.body.created_at));
    expect(list(announce.to)).toEqual([PUBLIC]);
    expect(list(announce.cc)).toEqual(expect.arrayContaining([mona.id, `${inst.origin}/users/alice/followers`]));
  });

  it('the Undo of a boost whose original was deleted names the original, with to and cc', async () => {
    const post = await monaPost();
    const boost = await alice.client.post(`/api/v1/statuses/${post.id}/reblog`, { visibility: 'public' });
    expect(boost.status).toBe(200);
    await eventually(() => delivered('Announce', post.uri)[0]);
    // Mona deletes her post: alice's boost goes with it, and its Undo goes out.
    const del = { '@context': MASTODON_CONTEXT, id: `${post.uri}#delete`, type: 'Delete', actor: mona.id, to: [PUBLIC], object: { id: post.uri, type: 'Tombstone' } };
    expect(await masto.send(inst.origin, mona, del)).toBe(202);
    await drain(inst);
    expect((await alice.client.get(`/api/v1/statuses/${boost.body.id}`)).status).toBe(404);
    const undo = await eventually(() => masto.deliveries('Undo').find((u) => (u.object as { id?: string }).id === boost.body.uri));
    const announce = undo.object as Record<string, unknown>;
    expect(announce.type).toBe('Announce');
    expect(announce.object).toBe(post.uri);
    expect(undo.actor).toBe(`${inst.origin}/users/alice`);
    expect(list(undo.to)).toEqual([PUBLIC]);
    expect(list(undo.cc)).toEqual(expect.arrayContaining([mona.id, `${inst.origin}/users/alice/followers`]));
  });

  it('an empty outbox page lists `orderedItems: []`; a page with statuses lists them', async () => {
    const carol = await inst.createUser('carol');
    const page = async (username: string) => {
      const outbox = (await (await fetch(`${inst.origin}/users/${username}/outbox`, { headers: { accept: AP } })).json()) as { first: string | { id: string } };
      const first = typeof outbox.first === 'string' ? outbox.first : outbox.first.id;
      const res = await fetch(first, { headers: { accept: AP } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('application/activity+json');
      return (await res.json()) as { type: string; orderedItems?: unknown[]; partOf: string };
    };
    const empty = await page(carol.username);
    expect(empty.type).toBe('OrderedCollectionPage');
    expect(empty.partOf).toBe(`${inst.origin}/users/carol/outbox`);
    expect(empty.orderedItems).toEqual([]);
    expect((await alice.client.post('/api/v1/statuses', { status: 'in the outbox', visibility: 'public' })).status).toBe(200);
    const full = await page('alice');
    expect(full.orderedItems?.length).toBeGreaterThan(0);
  });
});

describe('delivery failures: which answers are retried, when the second knock is tried, one log line per attempt', () => {
  let inst: Inst;
  let alice: TestUser;
  const peers: FakeRemote[] = [];
  /** The account id here of each peer's actor. */
  const accountOf = new Map<FakeRemote, string>();
  const logged: string[] = [];
  const write = process.stderr.write.bind(process.stderr);

  beforeAll(async () => {
    inst = await startFederated('127.0.0.2');
    alice = await inst.createUser('alice');
    // The delivery thread's console goes to this process's stderr.
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      logged.push(String(chunk));
      return (write as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stderr.write;
  });
  afterEach(() => resetClock());
  afterAll(async () => {
    process.stderr.write = write;
    await inst.close();
    await Promise.all(peers.map((p) => p.close()));
  });

  /** A server on its own port whose inbox answers `status` (or by request), its actor known here. */
  async function peerAnswering(status: number | ((r: Received) => number), body = ''): Promise<FakeRemote> {
    const peer = await FakeRemote.start('127.0.0.6');
    peers.push(peer);
    peer.answerPosts('/inbox', status, body);
    const actor = await peer.actor('/users/p', (a) => mastodonPerson(peer, a, 'p'));
    const account = await inst.app.federation?.resolveAccount(actor.id);
    if (!account) throw new Error('peer actor not resolved');
    accountOf.set(peer, account.id);
    return peer;
  }
  /** Alice follows the peer's actor: a Follow delivered to its inbox. */
  const follow = async (peer: FakeRemote) => expect((await alice.client.post(`/api/v1/accounts/${accountOf.get(peer) ?? ''}/follow`)).status).toBe(200);
  const posts = (peer: FakeRemote) => peer.received.filter((r) => r.method === 'POST');
  const linesAbout = (peer: FakeRemote) => logged.join('').split('\n').filter((l) => l.includes(`${peer.origin}/inbox`));
  const settle = () => new Promise((r) => setTimeout(r, 1500));

  it('a 4xx other than 401, 408 and 429 is final; those and 5xx are retried; the RFC 9421 knock only follows 401 or 403', async () => {
    const statuses = [400, 401, 403, 404, 408, 429, 500, 503];
    const byStatus = new Map<number, FakeRemote>();
    for (const s of statuses) byStatus.set(s, await peerAnswering(s, `refused with ${s}: ${'x'.repeat(600)}`));
    // All sent at once, so that no retry (10 s later) falls due before the first attempts are looked at.
    await Promise.all([...byStatus.values()].map(follow));
    const knocks = (s: number) => (s === 401 || s === 403 ? 2 : 1);
    for (const s of statuses) await eventually(() => posts(byStatus.get(s) as FakeRemote).length >= knocks(s));
    await settle();
    for (const s of statuses) {
      const got = posts(byStatus.get(s) as FakeRemote);
      // One attempt so far: draft-cavage first, then RFC 9421 only after 401 or 403.
      expect(got.map(rfc9421), `knocks after ${s}`).toEqual(knocks(s) === 2 ? [false, true] : [false]);
      // One log line for the attempt, with the status and the start of the answer (not all of it).
      const lines = linesAbout(byStatus.get(s) as FakeRemote);
      expect(lines, `log lines after ${s}`).toHaveLength(1);
      expect(lines[0]).toContain(` ${s} refused with ${s}: xxx`);
      expect(lines[0]?.length).toBeLessThan(500);
    }
    // Hours later, the retries that are due have gone out; the final answers got none.
    setClockTo(Date.now() + 2 * 60 * 60 * 1000);
    for (const s of [401, 408, 429, 500, 503]) await eventually(() => posts(byStatus.get(s) as FakeRemote).length > knocks(s));
    await settle();
    for (const s of [400, 403, 404]) expect(posts(byStatus.get(s) as FakeRemote), `attempts after ${s}`).toHaveLength(knocks(s));
    for (const s of [401, 408, 429, 500, 503]) {
      const got = posts(byStatus.get(s) as FakeRemote).map(rfc9421);
      // The retry is signed draft-cavage first again: a failed RFC 9421 knock is not remembered.
      expect(got, `second attempt after ${s}`).toEqual(knocks(s) === 2 ? [false, true, false, true] : [false, false]);
      expect(linesAbout(byStatus.get(s) as FakeRemote), `log lines after two attempts with ${s}`).toHaveLength(2);
    }
  });

  it('a server that takes only RFC 9421 gets it second, then first from then on', async () => {
    const peer = await peerAnswering((r) => (rfc9421(r) ? 202 : 401));
    await follow(peer);
    await eventually(() => posts(peer).length >= 2);
    expect(posts(peer).map(rfc9421)).toEqual([false, true]);
    expect((await alice.client.post(`/api/v1/accounts/${accountOf.get(peer) ?? ''}/unfollow`)).status).toBe(200);
    const undo = await eventually(() => peer.deliveries('Undo')[0]);
    expect(list(undo.to)).toEqual([peer.url('/users/p')]);
    await settle();
    expect(posts(peer).map(rfc9421)).toEqual([false, true, true]);
    expect(linesAbout(peer)).toEqual([]);
  });
});
