import { createRestAPIClient } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { eventually, follow, ids, links, post, unfollow } from './helpers.js';

describe('GET /api/v1/timelines/home', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let dave: TestUser;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    carol = await inst.createUser('carol');
    dave = await inst.createUser('dave');
    await follow(alice.client, bob.accountId);
  });
  afterAll(async () => {
    await inst.close();
  });

  it('holds own statuses and those of followed accounts, newest first, nothing else', async () => {
    const own = await post(alice.client, { status: 'alice here' });
    const fromBob = await post(bob.client, { status: 'bob here' });
    const fromCarol = await post(carol.client, { status: 'carol here' });
    const home = await ids(alice.client, '/api/v1/timelines/home');
    expect(home.slice(0, 2)).toEqual([fromBob.id, own.id]);
    expect(home).not.toContain(fromCarol.id);
    // Bob's home has his own status but not Alice's (he does not follow her).
    const bobHome = await ids(bob.client, '/api/v1/timelines/home');
    expect(bobHome).toContain(fromBob.id);
    expect(bobHome).not.toContain(own.id);
  });

  it('is driven by masto, with the viewer flags of each status', async () => {
    const s = await post(bob.client, { status: 'for masto' });
    await alice.client.post(`/api/v1/statuses/${s.id}/favourite`);
    const masto = createRestAPIClient({ url: inst.url, accessToken: alice.token });
    const page = await masto.v1.timelines.home.list({ limit: 5 });
    const found = page.find((x) => x.id === s.id);
    expect(found?.favourited).toBe(true);
    expect(found?.favouritesCount).toBe(1);
    expect(found?.account.id).toBe(bob.accountId);
  });

  it('answers exactly what the statuses API renders for the same viewer', async () => {
    const poll = await post(bob.client, { status: 'vote', poll: { options: ['a', 'b'], expires_in: 3600 } });
    const replied = await post(alice.client, { status: '@bob a reply', in_reply_to_id: poll.id });
    const pinned = await post(alice.client, { status: 'pin me' });
    await alice.client.post(`/api/v1/statuses/${pinned.id}/pin`);
    await alice.client.post(`/api/v1/statuses/${poll.id}/votes`, { choices: ['0'] });
    const boosted = await post(carol.client, { status: 'boost me' });
    await alice.client.post(`/api/v1/statuses/${boosted.id}/bookmark`);
    await alice.client.post(`/api/v1/statuses/${boosted.id}/mute`);
    const plain = await post(bob.client, { status: 'alice boosts this' });
    await alice.client.post(`/api/v1/statuses/${plain.id}/reblog`);
    // Bob's boost reaches Alice's home; its flags are Alice's flags on the boosted status.
    const reblog = await bob.client.post(`/api/v1/statuses/${boosted.id}/reblog`);
    expect(reblog.status).toBe(200);
    // Twice: the second answer comes from the rendered-status cache.
    for (let i = 0; i < 2; i++) {
      const home = await alice.client.get('/api/v1/timelines/home?limit=40');
      const listed = home.body as { id: string }[];
      const wanted = [poll.id, replied.id, pinned.id, plain.id, reblog.body.id];
      for (const id of wanted) expect(listed.map((s) => s.id)).toContain(id);
      const direct = await alice.client.get(`/api/v1/statuses?${listed.map((s) => `id[]=${s.id}`).join('&')}`);
      expect(home.text).toBe(JSON.stringify(direct.body));
    }
  });

  it('keeps counters and flags current although statuses are cached', async () => {
    const s = await post(bob.client, { status: 'count me' });
    const first = (await alice.client.get('/api/v1/timelines/home')).body.find((x: { id: string }) => x.id === s.id);
    expect(first.favourites_count).toBe(0);
    await carol.client.post(`/api/v1/statuses/${s.id}/favourite`);
    await alice.client.post(`/api/v1/statuses/${s.id}/bookmark`);
    await post(carol.client, { status: 'a reply', in_reply_to_id: s.id });
    const after = (await alice.client.get('/api/v1/timelines/home')).body.find((x: { id: string }) => x.id === s.id);
    expect(after.favourites_count).toBe(1);
    expect(after.replies_count).toBe(1);
    expect(after.bookmarked).toBe(true);
    await inst.createUser('erin');
    const edited = await bob.client.put(`/api/v1/statuses/${s.id}`, { status: 'count me, edited' });
    expect(edited.status).toBe(200);
    const later = (await alice.client.get('/api/v1/timelines/home')).body.find((x: { id: string }) => x.id === s.id);
    expect(later.content).toContain('edited');
    // The author's statuses_count moved with the reply-free post above.
    await post(bob.client, { status: 'one more' });
    const counted = (await alice.client.get('/api/v1/timelines/home')).body.find((x: { id: string }) => x.id === s.id);
    expect(counted.account.statuses_count).toBe((await bob.client.get(`/api/v1/accounts/${bob.accountId}`)).body.statuses_count);
  });

  it('shows a profile change of an author at once', async () => {
    const s = await post(bob.client, { status: 'who am I' });
    const before = (await alice.client.get('/api/v1/timelines/home')).body.find((x: { id: string }) => x.id === s.id);
    expect(before.account.display_name).toBe('');
    expect((await bob.client.patch('/api/v1/accounts/update_credentials', { display_name: 'Bob Builder' })).status).toBe(200);
    const after = (await alice.client.get('/api/v1/timelines/home')).body.find((x: { id: string }) => x.id === s.id);
    expect(after.account.display_name).toBe('Bob Builder');
  });

  it('leaves out replies to accounts the viewer does not follow, keeps self-replies and replies to them', async () => {
    const carolPost = await post(carol.client, { status: 'carol thread' });
    const toCarol = await post(bob.client, { status: '@carol hi', in_reply_to_id: carolPost.id });
    const bobPost = await post(bob.client, { status: 'bob thread' });
    const selfReply = await post(bob.client, { status: 'continued', in_reply_to_id: bobPost.id });
    const alicePost = await post(alice.client, { status: 'alice asks' });
    const toAlice = await post(bob.client, { status: '@alice answer', in_reply_to_id: alicePost.id });
    const home = await ids(alice.client, '/api/v1/timelines/home?limit=40');
    expect(home).not.toContain(toCarol.id);
    expect(home).toContain(selfReply.id);
    expect(home).toContain(toAlice.id);
  });

  it('honours show_reblogs and languages of the follow', async () => {
    await follow(dave.client, bob.accountId, { reblogs: false, languages: ['de'] });
    const carolPost = await post(carol.client, { status: 'boost this' });
    const boost = await bob.client.post(`/api/v1/statuses/${carolPost.id}/reblog`);
    const german = await post(bob.client, { status: 'Hallo', language: 'de' });
    const english = await post(bob.client, { status: 'Hello', language: 'en' });
    const daveHome = await ids(dave.client, '/api/v1/timelines/home?limit=40');
    expect(daveHome).toContain(german.id);
    expect(daveHome).not.toContain(english.id);
    expect(daveHome).not.toContain(boost.body.id);
    const aliceHome = await ids(alice.client, '/api/v1/timelines/home?limit=40');
    expect(aliceHome).toContain(boost.body.id);
    expect(aliceHome).toContain(english.id);
  });

  it('shows a boost of something just seen only once', async () => {
    const original = await post(bob.client, { status: 'seen already' });
    await follow(alice.client, carol.accountId);
    const boost = await carol.client.post(`/api/v1/statuses/${original.id}/reblog`);
    const home = await ids(alice.client, '/api/v1/timelines/home?limit=40');
    expect(home).toContain(original.id);
    expect(home).not.toContain(boost.body.id);
    await unfollow(alice.client, carol.accountId);
  });

  it('drops deleted statuses, and an unfollowed account, and merges a newly followed one', async () => {
    const gone = await post(bob.client, { status: 'to delete' });
    expect(await ids(alice.client, '/api/v1/timelines/home')).toContain(gone.id);
    expect((await bob.client.delete(`/api/v1/statuses/${gone.id}`)).status).toBe(200);
    expect(await ids(alice.client, '/api/v1/timelines/home')).not.toContain(gone.id);

    const carolOld = await post(carol.client, { status: 'before the follow' });
    const carolPrivate = await post(carol.client, { status: 'followers only', visibility: 'private' });
    await follow(alice.client, carol.accountId);
    const merged = await ids(alice.client, '/api/v1/timelines/home?limit=40');
    expect(merged).toContain(carolOld.id);
    expect(merged).toContain(carolPrivate.id);
    await unfollow(alice.client, carol.accountId);
    const after = await ids(alice.client, '/api/v1/timelines/home?limit=40');
    expect(after).not.toContain(carolOld.id);
    expect(after).not.toContain(carolPrivate.id);
  });

  it('brings public statuses of followed hashtags, merges on follow and leaves on unfollow', async () => {
    const earlier = await post(dave.client, { status: 'old #knitting news' });
    expect((await carol.client.post('/api/v1/tags/knitting/follow')).status).toBe(200);
    expect(await ids(carol.client, '/api/v1/timelines/home?limit=40')).toContain(earlier.id);
    const fresh = await post(dave.client, { status: 'new #Knitting pattern' });
    const unlisted = await post(dave.client, { status: 'quiet #knitting', visibility: 'unlisted' });
    const home = await ids(carol.client, '/api/v1/timelines/home?limit=40');
    expect(home).toContain(fresh.id);
    expect(home).not.toContain(unlisted.id);
    expect((await carol.client.post('/api/v1/tags/knitting/unfollow')).status).toBe(200);
    const after = await ids(carol.client, '/api/v1/timelines/home?limit=40');
    expect(after).not.toContain(fresh.id);
    expect(after).not.toContain(earlier.id);
  });

  it('delivers a direct status only to the mentioned followers', async () => {
    await follow(carol.client, bob.accountId);
    const dm = await post(bob.client, { status: '@alice psst', visibility: 'direct' });
    expect(await ids(alice.client, '/api/v1/timelines/home')).toContain(dm.id);
    expect(await ids(carol.client, '/api/v1/timelines/home?limit=40')).not.toContain(dm.id);
    expect(await ids(bob.client, '/api/v1/timelines/home')).toContain(dm.id);
  });

  it('pages with max_id, since_id, min_id and limit, and says so in the Link header', async () => {
    const user = await inst.createUser('pager');
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push((await post(user.client, { status: `page ${i}` })).id);
    const newest = [...made].reverse();

    const first = await user.client.get('/api/v1/timelines/home?limit=3');
    expect(first.body.map((s: { id: string }) => s.id)).toEqual(newest.slice(0, 3));
    const link = links(first.headers.get('link'));
    expect(link.next?.searchParams.get('max_id')).toBe(newest[2]);
    expect(link.next?.searchParams.get('limit')).toBe('3');
    expect(link.prev?.searchParams.get('min_id')).toBe(newest[0]);
    expect(link.next?.pathname).toBe('/api/v1/timelines/home');

    // Asked again with nothing changed, the same answer (from the page cache), Link header included.
    const again = await user.client.get('/api/v1/timelines/home?limit=3');
    expect(again.text).toBe(first.text);
    expect(again.headers.get('link')).toBe(first.headers.get('link'));

    const next = await user.client.get(`${link.next?.pathname}${link.next?.search}`);
    expect(next.body.map((s: { id: string }) => s.id)).toEqual(newest.slice(3, 6));
    expect(await ids(user.client, `/api/v1/timelines/home?since_id=${newest[2]}`)).toEqual(newest.slice(0, 2));
    // min_id: the page just after it, oldest first in the window but answered newest first.
    expect(await ids(user.client, `/api/v1/timelines/home?min_id=${made[0]}&limit=2`)).toEqual([made[2], made[1]]);
    expect(await ids(user.client, `/api/v1/timelines/home?min_id=${made[0]}&max_id=${made[3]}`)).toEqual([made[2], made[1]]);
    // limit is clamped to 40; 0 is an empty page, a negative limit counts as its absolute value (Mastodon's limit_param).
    expect((await ids(user.client, '/api/v1/timelines/home?limit=1000')).length).toBe(7);
    expect(await ids(user.client, '/api/v1/timelines/home?limit=0')).toEqual([]);
    expect((await ids(user.client, '/api/v1/timelines/home?limit=-2')).length).toBe(2);
    const empty = await user.client.get(`/api/v1/timelines/home?max_id=${made[0]}`);
    expect(empty.body).toEqual([]);
    expect(empty.headers.get('link')).toBeNull();
  });

  it('needs a user token with read:statuses', async () => {
    expect((await inst.anon.get('/api/v1/timelines/home')).status).toBe(401);
    expect((await alice.client.get('/api/v1/timelines/home', { token: 'nope' })).status).toBe(401);
    const writeOnly = inst.tokenFor(alice, 'write');
    expect((await alice.client.get('/api/v1/timelines/home', { token: writeOnly })).status).toBe(403);
    const narrow = inst.tokenFor(alice, 'read:statuses');
    expect((await alice.client.get('/api/v1/timelines/home', { token: narrow })).status).toBe(200);
  });

  it('rebuilds a missing feed, answering 206 with what exists meanwhile', async () => {
    const reader = await inst.createUser('reader');
    const authors: TestUser[] = [];
    const posted: string[] = [];
    for (let i = 0; i < 12; i++) {
      const a = await inst.createUser(`author${i}`);
      authors.push(a);
      posted.push((await post(a.client, { status: `by author ${i}` })).id);
      await follow(reader.client, a.accountId);
    }
    const privateOne = await post(authors[0]!.client, { status: 'followers only', visibility: 'private' });
    const own = await post(reader.client, { status: 'mine' });
    const expected = await ids(reader.client, '/api/v1/timelines/home?limit=40');
    expect(expected).toEqual(expect.arrayContaining([...posted, privateOne.id, own.id]));

    // An import or a restore leaves the feed and its state behind.
    inst.deps.db.query('DELETE FROM home_feed WHERE account_id = @account_id').run({ account_id: reader.accountId });
    inst.deps.db.query('DELETE FROM feed_state WHERE account_id = @account_id').run({ account_id: reader.accountId });

    const during = await reader.client.get('/api/v1/timelines/home?limit=40');
    expect(during.status).toBe(206);
    expect(Array.isArray(during.body)).toBe(true);

    await eventually(async () => (await reader.client.get('/api/v1/timelines/home')).status === 200);
    expect(await ids(reader.client, '/api/v1/timelines/home?limit=40')).toEqual(expected);
  });

  it('restarts a rebuild left marked as regenerating by a stopped instance', async () => {
    inst.deps.db.query('UPDATE feed_state SET regenerating = 1 WHERE account_id = @account_id').run({ account_id: alice.accountId });
    const before = await alice.client.get('/api/v1/timelines/home');
    expect(before.status).toBe(206);
    await eventually(async () => (await alice.client.get('/api/v1/timelines/home')).status === 200);
  });

  it('answers 200 at once for a new user with nothing to rebuild', async () => {
    const fresh = await inst.createUser('fresh');
    inst.deps.db.query('DELETE FROM feed_state WHERE account_id = @account_id').run({ account_id: fresh.accountId });
    const res = await fresh.client.get('/api/v1/timelines/home');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });
});
