import { createRestAPIClient } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { follow, ids, links, post, seedMedia } from './helpers.js';

describe('GET /api/v1/accounts/:id/statuses', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let plain: any;
  let withMedia: any;
  let selfReply: any;
  let replyToBob: any;
  let tagged: any;
  let priv: any;
  let direct: any;
  let reblog: any;
  let bobPost: any;
  const path = () => `/api/v1/accounts/${alice.accountId}/statuses`;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    carol = await inst.createUser('carol');
    await follow(carol.client, alice.accountId);
    bobPost = await post(bob.client, { status: 'bob says' });
    plain = await post(alice.client, { status: 'plain' });
    withMedia = await post(alice.client, { status: 'a picture', media_ids: [seedMedia(inst, alice.accountId)] });
    selfReply = await post(alice.client, { status: 'thread', in_reply_to_id: plain.id });
    replyToBob = await post(alice.client, { status: '@bob answer', in_reply_to_id: bobPost.id });
    tagged = await post(alice.client, { status: 'about #Gardening', visibility: 'unlisted' });
    priv = await post(alice.client, { status: 'followers', visibility: 'private' });
    direct = await post(alice.client, { status: '@bob only', visibility: 'direct' });
    reblog = (await alice.client.post(`/api/v1/statuses/${bobPost.id}/reblog`)).body;
    await alice.client.post(`/api/v1/statuses/${plain.id}/pin`);
    await alice.client.post(`/api/v1/statuses/${tagged.id}/pin`);
  });
  afterAll(async () => {
    await inst.close();
  });

  it('lists what each viewer may see, newest first, reblogs included', async () => {
    const everyone = [reblog.id, tagged.id, replyToBob.id, selfReply.id, withMedia.id, plain.id];
    expect(await ids(inst.anon, path())).toEqual(everyone);
    expect(await ids(carol.client, path())).toEqual([reblog.id, priv.id, tagged.id, replyToBob.id, selfReply.id, withMedia.id, plain.id]);
    expect(await ids(bob.client, path())).toEqual([reblog.id, direct.id, tagged.id, replyToBob.id, selfReply.id, withMedia.id, plain.id]);
    expect(await ids(alice.client, path())).toEqual([reblog.id, direct.id, priv.id, tagged.id, replyToBob.id, selfReply.id, withMedia.id, plain.id]);
  });

  it('filters: pinned, only_media, exclude_replies, exclude_reblogs, tagged', async () => {
    expect(await ids(inst.anon, `${path()}?pinned=true`)).toEqual([tagged.id, plain.id]);
    const pinned = await alice.client.get(`${path()}?pinned=true`);
    expect(pinned.body.map((s: { pinned: boolean }) => s.pinned)).toEqual([true, true]);
    expect(await ids(inst.anon, `${path()}?only_media=true`)).toEqual([withMedia.id]);
    expect(await ids(inst.anon, `${path()}?exclude_replies=true`)).toEqual([reblog.id, tagged.id, selfReply.id, withMedia.id, plain.id]);
    expect(await ids(inst.anon, `${path()}?exclude_reblogs=true`)).toEqual([tagged.id, replyToBob.id, selfReply.id, withMedia.id, plain.id]);
    expect(await ids(inst.anon, `${path()}?tagged=gardening`)).toEqual([tagged.id]);
    expect(await ids(inst.anon, `${path()}?tagged=%23Gardening`)).toEqual([tagged.id]);
    expect(await ids(inst.anon, `${path()}?tagged=unknowntag`)).toEqual([]);
    expect(await ids(inst.anon, `${path()}?exclude_replies=true&exclude_reblogs=1&pinned=false`)).toEqual([tagged.id, selfReply.id, withMedia.id, plain.id]);
  });

  it('pages with Link headers', async () => {
    const first = await inst.anon.get(`${path()}?limit=2`);
    expect(first.body.map((s: { id: string }) => s.id)).toEqual([reblog.id, tagged.id]);
    const next = links(first.headers.get('link')).next;
    expect(next?.searchParams.get('max_id')).toBe(tagged.id);
    expect(await ids(inst.anon, `${next?.pathname}${next?.search}`)).toEqual([replyToBob.id, selfReply.id]);
    expect(await ids(inst.anon, `${path()}?min_id=${withMedia.id}&limit=2`)).toEqual([replyToBob.id, selfReply.id]);
    expect(await ids(inst.anon, `${path()}?since_id=${replyToBob.id}`)).toEqual([reblog.id, tagged.id]);
  });

  it('is driven by masto', async () => {
    const masto = createRestAPIClient({ url: inst.url, accessToken: carol.token });
    const list = await masto.v1.accounts.$select(alice.accountId).statuses.list({ excludeReblogs: true, limit: 3 });
    expect(list.map((s) => s.id)).toEqual([priv.id, tagged.id, replyToBob.id]);
  });

  it('answers 404 for an unknown account, and nothing for a suspended one', async () => {
    expect((await inst.anon.get('/api/v1/accounts/999999/statuses')).status).toBe(404);
    expect((await inst.anon.get('/api/v1/accounts/not-an-id/statuses')).status).toBe(404);
    const dave = await inst.createUser('dave');
    await post(dave.client, { status: 'soon gone' });
    inst.deps.db.query('UPDATE accounts SET suspended_at = 1 WHERE id = @id').run({ id: dave.accountId });
    expect(await ids(inst.anon, `/api/v1/accounts/${dave.accountId}/statuses`)).toEqual([]);
  });

  it('checks a token when one is given', async () => {
    expect((await inst.anon.get(path(), { token: 'bad' })).status).toBe(401);
    expect((await inst.anon.get(path(), { token: inst.tokenFor(alice, 'write') })).status).toBe(403);
  });
});
