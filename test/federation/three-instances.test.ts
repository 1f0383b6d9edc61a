import { signRequest } from '@fedify/fedify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importKeyPair } from '../../api/federation/keys.js';
import type { TestUser } from '../helpers/instance.js';
import { eventually, startFederated } from './helpers.js';

type Inst = Awaited<ReturnType<typeof startFederated>>;
interface Account { id: string; acct: string; locked: boolean; moved?: Account | null }
interface Status {
  id: string;
  uri: string;
  content: string;
  visibility: string;
  in_reply_to_id: string | null;
  edited_at: string | null;
  favourites_count: number;
  reblogs_count: number;
  favourited?: boolean;
  reblogged?: boolean;
  reblog: Status | null;
  account: Account;
  mentions: { acct: string }[];
  poll: { id: string; votes_count: number; voted?: boolean; own_votes?: number[]; options: { title: string; votes_count: number | null }[] } | null;
}
interface Relationship { id: string; following: boolean; requested: boolean; followed_by: boolean; blocking: boolean; blocked_by: boolean }
interface Notification { type: string; account: Account; status: Status | null }

const text = (s: { content: string }) => s.content.replace(/<[^>]+>/g, '');

/**
 * Three real instances (A on 127.0.0.5, B on .6, C on .7), each with its own origin and database,
 * federating over loopback HTTP. Every step checks what both sides' REST APIs answer. Shared state
 * runs through the file in order (follows made early are used by later steps).
 */
