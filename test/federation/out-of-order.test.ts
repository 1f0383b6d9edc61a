import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INBOUND_TOMBSTONE_TTL_MS, isTombstonedInbound, tombstoneInbound } from '../../api/core/federation/tombstones.js';
import { now, resetClock, setClockTo } from '../../api/util/clock.js';
import type { TestUser } from '../helpers/instance.js';
import type { FakeActor } from './fake-remote.js';
import { Rig, type Status } from './inbox-order-rig.js';

/**
 * Inbound activities take effect once, in any order: an Undo or a Delete that arrives before the
 * activity it ends (a peer's retry brought that one late) makes it a no-op when it comes; the
 * normal order still works; nobody can stop another actor's activity.
 */
describe('inbox: out-of-order Undo and Delete', () => {
  let rig: Rig;
  let alice: TestUser;
  let aliceUri: string;
  let post: Status;
  let mona: FakeActor;
  let dave: FakeActor;
  let eve: FakeActor;

  beforeAll(async () => {
    rig = await Rig.start(['127.0.0.71', '127.0.0.72', '127.0.0.73']);
    alice = await rig.inst.createUser('alice');
    aliceUri = rig.uriOf(alice);
    post = (await alice.client.post('/api/v1/statuses', { status: 'alice posts', visibility: 'public' })).body as Status;
    mona = await rig.actor('mona');
    dave = await rig.actor('dave');
    eve = await rig.actor('eve', rig.other);
  });
  afterAll(async () => {
    resetClock();
    await rig.close();
  });

  it('normal order: Follow makes a follower and a notification, its Undo ends it, and a new Follow (new id) follows again', async () => {
    const follow = rig.follow(mona, aliceUri);
    await rig.send(mona, follow);
    expect(await rig.followers(alice)).toEqual([rig.acctOf(mona)]);
    expect(await rig.notifications(alice, 'follow', mona)).toHaveLength(1);
    await rig.send(mona, rig.undo(mona, follow));
    expect(await rig.followers(alice)).toEqual([]);
    await rig.send(mona, rig.follow(mona, aliceUri));
    expect(await rig.followers(alice)).toEqual([rig.acctOf(mona)]);
    // Another Undo of the first Follow (a new id, so Fedify does not drop it) leaves the new follow alone.
    await rig.send(mona, { ...rig.undo(mona, follow), id: `${mona.id}#undo/again` });
    expect(await rig.followers(alice)).toEqual([rig.acctOf(mona)]);
  });

  it('Undo(Follow) before its Follow: no follower and no notification afterwards; a later new Follow still works', async () => {
    const sam = await rig.actor('sam');
    const follow = rig.follow(sam, aliceUri);
    await rig.send(sam, rig.undo(sam, follow));
    await rig.send(sam, follow);
    expect(await rig.followers(alice)).not.toContain(rig.acctOf(sam));
    expect(await rig.notifications(alice, 'follow', sam)).toEqual([]);
    // The tombstone names that Follow's id, not the pair: following again (a new id) is not stopped.
    await rig.send(sam, rig.follow(sam, aliceUri));
    expect(await rig.followers(alice)).toContain(rig.acctOf(sam));
  });

  it('an Undo naming only the Follow id (which cannot be fetched) before the Follow also makes it a no-op', async () => {
    const tim = await rig.actor('tim');
    const follow = rig.follow(tim, aliceUri);
    await rig.send(tim, rig.undo(tim, String(follow.id)));
    await rig.send(tim, follow);
    expect(await rig.followers(alice)).not.toContain(rig.acctOf(tim));
  });

  it('Like then Undo(Like), in order: favourited and then not', async () => {
    const like = rig.like(mona, post.uri);
    await rig.send(mona, like);
    expect((await rig.status(alice, post.id)).favourites_count).toBe(1);
    expect(await rig.notifications(alice, 'favourite', mona)).toHaveLength(1);
    await rig.send(mona, rig.undo(mona, like));
    expect((await rig.status(alice, post.id)).favourites_count).toBe(0);
  });

  it('Undo(Like) before its Like: no favourite, no notification', async () => {
    const like = rig.like(dave, post.uri);
    await rig.send(dave, rig.undo(dave, like));
    await rig.send(dave, like);
    expect((await rig.status(alice, post.id)).favourites_count).toBe(0);
    expect(await rig.notifications(alice, 'favourite', dave)).toEqual([]);
  });

  it('Announce then Undo(Announce), in order: reblogged and then not', async () => {
    const announce = rig.announce(mona, post.uri);
    await rig.send(mona, announce);
    expect((await rig.status(alice, post.id)).reblogs_count).toBe(1);
    expect(await rig.notifications(alice, 'reblog', mona)).toHaveLength(1);
    await rig.send(mona, rig.undo(mona, announce));
    expect((await rig.status(alice, post.id)).reblogs_count).toBe(0);
  });

  it('Undo(Announce) before its Announce: no reblog, no notification', async () => {
    const announce = rig.announce(dave, post.uri);
    await rig.send(dave, rig.undo(dave, announce));
    await rig.send(dave, announce);
    expect((await rig.status(alice, post.id)).reblogs_count).toBe(0);
    expect(rig.statusRow(String(announce.id))).toBeUndefined();
    expect(await rig.notifications(alice, 'reblog', dave)).toEqual([]);
  });

  it('Block and Undo(Block): in order blocked and then not; the Undo first leaves no block and keeps the follow', async () => {
    const bo = await rig.actor('bo');
    await rig.send(bo, rig.follow(bo, aliceUri));
    const id = (await rig.remote(alice, bo)).id;
    const first = rig.block(bo, aliceUri);
    await rig.send(bo, first);
    expect((await rig.relationship(alice, id)).blocked_by).toBe(true);
    await rig.send(bo, rig.undo(bo, first));
    expect((await rig.relationship(alice, id)).blocked_by).toBe(false);
    await rig.send(bo, rig.follow(bo, aliceUri));
    const late = rig.block(bo, aliceUri);
    await rig.send(bo, rig.undo(bo, late));
    await rig.send(bo, late);
    expect(await rig.relationship(alice, id)).toMatchObject({ blocked_by: false, followed_by: true });
  });

  it('Create, Update, Delete in order: stored, edited, gone', async () => {
    const { create, note, id } = rig.note(mona, 'first words');
    await rig.send(mona, create);
    const row = rig.statusRow(id);
    expect(row).toBeDefined();
    await rig.send(mona, rig.update(mona, note, 'second words'));
    expect((await rig.status(alice, row?.id ?? '')).content).toContain('second words');
    await rig.send(mona, rig.del(mona, id));
    expect(rig.statusRow(id)).toBeUndefined();
  });

  it('Delete before its Create, the Note mentioning a local user: no status and no mention notification', async () => {
    const { create, id } = rig.note(dave, 'you will never see this', alice);
    await rig.send(dave, rig.del(dave, id));
    await rig.send(dave, create);
    expect(rig.statusRow(id)).toBeUndefined();
    expect(await rig.notifications(alice, 'mention', dave)).toEqual([]);
    expect((await rig.account(alice, (await rig.remote(alice, dave)).id)).statuses_count).toBe(0);
  });

  it('Delete before its Update and Create: nothing is stored', async () => {
    const { create, note, id } = rig.note(mona, 'draft');
    await rig.send(mona, rig.del(mona, id));
    await rig.send(mona, rig.update(mona, note, 'edited draft'));
    await rig.send(mona, create);
    expect(rig.statusRow(id)).toBeUndefined();
  });

  it('a Delete from an actor never seen before (its first contact) still makes its later Create a no-op', async () => {
    const newcomer = await rig.actor('newcomer');
    const { create, id } = rig.note(newcomer, 'hello?', alice);
    await rig.send(newcomer, rig.del(newcomer, id));
    await rig.send(newcomer, create);
    expect(rig.statusRow(id)).toBeUndefined();
    expect(await rig.notifications(alice, 'mention', newcomer)).toEqual([]);
  });

  it("another actor cannot tombstone someone else's activity or post: same server or another one", async () => {
    const ann = await rig.actor('ann');
    const follow = rig.follow(ann, aliceUri);
    // dave (same server) undoes ann's Follow id; eve (another server) embeds it with ann as actor.
    await rig.send(dave, rig.undo(dave, String(follow.id)));
    await rig.send(eve, { ...rig.undo(eve, follow), id: `${eve.id}#undo/1` });
    await rig.send(ann, follow);
    expect(await rig.followers(alice)).toContain(rig.acctOf(ann));
    const { create, id } = rig.note(ann, 'still here', alice);
    await rig.send(dave, rig.del(dave, id));
    await rig.send(eve, { ...rig.del(eve, id), id: `${eve.id}#delete/1` });
    await rig.send(ann, create);
    expect(rig.statusRow(id)).toBeDefined();
    expect(await rig.notifications(alice, 'mention', ann)).toHaveLength(1);
    // dave's tombstones bind only dave; eve's (another origin) were refused outright.
    const rows = rig.inst.deps.db.query<{ actor_uri: string }>('SELECT actor_uri FROM inbound_tombstones WHERE uri IN (?, ?) ORDER BY actor_uri').all(String(follow.id), id);
    expect(rows.map((r) => r.actor_uri)).toEqual([dave.id, dave.id]);
  });

  it('a known actor that deleted itself: its later Create and Follow (late retries) change nothing', async () => {
    const gone = await rig.actor('gone');
    const { create: early, id: earlyId } = rig.note(gone, 'before');
    await rig.send(gone, early);
    expect(rig.statusRow(earlyId)).toBeDefined();
    await rig.send(gone, rig.deleteSelf(gone));
    expect(rig.statusRow(earlyId)).toBeUndefined();
    const { create, id } = rig.note(gone, 'after', alice);
    await rig.send(gone, create);
    await rig.send(gone, rig.follow(gone, aliceUri));
    expect(rig.statusRow(id)).toBeUndefined();
    expect(await rig.followers(alice)).not.toContain(rig.acctOf(gone));
  });

  it('an actor never seen that deleted itself: its Follow arriving afterwards changes nothing', async () => {
    const ghost = await rig.actor('ghost');
    await rig.send(ghost, rig.deleteSelf(ghost));
    await rig.send(ghost, rig.follow(ghost, aliceUri));
    expect(await rig.followers(alice)).not.toContain(rig.acctOf(ghost));
    expect(await rig.notifications(alice, 'follow', ghost)).toEqual([]);
  });

  it('tombstones bind for 30 days, are pruned when a later one is written, and only for their own origin', () => {
    const deps = rig.inst.deps;
    const uri = `${mona.id}#likes/prune-me`;
    const start = now();
    try {
      expect(tombstoneInbound(deps, uri, mona.id)).toBe(true);
      // Refused: an id on another origin than the actor.
      expect(tombstoneInbound(deps, `${eve.id}#likes/1`, mona.id)).toBe(false);
      expect(isTombstonedInbound(deps, `${eve.id}#likes/1`, mona.id)).toBe(false);
      setClockTo(start + INBOUND_TOMBSTONE_TTL_MS - 60_000);
      expect(isTombstonedInbound(deps, uri, mona.id)).toBe(true);
      setClockTo(start + INBOUND_TOMBSTONE_TTL_MS + 60_000);
      expect(isTombstonedInbound(deps, uri, mona.id)).toBe(false);
      const count = () => deps.db.query<{ n: number }>('SELECT count(*) AS n FROM inbound_tombstones WHERE uri = ?').get(uri)?.n;
      expect(count()).toBe(1);
      tombstoneInbound(deps, `${mona.id}#likes/later`, mona.id);
      expect(count()).toBe(0);
    } finally {
      resetClock();
    }
  });
});
