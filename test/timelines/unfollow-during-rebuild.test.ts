import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unfollowAccount } from '../../api/core/relationships/follows.js';
import { rebuildHomeFeed } from '../../api/core/timelines/rebuild.js';
import { findAccountById } from '../../api/db/repos/accounts.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { follow, ids, post } from './helpers.js';

/**
 * After an unfollow the home timeline holds none of the unfollowed account's statuses, even when
 * the unfollow lands while the home feed is being rebuilt: the rebuild must not merge them back.
 */
describe('unfollowing while the home feed is rebuilt', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
  });
  afterAll(async () => {
    await inst.close();
  });

  it('the rebuild leaves the unfollowed account out', async () => {
    await follow(alice.client, bob.accountId);
    const said = await post(bob.client, { status: 'bob was here' });
    expect(await ids(alice.client, '/api/v1/timelines/home')).toContain(said.id);

    const rebuild = rebuildHomeFeed(inst.deps, alice.accountId);
    // One turn of the event loop: the rebuild has read whom alice follows, not merged them yet.
    await new Promise((resolve) => setImmediate(resolve));
    const actor = findAccountById(inst.deps.db, alice.accountId);
    if (!actor) throw new Error('alice has no account');
    unfollowAccount(inst.deps, actor, bob.accountId);
    await rebuild;

    const home = await ids(alice.client, '/api/v1/timelines/home');
    expect(home).not.toContain(said.id);
    const rows = inst.deps.db.query<{ n: number }>('SELECT count(*) AS n FROM home_feed WHERE account_id = @a AND status_id = @s').get({ a: alice.accountId, s: said.id });
    expect(rows?.n).toBe(0);
  });

  it('a plain unfollow empties the home timeline of the account, cached pages included', async () => {
    await follow(alice.client, bob.accountId);
    const said = await post(bob.client, { status: 'again' });
    // Read twice: the second answer comes from the page cache.
    expect(await ids(alice.client, '/api/v1/timelines/home')).toContain(said.id);
    expect(await ids(alice.client, '/api/v1/timelines/home')).toContain(said.id);
    expect((await alice.client.post(`/api/v1/accounts/${bob.accountId}/unfollow`)).status).toBe(200);
    expect(await ids(alice.client, '/api/v1/timelines/home')).not.toContain(said.id);
  });
});
