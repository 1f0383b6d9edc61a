import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { announceEndedPolls } from '../../api/core/polls/expiry.js';
import { updateAccount } from '../../api/db/repos/accounts.js';
import { now, resetClock, setClockTo } from '../../api/util/clock.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { clear, follow, notificationsOf, post, typesOf } from './helpers.js';

describe('notifications: each type, never to oneself', () => {
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
  afterEach(async () => {
    resetClock();
    for (const u of [alice, bob, carol]) await clear(u);
  });
  afterAll(async () => {
    await inst.close();
  });

  it('mention: one per mentioned local account, with the status; none for mentioning yourself', async () => {
    const status = await post(bob, '@alice @carol @bob hello');
    const [n] = await notificationsOf(alice);
    expect(n).toMatchObject({ type: 'mention', account: { id: bob.accountId }, status: { id: status.id } });
    expect(n.group_key).toBe(`ungrouped-${n.id}`);
    expect(await typesOf(carol)).toEqual(['mention']);
    expect(await typesOf(bob)).toEqual([]);
    // A private mention reaches the mentioned, who can see it; from someone alice does not follow,
    // the default notification policy files it under requests (filtered) rather than in the list.
    await post(bob, '@alice secret', { visibility: 'direct' });
    expect(await typesOf(alice)).toEqual(['mention']);
    expect(await typesOf(alice, 'include_filtered=true')).toEqual(['mention', 'mention']);
  });

  it('mention: an edit that adds a mention notifies the newly mentioned only', async () => {
    const status = await post(bob, '@alice first');
    expect(await typesOf(alice)).toEqual(['mention']);
    const edited = await bob.client.put(`/api/v1/statuses/${status.id}`, { status: '@alice @carol second' });
    expect(edited.status).toBe(200);
    expect(await typesOf(alice)).toEqual(['mention']);
    expect(await typesOf(carol)).toEqual(['mention']);
  });

  it('status: followers who asked to be notified hear of new posts, not of replies to others or reblogs', async () => {
    await follow(alice, bob, { notify: true });
    await follow(carol, bob);
    const status = await post(bob, 'news');
    const [n] = await notificationsOf(alice);
    expect(n).toMatchObject({ type: 'status', account: { id: bob.accountId }, status: { id: status.id } });
    expect(await typesOf(carol)).toEqual([]);

    const carolsPost = await post(carol, 'question');
    await post(bob, '@carol answer', { in_reply_to_id: carolsPost.id });
    // A thread of one's own still notifies.
    await post(bob, 'more news', { in_reply_to_id: status.id });
    expect((await bob.client.post(`/api/v1/statuses/${carolsPost.id}/reblog`)).status).toBe(200);
    expect(await typesOf(alice)).toEqual(['status', 'status']);

    // Only in the languages the follow asks for.
    await follow(alice, bob, { languages: ['de'] });
    await post(bob, 'in English', { language: 'en' });
    await post(bob, 'auf Deutsch', { language: 'de' });
    expect(await typesOf(alice)).toEqual(['status', 'status', 'status']);
    await alice.client.post(`/api/v1/accounts/${bob.accountId}/unfollow`);
    await carol.client.post(`/api/v1/accounts/${bob.accountId}/unfollow`);
  });

  it('favourite and reblog: to the author, removed when undone, never for your own status', async () => {
    const status = await post(alice, 'like me');
    await bob.client.post(`/api/v1/statuses/${status.id}/favourite`);
    const boost = await carol.client.post(`/api/v1/statuses/${status.id}/reblog`);
    expect(boost.status).toBe(200);
    const list = await notificationsOf(alice);
    expect(list.map((n) => [n.type, n.account.id, n.status.id])).toEqual([
      ['reblog', carol.accountId, status.id],
      ['favourite', bob.accountId, status.id],
    ]);
    expect(list[0].group_key).toMatch(new RegExp(`^reblog-${status.id}-\\d+$`));
    expect(list[1].group_key).toMatch(new RegExp(`^favourite-${status.id}-\\d+$`));

    await alice.client.post(`/api/v1/statuses/${status.id}/favourite`);
    await alice.client.post(`/api/v1/statuses/${status.id}/reblog`);
    expect(await typesOf(alice)).toEqual(['reblog', 'favourite']);

    await bob.client.post(`/api/v1/statuses/${status.id}/unfavourite`);
    await carol.client.post(`/api/v1/statuses/${status.id}/unreblog`);
    expect(await typesOf(alice)).toEqual([]);
  });

  it('follow and follow_request: to the followed account, gone when unfollowed or withdrawn', async () => {
    await follow(bob, alice);
    const [n] = await notificationsOf(alice);
    expect(n).toMatchObject({ type: 'follow', account: { id: bob.accountId } });
    expect(n.status).toBeUndefined();
    expect(n.group_key).toMatch(/^follow-\d+$/);
    await bob.client.post(`/api/v1/accounts/${alice.accountId}/unfollow`);
    expect(await typesOf(alice)).toEqual([]);

    await carol.client.patch('/api/v1/accounts/update_credentials', { locked: true });
    await follow(bob, carol);
    expect(await typesOf(carol)).toEqual(['follow_request']);
    await bob.client.post(`/api/v1/accounts/${carol.accountId}/unfollow`);
    expect(await typesOf(carol)).toEqual([]);
    await carol.client.patch('/api/v1/accounts/update_credentials', { locked: false });
  });

  it('update: a status you reblogged was edited; a later edit replaces the earlier notification', async () => {
    const status = await post(bob, 'version 1');
    await alice.client.post(`/api/v1/statuses/${status.id}/reblog`);
    await bob.client.post(`/api/v1/statuses/${status.id}/reblog`);
    expect((await bob.client.put(`/api/v1/statuses/${status.id}`, { status: 'version 2' })).status).toBe(200);
    const [first] = await notificationsOf(alice);
    expect(first).toMatchObject({ type: 'update', account: { id: bob.accountId }, status: { id: status.id, content: expect.stringContaining('version 2') } });
    expect((await bob.client.put(`/api/v1/statuses/${status.id}`, { status: 'version 3' })).status).toBe(200);
    const after = await notificationsOf(alice);
    expect(after).toHaveLength(1);
    expect(after[0].id).not.toBe(first.id);
    expect(after[0].status.content).toContain('version 3');
    // The author's own reblog does not notify the author.
    expect(await typesOf(bob)).toEqual(['reblog']);
  });

  it('poll: voters and the author hear when it ends', async () => {
    const status = await post(alice, 'Tea or coffee?', { poll: { options: ['tea', 'coffee'], expires_in: 300 } });
    const vote = await bob.client.post(`/api/v1/polls/${status.poll.id}/votes`, { choices: ['1'] });
    expect(vote.status).toBe(200);
    setClockTo(now() + 301_000);
    expect(announceEndedPolls(inst.deps)).toBeGreaterThanOrEqual(1);
    resetClock();
    const mine = await notificationsOf(alice);
    expect(mine.map((n) => [n.type, n.account.id, n.status.id])).toEqual([['poll', alice.accountId, status.id]]);
    const bobs = await notificationsOf(bob);
    expect(bobs.map((n) => [n.type, n.account.id, n.status.id])).toEqual([['poll', alice.accountId, status.id]]);
    expect(await typesOf(carol)).toEqual([]);
  });

  it('a muted conversation sends no notifications about its statuses', async () => {
    const status = await post(alice, 'thread start');
    expect((await alice.client.post(`/api/v1/statuses/${status.id}/mute`)).status).toBe(200);
    await post(bob, '@alice a reply', { in_reply_to_id: status.id });
    await bob.client.post(`/api/v1/statuses/${status.id}/favourite`);
    expect(await typesOf(alice)).toEqual([]);
    await alice.client.post(`/api/v1/statuses/${status.id}/unmute`);
    await carol.client.post(`/api/v1/statuses/${status.id}/favourite`);
    expect(await typesOf(alice)).toEqual(['favourite']);
  });

  it('following a group account does not notify it', async () => {
    const group = await inst.createUser('familygroup');
    updateAccount(inst.deps.db, group.accountId, { actor_type: 'Group' });
    await follow(bob, group);
    expect(await typesOf(group)).toEqual([]);
    await follow(bob, carol);
    expect(await typesOf(carol)).toEqual(['follow']);
    await bob.client.post(`/api/v1/accounts/${carol.accountId}/unfollow`);
  });

  it('admin.sign_up: staff hear of new accounts, users do not', async () => {
    const admin = await inst.createUser('boss', { role: 'admin' });
    const mod = await inst.createUser('moddy', { role: 'moderator' });
    const newcomer = await inst.createUser('newcomer');
    const [n] = await notificationsOf(admin);
    expect(n).toMatchObject({ type: 'admin.sign_up', account: { id: newcomer.accountId } });
    expect(n.group_key).toMatch(/^admin\.sign_up-\d+$/);
    // The moderator was created after the admin, so the admin heard of both; nobody of themself.
    expect(await typesOf(admin)).toEqual(['admin.sign_up', 'admin.sign_up']);
    expect(await typesOf(mod)).toEqual(['admin.sign_up']);
    expect(await typesOf(alice)).toEqual([]);
    expect(await typesOf(newcomer)).toEqual([]);
  });
});
