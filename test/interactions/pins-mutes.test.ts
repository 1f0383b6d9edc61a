import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { post } from './helpers.js';

describe('pins', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  const events: string[] = [];

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    inst.deps.events.on('pin.created', (p) => events.push(`created ${p.statusId}`));
    inst.deps.events.on('pin.deleted', (p) => events.push(`deleted ${p.statusId}`));
  });
  afterAll(async () => {
    await inst.close();
  });

  it('pins own public, unlisted and private statuses, at most five, and unpins', async () => {
    const statuses = [];
    for (const visibility of ['public', 'unlisted', 'private', 'public', 'public', 'public']) {
      statuses.push(await post(alice.client, { status: `pin ${visibility}`, visibility }));
    }
    events.length = 0;
    for (const s of statuses.slice(0, 5)) {
      const res = await alice.client.post(`/api/v1/statuses/${s.id}/pin`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.pinned).toBe(true);
    }
    expect(events).toHaveLength(5);
    const sixth = await alice.client.post(`/api/v1/statuses/${statuses[5].id}/pin`);
    expect(sixth.status).toBe(422);
    expect(sixth.body.details.base).toHaveLength(1);
    expect(sixth.body.error).toBe('Validation failed: You have already pinned the maximum number of posts');
    expect((await alice.client.get(`/api/v1/statuses/${statuses[5].id}`)).body.pinned).toBe(false);

    // Pinning a pinned status again is refused as a duplicate.
    const unpin = await alice.client.post(`/api/v1/statuses/${statuses[0].id}/unpin`);
    expect(unpin.status).toBe(200);
    expect(unpin.body.pinned).toBe(false);
    expect(events.at(-1)).toBe(`deleted ${statuses[0].id}`);
    const twice = await alice.client.post(`/api/v1/statuses/${statuses[1].id}/pin`);
    expect(twice.status).toBe(422);
    expect(twice.body.error).toBe('Duplicate record');
    // Unpinning what is not pinned answers the status.
    expect((await alice.client.post(`/api/v1/statuses/${statuses[0].id}/unpin`)).status).toBe(200);
    expect(events.filter((e) => e.startsWith('deleted'))).toHaveLength(1);
    // With a free slot, the sixth can be pinned now.
    expect((await alice.client.post(`/api/v1/statuses/${statuses[5].id}/pin`)).body.pinned).toBe(true);
  });

  it("refuses someone else's post, direct posts and reblogs", async () => {
    const mine = await post(bob.client, { status: 'bob post' });
    const theirs = await bob.client.post(`/api/v1/statuses/${mine.id}/pin`);
    expect(theirs.status).toBe(200);
    const other = await post(alice.client, { status: 'alice post' });
    const foreign = await bob.client.post(`/api/v1/statuses/${other.id}/pin`);
    expect(foreign.status).toBe(422);
    expect(foreign.body.error).toBe("Validation failed: Someone else's post cannot be pinned");
    const direct = await post(bob.client, { status: '@alice secret', visibility: 'direct' });
    const d = await bob.client.post(`/api/v1/statuses/${direct.id}/pin`);
    expect(d.status).toBe(422);
    expect(d.body.error).toBe('Validation failed: Posts that are only visible to mentioned users cannot be pinned');
    const reblog = await bob.client.post(`/api/v1/statuses/${other.id}/reblog`);
    const r = await bob.client.post(`/api/v1/statuses/${reblog.body.id}/pin`);
    expect(r.status).toBe(422);
    expect(r.body.error).toContain('A boost cannot be pinned');
    // Statuses the caller cannot see are not found.
    const hidden = await post(alice.client, { status: 'hidden', visibility: 'private' });
    expect((await bob.client.post(`/api/v1/statuses/${hidden.id}/pin`)).status).toBe(404);
    expect((await bob.client.post(`/api/v1/statuses/${hidden.id}/unpin`)).status).toBe(404);
  });

  it('needs write:accounts', async () => {
    const s = await post(bob.client, { status: 'scope' });
    expect((await inst.anon.post(`/api/v1/statuses/${s.id}/pin`)).status).toBe(401);
    expect((await bob.client.post(`/api/v1/statuses/${s.id}/pin`, undefined, { token: inst.tokenFor(bob, 'write:statuses') })).status).toBe(403);
    expect((await bob.client.post(`/api/v1/statuses/${s.id}/unpin`, undefined, { token: inst.tokenFor(bob, 'write:accounts') })).status).toBe(200);
  });
});

describe('muted conversations', () => {
  const env = useInstance(['alice', 'bob']);

  it('mutes and unmutes the whole thread for the caller only', async () => {
    const { users: { alice, bob } } = env();
    const root = await post(alice.client, { status: 'thread root' });
    const reply = await post(bob.client, { status: '@alice a reply', in_reply_to_id: root.id });
    const muted = await alice.client.post(`/api/v1/statuses/${root.id}/mute`);
    expect(muted.status).toBe(200);
    expect(muted.body.muted).toBe(true);
    // The same thread: the reply shows as muted too, but not for bob.
    expect((await alice.client.get(`/api/v1/statuses/${reply.id}`)).body.muted).toBe(true);
    expect((await bob.client.get(`/api/v1/statuses/${reply.id}`)).body.muted).toBe(false);
    expect((await alice.client.post(`/api/v1/statuses/${reply.id}/mute`)).body.muted).toBe(true);
    const unmuted = await alice.client.post(`/api/v1/statuses/${reply.id}/unmute`);
    expect(unmuted.status).toBe(200);
    expect(unmuted.body.muted).toBe(false);
    expect((await alice.client.get(`/api/v1/statuses/${root.id}`)).body.muted).toBe(false);
    expect((await alice.client.post(`/api/v1/statuses/${root.id}/unmute`)).status).toBe(200);
  });

  it('answers 404 for invisible statuses and checks scopes', async () => {
    const { inst, users: { alice, bob } } = env();
    const hidden = await post(alice.client, { status: 'hidden', visibility: 'private' });
    expect((await bob.client.post(`/api/v1/statuses/${hidden.id}/mute`)).status).toBe(404);
    expect((await bob.client.post('/api/v1/statuses/1/unmute')).status).toBe(404);
    const open = await post(alice.client, { status: 'open' });
    expect((await inst.anon.post(`/api/v1/statuses/${open.id}/mute`)).status).toBe(401);
    expect((await bob.client.post(`/api/v1/statuses/${open.id}/mute`, undefined, { token: inst.tokenFor(bob, 'write:statuses') })).status).toBe(403);
    expect((await bob.client.post(`/api/v1/statuses/${open.id}/mute`, undefined, { token: inst.tokenFor(bob, 'write:mutes') })).status).toBe(200);
  });
});