describe('three instances federating over loopback', () => {
  let a: Inst;
  let b: Inst;
  let c: Inst;
  // A: alice (the main actor), amy (moves to B later)
  let alice: TestUser;
  let amy: TestUser;
  // B: bob (follows alice), bea (locked), amy2 (amy's new account)
  let bob: TestUser;
  let bea: TestUser;
  let amy2: TestUser;
  // C: carl (mentioned, not a follower), cora (third party), dan (follows alice and amy)
  let carl: TestUser;
  let cora: TestUser;
  let dan: TestUser;
  /** Ids of remote accounts as each instance knows them, e.g. ids.aliceOnB. */
  const ids: Record<string, string> = {};
  /** Statuses by name as seen on each instance: posts.pub.A, posts.pub.B… */
  const posts: Record<string, Partial<Record<'A' | 'B' | 'C', Status>>> = {};

  /** The account id `viewer`'s instance gives `handle`, resolved over WebFinger through search. */
  async function resolve(viewer: TestUser, handle: string): Promise<string> {
    const res = await viewer.client.get(`/api/v2/search?q=${encodeURIComponent(handle)}&resolve=true&type=accounts`);
    expect(res.status).toBe(200);
    const found = (res.body as { accounts: Account[] }).accounts.find((x) => x.acct === handle);
    expect(found, `${handle} resolved`).toBeDefined();
    return found?.id ?? '';
  }
  const rel = async (viewer: TestUser, id: string | undefined) => ((await viewer.client.get(`/api/v1/accounts/relationships?id[]=${id}`)).body as Relationship[])[0];
  const home = async (viewer: TestUser) => (await viewer.client.get('/api/v1/timelines/home?limit=40')).body as Status[];
  const notifications = async (viewer: TestUser) => (await viewer.client.get('/api/v1/notifications?limit=40')).body as Notification[];
  const byUri = (list: Status[], uri: string | undefined) => list.find((s) => s.uri === uri);
  const follows = async (viewer: TestUser, accountId: string, direction: 'followers' | 'following') =>
    ((await viewer.client.get(`/api/v1/accounts/${accountId}/${direction}`)).body as Account[]).map((x) => x.acct);
  /** A status by URI in `viewer`'s home, once it has arrived. */
  const arrives = (viewer: TestUser, uri: string | undefined) => eventually(async () => byUri(await home(viewer), uri));

  beforeAll(async () => {
    [a, b, c] = await Promise.all([startFederated('127.0.0.5'), startFederated('127.0.0.6'), startFederated('127.0.0.7')]);
    alice = await a.createUser('alice');
    amy = await a.createUser('amy');
    bob = await b.createUser('bob');
    bea = await b.createUser('bea');
    amy2 = await b.createUser('amy2');
    carl = await c.createUser('carl');
    cora = await c.createUser('cora');
    dan = await c.createUser('dan');
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close(), c?.close()]);
  });

  it('follows a locked account on another instance: request, authorize, then following on both sides', async () => {
    expect((await bea.client.patch('/api/v1/accounts/update_credentials', { locked: true })).status).toBe(200);
    ids.beaOnA = await resolve(alice, `bea@${b.domain}`);
    expect(((await alice.client.get(`/api/v1/accounts/${ids.beaOnA}`)).body as Account).locked).toBe(true);
    const res = await alice.client.post(`/api/v1/accounts/${ids.beaOnA}/follow`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ following: false, requested: true });
    const request = await eventually(async () => ((await bea.client.get('/api/v1/follow_requests')).body as Account[]).find((x) => x.acct === `alice@${a.domain}`));
    ids.aliceOnB = request.id;
    // Still pending on both sides until bea decides.
    expect(await rel(alice, ids.beaOnA)).toMatchObject({ following: false, requested: true });
    expect(await follows(bea, bea.accountId, 'followers')).toEqual([]);
    expect((await bea.client.post(`/api/v1/follow_requests/${request.id}/authorize`)).status).toBe(200);
    await eventually(async () => (await rel(alice, ids.beaOnA))?.following);
    expect(await rel(alice, ids.beaOnA)).toMatchObject({ following: true, requested: false });
    expect(await follows(bea, bea.accountId, 'followers')).toEqual([`alice@${a.domain}`]);
    expect(await rel(bea, ids.aliceOnB)).toMatchObject({ followed_by: true });
    expect(await follows(alice, alice.accountId, 'following')).toEqual([`bea@${b.domain}`]);
    expect(((await bea.client.get('/api/v1/follow_requests')).body as unknown[]).length).toBe(0);
  });

  it('gathers followers from two instances (bob on B, dan on C) and alice follows carl on C', async () => {
    ids.aliceOnC = await resolve(dan, `alice@${a.domain}`);
    ids.carlOnA = await resolve(alice, `carl@${c.domain}`);
    expect((await bob.client.post(`/api/v1/accounts/${ids.aliceOnB}/follow`)).status).toBe(200);
    expect((await dan.client.post(`/api/v1/accounts/${ids.aliceOnC}/follow`)).status).toBe(200);
    expect((await alice.client.post(`/api/v1/accounts/${ids.carlOnA}/follow`)).status).toBe(200);
    await eventually(async () => (await rel(bob, ids.aliceOnB))?.following);
    await eventually(async () => (await rel(dan, ids.aliceOnC))?.following);
    await eventually(async () => (await rel(alice, ids.carlOnA))?.following);
    expect((await follows(alice, alice.accountId, 'followers')).sort()).toEqual([`bob@${b.domain}`, `dan@${c.domain}`].sort());
    expect(await follows(carl, carl.accountId, 'followers')).toEqual([`alice@${a.domain}`]);
    ids.bobOnA = await resolve(alice, `bob@${b.domain}`);
  });

  it('delivers each visibility to the right people on three instances', async () => {
    const post = async (name: string, status: string, visibility: string) => {
      const res = await alice.client.post('/api/v1/statuses', { status, visibility });
      expect(res.status).toBe(200);
      posts[name] = { A: res.body as Status };
    };
    await post('pub', 'hello fediverse', 'public');
    await post('unl', 'quiet hello', 'unlisted');
    await post('priv', `@carl@${c.domain} followers and carl only`, 'private');
    await post('dm', `@carl@${c.domain} secret for carl`, 'direct');
    expect(posts.dm?.A?.mentions.map((m) => m.acct)).toEqual([`carl@${c.domain}`]);

    // B: bob follows alice: public, unlisted and private arrive; the direct one does not.
    const bobHome = await eventually(async () => {
      const list = await home(bob);
      return ['pub', 'unl', 'priv'].every((n) => byUri(list, posts[n]?.A?.uri)) ? list : null;
    });
    for (const n of ['pub', 'unl', 'priv']) posts[n] = { ...posts[n], B: byUri(bobHome, posts[n]?.A?.uri) };
    expect(posts.pub?.B?.visibility).toBe('public');
    expect(posts.unl?.B?.visibility).toBe('unlisted');
    expect(posts.priv?.B?.visibility).toBe('private');

    // C: dan follows alice (public, unlisted, private in his home); carl is mentioned (private and
    // direct reach him as mentions); cora gets nothing and cannot open the private ones.
    const danHome = await eventually(async () => {
      const list = await home(dan);
      return ['pub', 'unl', 'priv'].every((n) => byUri(list, posts[n]?.A?.uri)) ? list : null;
    });
    for (const n of ['pub', 'unl', 'priv']) posts[n] = { ...posts[n], C: byUri(danHome, posts[n]?.A?.uri) };
    const mentions = await eventually(async () => {
      // Carl does not follow alice: her direct mention waits among his notification requests
      // (Mastodon's default policy filters private mentions from strangers), so include those.
      const filtered = (await carl.client.get('/api/v1/notifications?limit=40&include_filtered=true')).body as Notification[];
      const list = filtered.filter((x) => x.type === 'mention');
      return list.length >= 2 ? list : null;
    });
    const dmOnC = mentions.find((x) => x.status?.uri === posts.dm?.A?.uri)?.status;
    const privOnC = mentions.find((x) => x.status?.uri === posts.priv?.A?.uri)?.status;
    expect(dmOnC?.visibility).toBe('direct');
    expect(privOnC?.visibility).toBe('private');
    expect(privOnC?.id).toBe(posts.priv?.C?.id);
    expect(mentions.every((m) => m.account.acct === `alice@${a.domain}`)).toBe(true);
    posts.dm = { ...posts.dm, C: dmOnC ?? undefined };
    const conversations = (await carl.client.get('/api/v1/conversations')).body as { last_status: Status | null }[];
    expect(conversations.map((x) => x.last_status?.uri)).toContain(posts.dm?.A?.uri);
    expect((await carl.client.get(`/api/v1/statuses/${dmOnC?.id}`)).status).toBe(200);
    expect((await carl.client.get(`/api/v1/statuses/${privOnC?.id}`)).status).toBe(200);
    // Carl does not follow alice: nothing in his home but what mentions him (Mastodon's home rules).
    expect(byUri(await home(carl), posts.pub?.A?.uri)).toBeUndefined();
    expect(byUri(danHome, posts.dm?.A?.uri)).toBeUndefined();
    expect((await dan.client.get(`/api/v1/statuses/${dmOnC?.id}`)).status).toBe(404);
    expect((await cora.client.get(`/api/v1/statuses/${dmOnC?.id}`)).status).toBe(404);
    expect((await cora.client.get(`/api/v1/statuses/${privOnC?.id}`)).status).toBe(404);
    expect((await cora.client.get(`/api/v1/statuses/${posts.pub?.C?.id}`)).status).toBe(200);
    expect(await home(cora)).toEqual([]);
    expect(await notifications(cora)).toEqual([]);
    // B never got the direct post (bob is not mentioned): only the three others exist there.
    expect(bobHome.find((s) => s.uri === posts.dm?.A?.uri)).toBeUndefined();
    expect(b.deps.db.query<{ n: number }>('SELECT count(*) AS n FROM statuses WHERE uri = @uri').get({ uri: posts.dm?.A?.uri ?? '' })?.n).toBe(0);

    // Public timelines: the public post is federated content on B and C, local content on A; the
    // unlisted and private ones are on no public timeline.
    const timeline = async (who: TestUser, query: string) => ((await who.client.get(`/api/v1/timelines/public?limit=40${query}`)).body as Status[]).map((s) => s.uri);
    for (const [viewer, n] of [[bob, 'B'], [cora, 'C']] as const) {
      const federated = await timeline(viewer, '');
      expect(federated, `public timeline on ${n}`).toContain(posts.pub?.A?.uri);
      expect(federated).not.toContain(posts.unl?.A?.uri);
      expect(federated).not.toContain(posts.priv?.A?.uri);
      expect(await timeline(viewer, '&remote=true')).toContain(posts.pub?.A?.uri);
      expect(await timeline(viewer, '&local=true')).not.toContain(posts.pub?.A?.uri);
    }
    expect(await timeline(alice, '&local=true')).toContain(posts.pub?.A?.uri);
    expect(await timeline(alice, '&remote=true')).not.toContain(posts.pub?.A?.uri);
  });

  it('replies across instances thread on every side (context, in_reply_to_id)', async () => {
    const pubOnB = posts.pub?.B;
    const reply = await bob.client.post('/api/v1/statuses', { status: `@alice@${a.domain} nice post`, in_reply_to_id: pubOnB?.id, visibility: 'public' });
    expect(reply.status).toBe(200);
    const replyOnB = reply.body as Status;
    expect(replyOnB.in_reply_to_id).toBe(pubOnB?.id);
    const ctxOnB = (await bob.client.get(`/api/v1/statuses/${replyOnB.id}/context`)).body as { ancestors: Status[]; descendants: Status[] };
    expect(ctxOnB.ancestors.map((s) => s.uri)).toEqual([posts.pub?.A?.uri]);

    // A: the reply reaches alice as a mention and threads under her post.
    const note = await eventually(async () => (await notifications(alice)).find((x) => x.type === 'mention' && x.status?.uri === replyOnB.uri));
    const replyOnA = note.status;
    expect(replyOnA?.in_reply_to_id).toBe(posts.pub?.A?.id);
    const ctxOnA = (await alice.client.get(`/api/v1/statuses/${posts.pub?.A?.id}/context`)).body as { ancestors: Status[]; descendants: Status[] };
    expect(ctxOnA.descendants.map((s) => s.uri)).toEqual([replyOnB.uri]);

    // Alice answers: B threads it under bob's reply; C (dan follows alice, not bob) fetches the
    // unknown parent and threads the whole conversation too.
    const answer = await alice.client.post('/api/v1/statuses', { status: `@bob@${b.domain} thanks!`, in_reply_to_id: replyOnA?.id, visibility: 'public' });
    expect(answer.status).toBe(200);
    const answerOnA = answer.body as Status;
    const answerOnB = await eventually(async () => (await notifications(bob)).find((x) => x.type === 'mention' && x.status?.uri === answerOnA.uri)?.status);
    expect(answerOnB.in_reply_to_id).toBe(replyOnB.id);
    const threadOnB = (await bob.client.get(`/api/v1/statuses/${pubOnB?.id}/context`)).body as { descendants: Status[] };
    expect(threadOnB.descendants.map((s) => s.uri)).toEqual([replyOnB.uri, answerOnA.uri]);
    // Not in dan's home: Mastodon leaves out replies to accounts the viewer does not follow.
    const answerOnC = await eventually(async () => byUri((await dan.client.get(`/api/v1/accounts/${ids.aliceOnC}/statuses`)).body as Status[], answerOnA.uri));
    expect(byUri(await home(dan), answerOnA.uri)).toBeUndefined();
    const parentOnC = await eventually(async () => ((await dan.client.get(`/api/v1/statuses/${answerOnC.id}`)).body as Status).in_reply_to_id);
    const ctxOnC = (await dan.client.get(`/api/v1/statuses/${answerOnC.id}/context`)).body as { ancestors: Status[] };
    expect(ctxOnC.ancestors.map((s) => s.uri)).toEqual([posts.pub?.A?.uri, replyOnB.uri]);
    expect(ctxOnC.ancestors[1]?.id).toBe(parentOnC);
    const threadOnA = (await alice.client.get(`/api/v1/statuses/${posts.pub?.A?.id}/context`)).body as { descendants: Status[] };
    expect(threadOnA.descendants.map((s) => s.uri)).toEqual([replyOnB.uri, answerOnA.uri]);
  });

  it('a mention in a public post notifies the mentioned account on its instance', async () => {
    const res = await alice.client.post('/api/v1/statuses', { status: `hi @carl@${c.domain}, public mention`, visibility: 'public' });
    const uri = (res.body as Status).uri;
    const n = await eventually(async () => (await notifications(carl)).find((x) => x.type === 'mention' && x.status?.uri === uri));
    expect(n.account.acct).toBe(`alice@${a.domain}`);
    expect(n.status?.mentions.map((m) => m.acct)).toEqual(['carl']);
    expect(text(n.status ?? { content: '' })).toContain('public mention');
  });

  it('favourites (from B) and boosts (from C) notify the author on A and count on her status', async () => {
    expect((await bob.client.post(`/api/v1/statuses/${posts.pub?.B?.id}/favourite`)).status).toBe(200);
    const reblog = await carl.client.post(`/api/v1/statuses/${posts.pub?.C?.id}/reblog`);
    expect(reblog.status).toBe(200);
    expect((reblog.body as Status).reblog?.uri).toBe(posts.pub?.A?.uri);
    const counted = await eventually(async () => {
      const s = (await alice.client.get(`/api/v1/statuses/${posts.pub?.A?.id}`)).body as Status;
      return s.favourites_count === 1 && s.reblogs_count === 1 ? s : null;
    });
    expect(counted.uri).toBe(posts.pub?.A?.uri);
    const list = await eventually(async () => {
      const all = await notifications(alice);
      return all.some((x) => x.type === 'favourite') && all.some((x) => x.type === 'reblog') ? all : null;
    });
    expect(list.find((x) => x.type === 'favourite')).toMatchObject({ account: { acct: `bob@${b.domain}` }, status: { uri: posts.pub?.A?.uri } });
    expect(list.find((x) => x.type === 'reblog')).toMatchObject({ account: { acct: `carl@${c.domain}` }, status: { uri: posts.pub?.A?.uri } });
    const favouritedBy = (await alice.client.get(`/api/v1/statuses/${posts.pub?.A?.id}/favourited_by`)).body as Account[];
    expect(favouritedBy.map((x) => x.acct)).toEqual([`bob@${b.domain}`]);
    const rebloggedBy = (await alice.client.get(`/api/v1/statuses/${posts.pub?.A?.id}/reblogged_by`)).body as Account[];
    expect(rebloggedBy.map((x) => x.acct)).toEqual([`carl@${c.domain}`]);
    // The actors' own sides.
    expect(((await bob.client.get(`/api/v1/statuses/${posts.pub?.B?.id}`)).body as Status).favourited).toBe(true);
    expect(((await carl.client.get(`/api/v1/statuses/${posts.pub?.C?.id}`)).body as Status).reblogged).toBe(true);
  });

  it('votes from B and C in a poll on A: tallies on the author’s side and on the voters’ after Update(Question)', async () => {
    const created = await alice.client.post('/api/v1/statuses', { status: 'cats or dogs?', visibility: 'public', poll: { options: ['cats', 'dogs'], expires_in: 3600 } });
    expect(created.status).toBe(200);
    const poll = created.body as Status;
    const onB = await arrives(bob, poll.uri);
    const onC = await arrives(dan, poll.uri);
    expect(onB.poll?.options.map((o) => o.title)).toEqual(['cats', 'dogs']);
    expect((await bob.client.post(`/api/v1/polls/${onB.poll?.id}/votes`, { choices: ['0'] })).status).toBe(200);
    // carl does not follow alice: he votes on C's copy (which dan's follow brought).
    expect((await carl.client.post(`/api/v1/polls/${onC.poll?.id}/votes`, { choices: ['1'] })).status).toBe(200);
    const onA = await eventually(async () => {
      const p = (await alice.client.get(`/api/v1/polls/${poll.poll?.id}`)).body as { votes_count: number; voters_count: number; options: { votes_count: number }[] };
      return p.votes_count === 2 ? p : null;
    });
    expect(onA.options.map((o) => o.votes_count)).toEqual([1, 1]);
    expect(onA.voters_count).toBe(2);
    // The Update(Question) carries the tallies back to every follower's server and to the voters.
    const bobView = await eventually(async () => {
      const p = (await bob.client.get(`/api/v1/polls/${onB.poll?.id}`)).body as { votes_count: number; voted: boolean; own_votes: number[]; options: { votes_count: number }[] };
      return p.votes_count === 2 ? p : null;
    });
    expect(bobView).toMatchObject({ voted: true, own_votes: [0] });
    expect(bobView.options.map((o) => o.votes_count)).toEqual([1, 1]);
    const carlView = await eventually(async () => {
      const p = (await carl.client.get(`/api/v1/polls/${onC.poll?.id}`)).body as { votes_count: number; voted: boolean; own_votes: number[] };
      return p.votes_count === 2 ? p : null;
    });
    expect(carlView).toMatchObject({ voted: true, own_votes: [1] });
  });

  it('a poll nobody delivered is fetched by URL (search resolve) as a Question with its tallies', async () => {
    // amy has no followers yet: C has never seen her poll.
    const created = await amy.client.post('/api/v1/statuses', { status: 'tabs or spaces?', visibility: 'public', poll: { options: ['tabs', 'spaces'], expires_in: 3600, multiple: true } });
    const poll = created.body as Status;
    expect((await alice.client.post(`/api/v1/polls/${poll.poll?.id}/votes`, { choices: ['0', '1'] })).status).toBe(200);
    const res = await cora.client.get(`/api/v2/search?q=${encodeURIComponent(poll.uri)}&resolve=true&type=statuses`);
    expect(res.status).toBe(200);
    const found = (res.body as { statuses: (Status & { poll: { multiple: boolean; voters_count: number } | null })[] }).statuses[0];
    expect(found?.uri).toBe(poll.uri);
    expect(found?.poll?.options.map((o) => [o.title, o.votes_count])).toEqual([['tabs', 1], ['spaces', 1]]);
    expect(found?.poll).toMatchObject({ multiple: true, votes_count: 2, voters_count: 1 });
  });

  it('edits reach the followers with their history', async () => {
    const edited = await alice.client.put(`/api/v1/statuses/${posts.pub?.A?.id}`, { status: 'hello fediverse (edited)' });
    expect(edited.status).toBe(200);
    for (const [viewer, s] of [[bob, posts.pub?.B], [dan, posts.pub?.C]] as const) {
      const now = await eventually(async () => {
        const x = (await viewer.client.get(`/api/v1/statuses/${s?.id}`)).body as Status;
        return text(x).includes('(edited)') ? x : null;
      });
      expect(now.edited_at).not.toBeNull();
      const history = (await viewer.client.get(`/api/v1/statuses/${s?.id}/history`)).body as { content: string }[];
      expect(history.map(text)).toEqual(['hello fediverse', 'hello fediverse (edited)']);
    }
    const own = (await alice.client.get(`/api/v1/statuses/${posts.pub?.A?.id}/history`)).body as { content: string }[];
    expect(own.map(text)).toEqual(['hello fediverse', 'hello fediverse (edited)']);
  });

  it('pins show in the featured statuses on the other instances', async () => {
    expect((await alice.client.post(`/api/v1/statuses/${posts.pub?.A?.id}/pin`)).status).toBe(200);
    const pinned = async (viewer: TestUser, accountId: string) => ((await viewer.client.get(`/api/v1/accounts/${accountId}/statuses?pinned=true`)).body as Status[]).map((s) => s.uri);
    expect(await pinned(alice, alice.accountId)).toEqual([posts.pub?.A?.uri]);
    await eventually(async () => (await pinned(bob, ids.aliceOnB ?? '')).includes(posts.pub?.A?.uri ?? ''));
    await eventually(async () => (await pinned(cora, ids.aliceOnC ?? '')).includes(posts.pub?.A?.uri ?? ''));
    expect(await pinned(bob, ids.aliceOnB ?? '')).toEqual([posts.pub?.A?.uri]);
  });

  it('a report from C forwarded to A reaches A’s moderators', async () => {
    const res = await carl.client.post('/api/v1/reports', { account_id: ids.aliceOnC, status_ids: [posts.pub?.C?.id], comment: 'forwarded from C', forward: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ forwarded: true, comment: 'forwarded from C' });
    // There is no moderation (admin) API yet: the report is read from A's database.
    const row = await eventually(() =>
      a.deps.db.query<{ account_id: string; target_account_id: string; comment: string; status_ids: string }>("SELECT account_id, target_account_id, comment, status_ids FROM reports WHERE comment = 'forwarded from C'").get(),
    );
    expect(row.target_account_id).toBe(alice.accountId);
    expect(JSON.parse(row.status_ids)).toEqual([posts.pub?.A?.id]);
    // Filed by C's instance actor (the reporter stays anonymous), not by carl.
    const reporter = a.deps.db.query<{ uri: string | null }>('SELECT uri FROM accounts WHERE id = @id').get({ id: row.account_id });
    expect(reporter?.uri).not.toBe(`${c.origin}/users/carl`);
    expect(reporter?.uri?.startsWith(c.origin)).toBe(true);
  });

  it('deletes are gone on every side (404)', async () => {
    const unl = posts.unl;
    expect((await bob.client.get(`/api/v1/statuses/${unl?.B?.id}`)).status).toBe(200);
    expect((await alice.client.delete(`/api/v1/statuses/${unl?.A?.id}`)).status).toBe(200);
    expect((await alice.client.get(`/api/v1/statuses/${unl?.A?.id}`)).status).toBe(404);
    await eventually(async () => (await bob.client.get(`/api/v1/statuses/${unl?.B?.id}`)).status === 404);
    await eventually(async () => (await dan.client.get(`/api/v1/statuses/${unl?.C?.id}`)).status === 404);
    expect(byUri(await home(bob), unl?.A?.uri)).toBeUndefined();
    expect(byUri(await home(dan), unl?.A?.uri)).toBeUndefined();
  });

  it('a move from A to B: followers on C end up following the new account', async () => {
    ids.amyOnC = await resolve(dan, `amy@${a.domain}`);
    expect((await dan.client.post(`/api/v1/accounts/${ids.amyOnC}/follow`)).status).toBe(200);
    await eventually(async () => (await rel(dan, ids.amyOnC ?? ''))?.following);
    expect(await follows(amy, amy.accountId, 'followers')).toEqual([`dan@${c.domain}`]);
    const amyUri = `${a.origin}/users/amy`;
    const amy2Uri = `${b.origin}/users/amy2`;
    // Hearth has no local move yet (Mastodon does it from its settings pages, not the REST API):
    // the alias on B and the movedTo on A are set in the databases, and the Move is signed with
    // amy's own key. Everything else (actor documents, delivery, Follow/Accept/Undo) is real.
    b.deps.db.query('UPDATE accounts SET also_known_as = @aka WHERE id = @id').run({ aka: JSON.stringify([amyUri]), id: amy2.accountId });
    const amy2OnA = await a.app.federation?.resolveAccount(amy2Uri);
    expect(amy2OnA?.id).toBeDefined();
    a.deps.db.query('UPDATE accounts SET moved_to_account_id = @to WHERE id = @id').run({ to: amy2OnA?.id ?? '', id: amy.accountId });
    const keys = a.deps.db.query<{ public_key_pem: string; private_key_pem: string }>('SELECT public_key_pem, private_key_pem FROM accounts WHERE id = @id').get({ id: amy.accountId });
    const pair = await importKeyPair(keys?.public_key_pem ?? '', keys?.private_key_pem ?? '');
    const move = { '@context': 'https://www.w3.org/ns/activitystreams', id: `${amyUri}#moves/1`, type: 'Move', actor: amyUri, object: amyUri, target: amy2Uri };
    const body = JSON.stringify(move);
    const request = new Request(new URL('/inbox', c.origin), { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body });
    const signed = await signRequest(request, pair.privateKey, new URL(`${amyUri}#main-key`), { spec: 'draft-cavage-http-signatures-12' });
    expect((await fetch(signed)).status).toBe(202);

    // C: dan now follows amy2 (Follow to B, Accept back) and no longer follows amy; amy shows moved.
    ids.amy2OnC = await eventually(async () => ((await dan.client.get(`/api/v1/accounts/${ids.amyOnC}`)).body as Account).moved?.id);
    expect(((await dan.client.get(`/api/v1/accounts/${ids.amyOnC}`)).body as Account).moved?.acct).toBe(`amy2@${b.domain}`);
    await eventually(async () => (await rel(dan, ids.amy2OnC ?? ''))?.following);
    expect(await rel(dan, ids.amyOnC ?? '')).toMatchObject({ following: false, requested: false });
    // B: amy2's followers list shows dan; A: amy lost him.
    expect(await follows(amy2, amy2.accountId, 'followers')).toEqual([`dan@${c.domain}`]);
    await eventually(async () => (await follows(amy, amy.accountId, 'followers')).length === 0);
  });

  it('a block: the blocked side loses the follow and stops receiving posts', async () => {
    expect((await alice.client.post(`/api/v1/accounts/${ids.bobOnA}/block`)).status).toBe(200);
    expect(await rel(alice, ids.bobOnA ?? '')).toMatchObject({ blocking: true, followed_by: false });
    expect(await follows(alice, alice.accountId, 'followers')).toEqual([`dan@${c.domain}`]);
    await eventually(async () => (await rel(bob, ids.aliceOnB ?? ''))?.blocked_by);
    expect(await rel(bob, ids.aliceOnB ?? '')).toMatchObject({ following: false, blocked_by: true });
    const after = (await alice.client.post('/api/v1/statuses', { status: 'after the block', visibility: 'public' })).body as Status;
    // It reaches C (dan still follows): by then B would have it too had it been sent there.
    await arrives(dan, after.uri);
    await new Promise((r) => setTimeout(r, 300));
    expect(byUri(await home(bob), after.uri)).toBeUndefined();
    expect(((await bob.client.get('/api/v1/timelines/public?limit=40')).body as Status[]).map((s) => s.uri)).not.toContain(after.uri);
    expect(b.deps.db.query<{ n: number }>('SELECT count(*) AS n FROM statuses WHERE uri = @uri').get({ uri: after.uri })?.n).toBe(0);
  });

  it('a user domain block of C: alice no longer sees C’s posts, and her followers on C are removed on both sides', async () => {
    const before = (await carl.client.post('/api/v1/statuses', { status: 'carl before the domain block', visibility: 'public' })).body as Status;
    await arrives(alice, before.uri);
    expect((await alice.client.post('/api/v1/domain_blocks', { domain: c.domain })).status).toBe(200);
    expect((await alice.client.get('/api/v1/domain_blocks')).body).toEqual([c.domain]);
    // A: dan is no longer among alice's followers; C: dan's follow ends there too (Reject).
    expect(await follows(alice, alice.accountId, 'followers')).toEqual([]);
    await eventually(async () => (await rel(dan, ids.aliceOnC ?? ''))?.following === false);
    expect(await follows(dan, dan.accountId, 'following')).not.toContain(`alice@${a.domain}`);
    // C's posts are hidden from alice: her home, the public timelines, notifications.
    expect(byUri(await home(alice), before.uri)).toBeUndefined();
    const after = (await carl.client.post('/api/v1/statuses', { status: `@alice@${a.domain} carl after the domain block`, visibility: 'public' })).body as Status;
    // Anonymous viewers on A still see it arrive (the instance itself federates with C).
    await eventually(async () => ((await a.anon.get('/api/v1/timelines/public?limit=40')).body as Status[]).some((s) => s.uri === after.uri));
    expect(byUri(await home(alice), after.uri)).toBeUndefined();
    expect(((await alice.client.get('/api/v1/timelines/public?limit=40')).body as Status[]).map((s) => s.uri)).not.toContain(after.uri);
    expect((await notifications(alice)).some((x) => x.status?.uri === after.uri)).toBe(false);
    // A new post of alice's no longer goes to C.
    const mine = (await alice.client.post('/api/v1/statuses', { status: 'alice after blocking C', visibility: 'public' })).body as Status;
    await new Promise((r) => setTimeout(r, 500));
    expect(c.deps.db.query<{ n: number }>('SELECT count(*) AS n FROM statuses WHERE uri = @uri').get({ uri: mine.uri })?.n).toBe(0);
  });
});
