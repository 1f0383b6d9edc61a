import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { closeSockets, follow, openSocket, post, seedRemoteAccount, seedRemoteStatus, settle, type StreamEvent } from './helpers.js';

const update = (id: string) => (e: StreamEvent) => e.event === 'update' && e.payload?.id === id;
const streamOf = (stream: string[]) => (e: StreamEvent) => JSON.stringify(e.stream) === JSON.stringify(stream);

describe('streaming applies the REST rules per subscriber: filters, blocks, mutes, lists, direct messages', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    carol = await inst.createUser('carol');
    await follow(bob.client, alice.accountId);
    await follow(bob.client, carol.accountId);
  });
  afterEach(() => closeSockets());
  afterAll(async () => {
    await inst.close();
  });

  it('v2 filters: hide drops the status for that context, warn marks `filtered`', async () => {
    const dave = await inst.createUser('dave');
    await follow(dave.client, alice.accountId);
    const hide = await dave.client.post('/api/v2/filters', { title: 'spoilers', context: ['home'], filter_action: 'hide', keywords_attributes: [{ keyword: 'spoiler' }] });
    const warn = await dave.client.post('/api/v2/filters', { title: 'politics', context: ['home', 'public'], filter_action: 'warn', keywords_attributes: [{ keyword: 'election' }] });
    expect([hide.status, warn.status]).toEqual([200, 200]);
    const socket = await openSocket(inst, dave.token, { query: 'stream=user' });
    await socket.subscribe('public');
    const hidden = await post(alice.client, { status: 'a big spoiler ahead' });
    const warned = await post(alice.client, { status: 'the election results' });
    const plain = await post(alice.client, { status: 'nothing special' });
    const onHome = await socket.next((e) => update(warned.id)(e) && streamOf(['user'])(e));
    expect(onHome.payload.filtered).toHaveLength(1);
    expect(onHome.payload.filtered[0].filter.id).toBe(warn.body.id);
    expect(onHome.payload.filtered[0].keyword_matches).toEqual(['election']);
    const onPublic = await socket.next((e) => update(warned.id)(e) && streamOf(['public'])(e));
    expect(onPublic.payload.filtered[0].filter.title).toBe('politics');
    const plainHome = await socket.next((e) => update(plain.id)(e) && streamOf(['user'])(e));
    expect(plainHome.payload.filtered).toEqual([]);
    // The hide filter applies to home only: the public stream still shows it, marked.
    const hiddenPublic = await socket.next((e) => update(hidden.id)(e) && streamOf(['public'])(e));
    expect(hiddenPublic.payload.filtered.map((r: { filter: { id: string } }) => r.filter.id)).toEqual([hide.body.id]);
    await settle();
    expect(socket.matching((e) => update(hidden.id)(e) && streamOf(['user'])(e))).toEqual([]);
    // A hide filter on the notifications context drops the notification.
    const quiet = await dave.client.post('/api/v2/filters', { title: 'quiet', context: ['notifications'], filter_action: 'hide', keywords_attributes: [{ keyword: 'hush' }] });
    expect(quiet.status).toBe(200);
    const dropped = await post(carol.client, { status: '@dave hush now' });
    const kept = await post(carol.client, { status: '@dave hello' });
    await socket.next((e) => e.event === 'notification' && e.payload.status?.id === kept.id);
    await settle();
    expect(socket.matching((e) => e.event === 'notification' && e.payload.status?.id === dropped.id)).toEqual([]);
  });

  it("a blocked account's posts do not arrive, on any stream; a muted one's neither; nor a blocked domain's", async () => {
    const erin = await inst.createUser('erin');
    const frank = await inst.createUser('frank');
    await follow(erin.client, frank.accountId);
    const watcher = await openSocket(inst, carol.token, { query: 'stream=public' });
    const erins = await openSocket(inst, erin.token, { query: 'stream=public' });
    await erins.subscribe('user');
    await erins.subscribe('hashtag', { tag: 'news' });
    expect((await erin.client.post(`/api/v1/accounts/${alice.accountId}/block`)).status).toBe(200);
    expect((await erin.client.post(`/api/v1/accounts/${frank.accountId}/mute`)).status).toBe(200);
    expect((await erin.client.post('/api/v1/domain_blocks', { domain: 'blocked.example' })).status).toBe(200);
    const fromAlice = await post(alice.client, { status: 'blocked words #news' });
    const fromFrank = await post(frank.client, { status: 'muted words #news' });
    const remote = seedRemoteStatus(inst, seedRemoteAccount(inst, 'loud', 'blocked.example'), { content: '<p>#news</p>', tags: ['news'] });
    const fine = await post(carol.client, { status: 'fine words #news' });
    // Someone else still gets them all.
    for (const id of [fromAlice.id, fromFrank.id, remote, fine.id]) await watcher.next(update(id));
    await erins.next((e) => update(fine.id)(e) && streamOf(['public'])(e));
    await erins.next((e) => update(fine.id)(e) && streamOf(['hashtag', 'news'])(e));
    await settle();
    for (const [name, id] of Object.entries({ fromAlice: fromAlice.id, fromFrank: fromFrank.id, remote })) expect(erins.matching(update(id)).map((e) => e.stream), name).toEqual([]);
    // A post that mentions a blocked account stays out of the home feed and the user stream (the
    // public timelines judge authors only, as REST does).
    expect((await erin.client.post(`/api/v1/accounts/${frank.accountId}/unmute`)).status).toBe(200);
    const mentioning = await post(frank.client, { status: 'hey @alice' });
    const afterUnmute = await post(frank.client, { status: 'unmuted now' });
    await erins.next((e) => update(afterUnmute.id)(e) && streamOf(['user'])(e));
    await settle();
    expect(erins.matching((e) => update(mentioning.id)(e) && streamOf(['user'])(e))).toEqual([]);
  });

  it("a list streams its members' posts with its replies policy; someone else's list cannot be streamed", async () => {
    const list = await bob.client.post('/api/v1/lists', { title: 'friends', replies_policy: 'list' });
    expect(list.status).toBe(200);
    expect((await bob.client.post(`/api/v1/lists/${list.body.id}/accounts`, { account_ids: [alice.accountId] })).status).toBe(200);
    const socket = await openSocket(inst, bob.token, { query: `stream=list&list=${list.body.id}` });
    const status = await post(alice.client, { status: 'for the list' });
    const event = await socket.next(update(status.id));
    expect(event.stream).toEqual(['list', list.body.id]);
    expect(event.raw).toBe((await bob.client.get(`/api/v1/statuses/${status.id}`)).text);
    // A reply to a non-member is left out under `list`; a reply to herself is kept; direct never.
    const carolPost = await post(carol.client, { status: 'carol here' });
    const replyToCarol = await post(alice.client, { status: '@carol yes', in_reply_to_id: carolPost.id });
    const selfReply = await post(alice.client, { status: 'continuing', in_reply_to_id: status.id });
    const dm = await post(alice.client, { status: '@bob secret', visibility: 'direct' });
    await socket.next(update(selfReply.id));
    await settle();
    for (const id of [replyToCarol.id, dm.id, carolPost.id]) expect(socket.matching(update(id)), id).toEqual([]);
    // With `followed`, the reply to carol (whom bob follows) is shown.
    expect((await bob.client.put(`/api/v1/lists/${list.body.id}`, { replies_policy: 'followed' })).status).toBe(200);
    const again = await post(alice.client, { status: '@carol again', in_reply_to_id: carolPost.id });
    await socket.next(update(again.id));
    // Carol may not stream bob's list (nor know it exists).
    const carols = await openSocket(inst, carol.token);
    carols.send({ type: 'subscribe', stream: 'list', list: list.body.id });
    expect(await carols.error()).toEqual({ error: 'Not authorized to stream this list', status: 401 });
    // An edit reaches the list stream as status.update; a deletion as delete.
    expect((await alice.client.put(`/api/v1/statuses/${status.id}`, { status: 'for the list, edited' })).status).toBe(200);
    const edited = await socket.next((e) => e.event === 'status.update' && e.payload.id === status.id);
    expect(edited.stream).toEqual(['list', list.body.id]);
    expect((await alice.client.delete(`/api/v1/statuses/${status.id}`)).status).toBe(200);
    const gone = await socket.next((e) => e.event === 'delete' && e.payload === status.id);
    expect(gone.stream).toEqual(['list', list.body.id]);
  });

  it('a list member on a pending follow request streams nothing until the request is accepted', async () => {
    const gwen = await inst.createUser('gwen');
    expect((await gwen.client.patch('/api/v1/accounts/update_credentials', { locked: true })).status).toBe(200);
    expect((await bob.client.post(`/api/v1/accounts/${gwen.accountId}/follow`)).body.requested).toBe(true);
    const list = await bob.client.post('/api/v1/lists', { title: 'pending' });
    expect((await bob.client.post(`/api/v1/lists/${list.body.id}/accounts`, { account_ids: [gwen.accountId] })).status).toBe(200);
    const socket = await openSocket(inst, bob.token, { query: `stream=list&list=${list.body.id}` });
    const early = await post(gwen.client, { status: 'before acceptance' });
    await settle();
    expect(socket.matching(update(early.id))).toEqual([]);
    expect((await gwen.client.post(`/api/v1/follow_requests/${bob.accountId}/authorize`)).status).toBe(200);
    const later = await post(gwen.client, { status: 'after acceptance' });
    expect((await socket.next(update(later.id))).stream).toEqual(['list', list.body.id]);
  });

  it('direct: a conversation event for each participant, nothing for anyone else', async () => {
    const bobs = await openSocket(inst, bob.token, { query: 'stream=direct' });
    const alices = await openSocket(inst, alice.token, { query: 'stream=direct' });
    const carols = await openSocket(inst, carol.token, { query: 'stream=direct' });
    await carols.subscribe('user');
    await carols.subscribe('public');
    const dm = await post(alice.client, { status: '@bob just between us', visibility: 'direct' });
    const event = await bobs.next((e) => e.event === 'conversation' && e.payload.last_status?.id === dm.id);
    expect(event.stream).toEqual(['direct']);
    expect(event.payload.unread).toBe(true);
    expect(event.payload.accounts.map((a: { id: string }) => a.id)).toEqual([alice.accountId]);
    // The same conversation REST lists for bob.
    const listed = await bob.client.get('/api/v1/conversations');
    expect(listed.body.find((c: { id: string }) => c.id === event.payload.id)).toEqual(event.payload);
    const own = await alices.next((e) => e.event === 'conversation' && e.payload.last_status?.id === dm.id);
    expect(own.payload.unread).toBe(false);
    expect((await alice.client.delete(`/api/v1/statuses/${dm.id}`)).status).toBe(200);
    await bobs.next((e) => e.event === 'delete' && e.payload === dm.id);
    await settle();
    // A direct message to someone else: nothing at all for carol.
    expect(carols.events).toEqual([]);
  });
});
