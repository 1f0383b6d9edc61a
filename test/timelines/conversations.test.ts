import { createRestAPIClient } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { links, post } from './helpers.js';

describe('conversations (direct messages)', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    carol = await inst.createUser('carol');
  });
  afterAll(async () => {
    await inst.close();
  });

  async function conversations(user: TestUser, query = '') {
    const res = await user.client.get(`/api/v1/conversations${query}`);
    expect(res.status, res.text).toBe(200);
    return res;
  }

  it('keeps one conversation per thread and participant, unread for recipients', async () => {
    const first = await post(alice.client, { status: '@bob hello', visibility: 'direct' });
    const aliceView = (await conversations(alice)).body;
    expect(aliceView).toHaveLength(1);
    expect(aliceView[0].unread).toBe(false);
    expect(aliceView[0].accounts.map((a: { id: string }) => a.id)).toEqual([bob.accountId]);
    expect(aliceView[0].last_status.id).toBe(first.id);
    const bobView = (await conversations(bob)).body;
    expect(bobView).toHaveLength(1);
    expect(bobView[0].unread).toBe(true);
    expect(bobView[0].accounts.map((a: { id: string }) => a.id)).toEqual([alice.accountId]);
    expect((await conversations(carol)).body).toEqual([]);

    // A reply in the same thread moves it on; it is unread for Alice now, read for Bob who wrote it.
    const reply = await post(bob.client, { status: '@alice hi back', visibility: 'direct', in_reply_to_id: first.id });
    const again = (await conversations(alice)).body;
    expect(again).toHaveLength(1);
    expect(again[0].id).toBe(aliceView[0].id);
    expect(again[0].last_status.id).toBe(reply.id);
    expect(again[0].unread).toBe(true);
    expect((await conversations(bob)).body[0].unread).toBe(false);
  });

  it('leaves public and private statuses out', async () => {
    await post(carol.client, { status: '@alice not direct' });
    await post(carol.client, { status: '@alice followers only', visibility: 'private' });
    expect((await conversations(carol)).body).toEqual([]);
  });

  it('grows the participants when someone is added to a thread', async () => {
    const start = await post(carol.client, { status: '@alice a group', visibility: 'direct' });
    await post(alice.client, { status: '@carol @bob adding bob', visibility: 'direct', in_reply_to_id: start.id });
    const carolView = (await conversations(carol)).body.find((c: { last_status: { in_reply_to_id: string } }) => c.last_status.in_reply_to_id === start.id);
    expect(carolView.accounts.map((a: { id: string }) => a.id).sort()).toEqual([alice.accountId, bob.accountId].sort());
  });

  it('marks read and removes, 404 for someone else’s conversation', async () => {
    const [conv] = (await conversations(bob)).body;
    const read = await bob.client.post(`/api/v1/conversations/${conv.id}/read`);
    expect(read.status).toBe(200);
    expect(read.body.unread).toBe(false);
    expect(read.body.id).toBe(conv.id);
    expect((await carol.client.post(`/api/v1/conversations/${conv.id}/read`)).status).toBe(404);
    expect((await carol.client.delete(`/api/v1/conversations/${conv.id}`)).status).toBe(404);
    expect((await bob.client.post('/api/v1/conversations/123/read')).status).toBe(404);
    const removed = await bob.client.delete(`/api/v1/conversations/${conv.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({});
    expect((await conversations(bob)).body.map((c: { id: string }) => c.id)).not.toContain(conv.id);
    expect((await bob.client.delete(`/api/v1/conversations/${conv.id}`)).status).toBe(404);
  });

  it('follows deletions: the previous status becomes the last, and an emptied conversation goes', async () => {
    const dave = await inst.createUser('dave');
    const one = await post(dave.client, { status: '@alice one', visibility: 'direct' });
    const two = await post(dave.client, { status: '@alice two', visibility: 'direct', in_reply_to_id: one.id });
    const find = async () => (await conversations(alice)).body.find((c: { accounts: { id: string }[] }) => c.accounts.some((a) => a.id === dave.accountId));
    expect((await find()).last_status.id).toBe(two.id);
    await dave.client.delete(`/api/v1/statuses/${two.id}`);
    expect((await find()).last_status.id).toBe(one.id);
    await dave.client.delete(`/api/v1/statuses/${one.id}`);
    expect(await find()).toBeUndefined();
  });

  it('pages by last status with Link headers, and is driven by masto', async () => {
    const erin = await inst.createUser('erin');
    const lasts: string[] = [];
    for (const u of [alice, bob, carol]) lasts.push((await post(u.client, { status: '@erin hi', visibility: 'direct' })).id);
    const page = await conversations(erin, '?limit=2');
    expect(page.body.map((c: { last_status: { id: string } }) => c.last_status.id)).toEqual([lasts[2], lasts[1]]);
    const next = links(page.headers.get('link')).next;
    expect(next?.searchParams.get('max_id')).toBe(lasts[1]);
    const rest = (await erin.client.get(`${next?.pathname}${next?.search}`)).body;
    expect(rest.map((c: { last_status: { id: string } }) => c.last_status.id)).toEqual([lasts[0]]);
    const masto = createRestAPIClient({ url: inst.url, accessToken: erin.token });
    const list = await masto.v1.conversations.list({ limit: 5 });
    expect(list).toHaveLength(3);
    const read = await masto.v1.conversations.$select(list[0]!.id).read();
    expect(read.unread).toBe(false);
    await masto.v1.conversations.$select(list[0]!.id).remove();
    expect(await masto.v1.conversations.list()).toHaveLength(2);
  });

  it('needs a user token, read:statuses to list and write:conversations to change', async () => {
    expect((await inst.anon.get('/api/v1/conversations')).status).toBe(401);
    expect((await inst.anon.post('/api/v1/conversations/1/read')).status).toBe(401);
    const readOnly = inst.tokenFor(alice, 'read');
    const [conv] = (await conversations(alice)).body;
    expect((await alice.client.post(`/api/v1/conversations/${conv.id}/read`, undefined, { token: readOnly })).status).toBe(403);
    expect((await alice.client.delete(`/api/v1/conversations/${conv.id}`, { token: readOnly })).status).toBe(403);
    expect((await alice.client.get('/api/v1/conversations', { token: inst.tokenFor(alice, 'write') })).status).toBe(403);
  });
});
