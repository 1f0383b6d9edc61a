import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestUser } from '../helpers/instance.js';
import type { FakeActor } from './fake-remote.js';
import { eventually } from './helpers.js';
import { Rig, type Status } from './inbox-order-rig.js';

/**
 * Exactly once in effect beyond Fedify's one-day idempotence: each activity is delivered again
 * after its marks were removed (as when they expired), and `rig.replay` checks that a listener
 * really handled it the second time. An activity undone or deleted in between does not come back;
 * one applied twice changes nothing the second time.
 */
describe('inbox: replays after Fedify forgot an activity', () => {
  let rig: Rig;
  let alice: TestUser;
  let bob: TestUser;
  let aliceUri: string;
  let bobUri: string;
  let post: Status;

  beforeAll(async () => {
    rig = await Rig.start(['127.0.0.74', '127.0.0.75', '127.0.0.76']);
    alice = await rig.inst.createUser('alice');
    bob = await rig.inst.createUser('bob');
    aliceUri = rig.uriOf(alice);
    bobUri = rig.uriOf(bob);
    post = (await alice.client.post('/api/v1/statuses', { status: 'alice posts', visibility: 'public' })).body as Status;
  });
  afterAll(async () => {
    await rig.close();
  });

  describe('after its Undo or Delete', () => {
    let mona: FakeActor;
    beforeAll(async () => {
      mona = await rig.actor('mona');
    });

    it('a Follow with the id of an undone follow follows again (Misskey gives every follow of a pair one id)', async () => {
      const follow = rig.follow(mona, aliceUri);
      await rig.send(mona, follow);
      expect(await rig.followers(alice)).toEqual([rig.acctOf(mona)]);
      // The Undo takes the notification away with the follow (as Mastodon does).
      await rig.send(mona, rig.undo(mona, follow));
      expect(await rig.followers(alice)).toEqual([]);
      expect(await rig.notifications(alice, 'follow', mona)).toEqual([]);
      // The same Follow again is a new follow: a replay of the relay's is caught by its sequence
      // number (test/relay), and a peer's repeated body by the relay's 14-day window.
      await rig.replay(mona, follow);
      expect(await rig.followers(alice)).toEqual([rig.acctOf(mona)]);
      await rig.send(mona, rig.undo(mona, follow));
    });

    it('an Undo(Follow) replayed after a new Follow does not end the new follow', async () => {
      const old = rig.follow(mona, aliceUri);
      await rig.send(mona, old);
      const undo = rig.undo(mona, old);
      await rig.send(mona, undo);
      await rig.send(mona, rig.follow(mona, aliceUri));
      expect(await rig.followers(alice)).toEqual([rig.acctOf(mona)]);
      await rig.replay(mona, undo);
      expect(await rig.followers(alice)).toEqual([rig.acctOf(mona)]);
    });

    it('a Create replayed after its Delete does not bring the post back (nor its mention)', async () => {
      const { create, id } = rig.note(mona, 'short-lived', alice);
      await rig.send(mona, create);
      expect(rig.statusRow(id)).toBeDefined();
      expect(await rig.notifications(alice, 'mention', mona)).toHaveLength(1);
      await rig.send(mona, rig.del(mona, id));
      expect(rig.statusRow(id)).toBeUndefined();
      await rig.replay(mona, create);
      expect(rig.statusRow(id)).toBeUndefined();
      expect(await rig.notifications(alice, 'mention', mona)).toEqual([]);
    });

    it('a Like replayed after its Undo does not favourite again', async () => {
      const like = rig.like(mona, post.uri);
      await rig.send(mona, like);
      expect((await rig.status(alice, post.id)).favourites_count).toBe(1);
      expect(await rig.notifications(alice, 'favourite', mona)).toHaveLength(1);
      await rig.send(mona, rig.undo(mona, like));
      await rig.replay(mona, like);
      expect((await rig.status(alice, post.id)).favourites_count).toBe(0);
      expect(await rig.notifications(alice, 'favourite', mona)).toEqual([]);
    });

    it('an Announce replayed after its Undo does not reblog again', async () => {
      const announce = rig.announce(mona, post.uri);
      await rig.send(mona, announce);
      expect((await rig.status(alice, post.id)).reblogs_count).toBe(1);
      expect(await rig.notifications(alice, 'reblog', mona)).toHaveLength(1);
      await rig.send(mona, rig.undo(mona, announce));
      await rig.replay(mona, announce);
      expect((await rig.status(alice, post.id)).reblogs_count).toBe(0);
      expect(rig.statusRow(String(announce.id))).toBeUndefined();
      expect(await rig.notifications(alice, 'reblog', mona)).toEqual([]);
    });

    it('a Block replayed after its Undo does not block again', async () => {
      const bo = await rig.actor('bo');
      const block = rig.block(bo, aliceUri);
      await rig.send(bo, block);
      const id = (await rig.remote(alice, bo)).id;
      expect((await rig.relationship(alice, id)).blocked_by).toBe(true);
      await rig.send(bo, rig.undo(bo, block));
      await rig.replay(bo, block);
      expect((await rig.relationship(alice, id)).blocked_by).toBe(false);
    });
  });

  describe('applied twice', () => {
    it('Create: one status, one mention notification, one count', async () => {
      const ivy = await rig.actor('ivy');
      const { create, id } = rig.note(ivy, 'once only', bob);
      await rig.send(ivy, create);
      await rig.replay(ivy, create);
      expect(rig.inst.deps.db.query<{ n: number }>('SELECT count(*) AS n FROM statuses WHERE uri = ?').get(id)?.n).toBe(1);
      expect(await rig.notifications(bob, 'mention', ivy)).toHaveLength(1);
      expect((await rig.account(bob, (await rig.remote(bob, ivy)).id)).statuses_count).toBe(1);
    });

    it('Like: one favourite, one notification', async () => {
      const lu = await rig.actor('lu');
      const like = rig.like(lu, post.uri);
      const before = (await rig.status(alice, post.id)).favourites_count;
      await rig.send(lu, like);
      await rig.replay(lu, like);
      expect((await rig.status(alice, post.id)).favourites_count).toBe(before + 1);
      expect(await rig.notifications(alice, 'favourite', lu)).toHaveLength(1);
    });

    it('Announce: one reblog, one notification, one count', async () => {
      const ray = await rig.actor('ray');
      const announce = rig.announce(ray, post.uri);
      const before = (await rig.status(alice, post.id)).reblogs_count;
      await rig.send(ray, announce);
      await rig.replay(ray, announce);
      expect((await rig.status(alice, post.id)).reblogs_count).toBe(before + 1);
      expect(await rig.notifications(alice, 'reblog', ray)).toHaveLength(1);
      expect((await rig.account(alice, (await rig.remote(alice, ray)).id)).statuses_count).toBe(1);
    });

    it('Follow: one follower, one notification, counts moved once', async () => {
      const fay = await rig.actor('fay');
      const follow = rig.follow(fay, bobUri);
      await rig.send(fay, follow);
      await rig.replay(fay, follow);
      expect(await rig.followers(bob)).toEqual([rig.acctOf(fay)]);
      expect((await rig.account(bob)).followers_count).toBe(1);
      expect(await rig.notifications(bob, 'follow', fay)).toHaveLength(1);
    });

    it('Accept: the follow is made once, counts moved once', async () => {
      const rue = await rig.actor('rue');
      await rig.send(rue, rig.note(rue, 'introducing myself').create);
      const id = (await rig.remote(bob, rue)).id;
      const following = (await rig.account(bob)).following_count;
      expect((await rig.relationship(bob, id)).following).toBe(false);
      await bob.client.post(`/api/v1/accounts/${id}/follow`);
      const follow = await eventually(() => rig.masto.deliveries('Follow').find((f) => f.actor === bobUri && f.object === rue.id));
      const accept = { '@context': 'https://www.w3.org/ns/activitystreams', id: `${rue.id}#accepts/follows/1`, type: 'Accept', actor: rue.id, object: follow };
      await rig.send(rue, accept);
      expect((await rig.relationship(bob, id)).following).toBe(true);
      await rig.replay(rue, accept);
      expect((await rig.relationship(bob, id)).following).toBe(true);
      expect((await rig.account(bob)).following_count).toBe(following + 1);
      expect(rig.inst.deps.db.query<{ n: number }>('SELECT count(*) AS n FROM follows WHERE account_id = ? AND target_account_id = ?').get(bob.accountId, id)?.n).toBe(1);
    });

    it('Block: blocked once', async () => {
      const kit = await rig.actor('kit');
      const block = rig.block(kit, bobUri);
      await rig.send(kit, block);
      await rig.replay(kit, block);
      const id = (await rig.remote(bob, kit)).id;
      expect((await rig.relationship(bob, id)).blocked_by).toBe(true);
      expect(rig.inst.deps.db.query<{ n: number }>('SELECT count(*) AS n FROM blocks WHERE account_id = ?').get(id)?.n).toBe(1);
    });

    it('Move: local followers move once, no second Follow to the new account', async () => {
      const mover = await rig.actor('mover');
      const mover2 = await rig.actor('mover2', rig.masto, { alsoKnownAs: [`${rig.masto.origin}/users/mover`] });
      await rig.send(mover, rig.note(mover, 'moving soon').create);
      const oldId = (await rig.remote(bob, mover)).id;
      await bob.client.post(`/api/v1/accounts/${oldId}/follow`);
      const follow = await eventually(() => rig.masto.deliveries('Follow').find((f) => f.actor === bobUri && f.object === mover.id));
      await rig.send(mover, { '@context': 'https://www.w3.org/ns/activitystreams', id: `${mover.id}#accepts/follows/1`, type: 'Accept', actor: mover.id, object: follow });
      const following = (await rig.account(bob)).following_count;
      const move = { '@context': 'https://www.w3.org/ns/activitystreams', id: `${mover.id}#moves/1`, type: 'Move', actor: mover.id, object: mover.id, target: mover2.id };
      await rig.send(mover, move);
      const newId = (await rig.remote(bob, mover2)).id;
      const toMover2 = () => rig.masto.deliveries('Follow').filter((f) => f.actor === bobUri && f.object === mover2.id);
      await eventually(() => toMover2().length === 1);
      await rig.replay(mover, move);
      expect(await rig.relationship(bob, newId)).toMatchObject({ requested: true, following: false });
      expect(await rig.relationship(bob, oldId)).toMatchObject({ requested: false, following: false });
      expect((await rig.account(bob)).following_count).toBe(following - 1);
      expect(rig.inst.deps.db.query<{ n: number }>('SELECT count(*) AS n FROM follow_requests WHERE account_id = ?').get(bob.accountId)?.n).toBe(1);
      // Give a second Follow (there must be none) the time to be delivered.
      await new Promise((r) => setTimeout(r, 500));
      expect(toMover2()).toHaveLength(1);
    });
  });
});
