import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { follow, links, post } from './helpers.js';

describe('reblogs', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  const events: { name: string; payload: Record<string, unknown> }[] = [];

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    carol = await inst.createUser('carol');
    await follow(bob.client, alice.accountId);
    for (const name of ['status.created', 'status.deleted', 'reblog.created', 'reblog.deleted'] as const) {
      inst.deps.events.on(name, (payload) => events.push({ name, payload: payload as Record<string, unknown> }));
    }
  });
  afterAll(async () => {
    await inst.close();
  });

  async function statusesCount(user: TestUser): Promise<number> {
    return (await inst.anon.get(`/api/v1/accounts/${user.accountId}`)).body.statuses_count;
  }

  it('reblogs a public status: a new status wrapping the original, counted once', async () => {
    const status = await post(alice.client, { status: 'boost me' });
    const before = await statusesCount(bob);
    events.length = 0;
    const res = await bob.client.post(`/api/v1/statuses/${status.id}/reblog`);
    expect(res.status).toBe(200);
    expect(res.body.id).not.toBe(status.id);
    expect(res.body.account.id).toBe(bob.accountId);
    expect(res.body.visibility).toBe('public');
    expect(res.body.reblogged).toBe(true);
    expect(res.body.reblog.id).toBe(status.id);
    expect(res.body.reblog.reblogged).toBe(true);
    expect(res.body.reblog.reblogs_count).toBe(1);
    expect(await statusesCount(bob)).toBe(before + 1);
    expect(events.map((e) => e.name)).toEqual(['status.created', 'reblog.created']);
    expect(events[1]?.payload).toEqual({ statusId: res.body.id, reblogOfId: status.id, accountId: bob.accountId });

    // A second reblog answers the first one.
    const again = await bob.client.post(`/api/v1/statuses/${status.id}/reblog`);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(res.body.id);
    expect(again.body.reblog.reblogs_count).toBe(1);
    // Reblogging the reblog's id reblogs the original (and so answers the same reblog).
    expect((await bob.client.post(`/api/v1/statuses/${res.body.id}/reblog`)).body.id).toBe(res.body.id);
    expect(events.filter((e) => e.name === 'reblog.created')).toHaveLength(1);

    // The reblog can be fetched as a status of its own.
    const shown = await carol.client.get(`/api/v1/statuses/${res.body.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.reblog.id).toBe(status.id);
    expect(shown.body.reblogged).toBe(false);
  });

  it('undoes a reblog and answers the original; undoing again answers it unchanged', async () => {
    const status = await post(alice.client, { status: 'boost and unboost' });
    const reblog = await bob.client.post(`/api/v1/statuses/${status.id}/reblog`);
    const before = await statusesCount(bob);
    events.length = 0;
    const undo = await bob.client.post(`/api/v1/statuses/${status.id}/unreblog`);
    expect(undo.status).toBe(200);
    expect(undo.body.id).toBe(status.id);
    expect(undo.body.reblogged).toBe(false);
    expect(undo.body.reblogs_count).toBe(0);
    expect(await statusesCount(bob)).toBe(before - 1);
    expect((await bob.client.get(`/api/v1/statuses/${reblog.body.id}`)).status).toBe(404);
    expect(events.map((e) => e.name)).toEqual(['reblog.deleted', 'status.deleted']);
    expect(events[1]?.payload).toMatchObject({ statusId: reblog.body.id, accountId: bob.accountId, reblogOfId: status.id, visibility: 'public' });

    const again = await bob.client.post(`/api/v1/statuses/${status.id}/unreblog`);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(status.id);
    expect(again.body.reblogs_count).toBe(0);
    expect(events).toHaveLength(2);
  });

  it('honours the visibility parameter and rejects others', async () => {
    const status = await post(alice.client, { status: 'quietly' });
    const bad = await carol.client.post(`/api/v1/statuses/${status.id}/reblog`, { visibility: 'direct' });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatch(/^Validation failed: /);
    const nonsense = await carol.client.post(`/api/v1/statuses/${status.id}/reblog`, undefined, { form: { visibility: 'sideways' } });
    expect(nonsense.status).toBe(422);
    expect((await alice.client.get(`/api/v1/statuses/${status.id}`)).body.reblogs_count).toBe(0);
    const res = await carol.client.post(`/api/v1/statuses/${status.id}/reblog`, undefined, { form: { visibility: 'unlisted' } });
    expect(res.status).toBe(200);
    expect(res.body.visibility).toBe('unlisted');
  });

  it('uses the default posting visibility when none is asked', async () => {
    const dave = await inst.createUser('dave');
    const prefs = await dave.client.patch('/api/v1/accounts/update_credentials', { source: { privacy: 'unlisted' } });
    expect(prefs.status, prefs.text).toBe(200);
    const status = await post(alice.client, { status: 'default' });
    const res = await dave.client.post(`/api/v1/statuses/${status.id}/reblog`);
    expect(res.body.visibility).toBe('unlisted');
  });

  it('refuses to reblog private statuses of others (403) and direct ones (403), allows own private', async () => {
    const privateOne = await post(alice.client, { status: 'followers only', visibility: 'private' });
    // bob follows alice and sees it, but may not boost it.
    const denied = await bob.client.post(`/api/v1/statuses/${privateOne.id}/reblog`);
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ error: 'This action is not allowed' });
    // carol does not even see it.
    expect((await carol.client.post(`/api/v1/statuses/${privateOne.id}/reblog`)).status).toBe(404);
    const own = await alice.client.post(`/api/v1/statuses/${privateOne.id}/reblog`, { visibility: 'public' });
    expect(own.status).toBe(200);
    expect(own.body.visibility).toBe('private');

    const direct = await post(alice.client, { status: '@carol just for you', visibility: 'direct' });
    expect((await carol.client.post(`/api/v1/statuses/${direct.id}/reblog`)).status).toBe(403);
    expect((await alice.client.post(`/api/v1/statuses/${direct.id}/reblog`)).status).toBe(403);
    expect((await bob.client.post(`/api/v1/statuses/${direct.id}/reblog`)).status).toBe(404);
    expect((await alice.client.get(`/api/v1/statuses/${direct.id}`)).body.reblogs_count).toBe(0);
    expect((await bob.client.post(`/api/v1/statuses/${direct.id}/unreblog`)).status).toBe(404);
  });

  it('lists who reblogged, paged with Link headers', async () => {
    const status = await post(alice.client, { status: 'boost party' });
    for (const user of [bob, carol, alice]) expect((await user.client.post(`/api/v1/statuses/${status.id}/reblog`)).status).toBe(200);
    const page = await inst.anon.get(`/api/v1/statuses/${status.id}/reblogged_by?limit=2`);
    expect(page.status).toBe(200);
    expect(page.body.map((a: { id: string }) => a.id)).toEqual([alice.accountId, carol.accountId]);
    const next = await inst.anon.get(links(page.headers.get('link')).next ?? '');
    expect(next.body.map((a: { id: string }) => a.id)).toEqual([bob.accountId]);
    const empty = await inst.anon.get(`/api/v1/statuses/${status.id}/reblogged_by?limit=2&max_id=${'1'.padEnd(5, '0')}`);
    expect(empty.body).toEqual([]);
    expect(empty.headers.get('link')).toBeNull();
    expect((await inst.anon.get('/api/v1/statuses/123/reblogged_by')).status).toBe(404);
  });

  it('checks tokens and scopes', async () => {
    const status = await post(alice.client, { status: 'scoped' });
    expect((await inst.anon.post(`/api/v1/statuses/${status.id}/reblog`)).status).toBe(401);
    expect((await bob.client.post(`/api/v1/statuses/${status.id}/reblog`, undefined, { token: inst.tokenFor(bob, 'write:favourites') })).status).toBe(403);
    expect((await bob.client.post(`/api/v1/statuses/${status.id}/unreblog`, undefined, { token: inst.tokenFor(bob, 'read') })).status).toBe(403);
    expect((await bob.client.post(`/api/v1/statuses/${status.id}/reblog`, undefined, { token: inst.tokenFor(bob, 'write:statuses') })).status).toBe(200);
  });
});
