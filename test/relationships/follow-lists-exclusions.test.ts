import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { act, ids } from './helpers.js';

/**
 * Followers and following lists as Mastodon answers them to a viewer: the accounts the viewer
 * blocks, is blocked by or mutes are left out (`not_excluded_by_account`), and an account that
 * blocks the viewer shows them empty lists (`hide_results?`). Pages stay full past the hidden ones.
 */
describe('followers and following lists leave out what the viewer excludes', () => {
  let inst: TestInstance;
  let viewer: TestUser;
  let star: TestUser;
  let blocked: TestUser;
  let blocker: TestUser;
  let muted: TestUser;
  let plain: TestUser;
  let other: TestUser;

  beforeAll(async () => {
    inst = await startInstance();
    viewer = await inst.createUser('viewer');
    star = await inst.createUser('star');
    blocked = await inst.createUser('blocked');
    blocker = await inst.createUser('blocker');
    muted = await inst.createUser('muted');
    plain = await inst.createUser('plain');
    other = await inst.createUser('other');
    // Everyone follows the star, and the star follows them back.
    for (const u of [blocked, blocker, muted, plain]) {
      await act(u, 'follow', star.accountId);
      await act(star, 'follow', u.accountId);
    }
    await act(viewer, 'block', blocked.accountId);
    await act(blocker, 'block', viewer.accountId);
    await act(viewer, 'mute', muted.accountId);
  });
  afterAll(async () => {
    await inst.close();
  });

  it('hides accounts the viewer blocks, mutes or is blocked by, in both lists', async () => {
    const everyone = [blocked, blocker, muted, plain].map((u) => u.accountId).sort();
    // Anonymous viewers and others see everyone.
    expect((await ids(inst.anon, `/api/v1/accounts/${star.accountId}/followers`)).sort()).toEqual(everyone);
    expect((await ids(other.client, `/api/v1/accounts/${star.accountId}/following`)).sort()).toEqual(everyone);
    expect(await ids(viewer.client, `/api/v1/accounts/${star.accountId}/followers`)).toEqual([plain.accountId]);
    expect(await ids(viewer.client, `/api/v1/accounts/${star.accountId}/following`)).toEqual([plain.accountId]);
  });

  it('a page is filled past the hidden accounts', async () => {
    // The newest follower is one the viewer blocks: a page of one still holds a visible account.
    const late = await inst.createUser('late');
    await act(late, 'follow', star.accountId);
    await act(viewer, 'block', late.accountId);
    const first = await viewer.client.get(`/api/v1/accounts/${star.accountId}/followers?limit=1`);
    expect(first.body.map((a: { id: string }) => a.id)).toEqual([plain.accountId]);
    expect((await inst.anon.get(`/api/v1/accounts/${star.accountId}/followers?limit=1`)).body[0].id).toBe(late.accountId);
  });

  it('an account that blocks the viewer shows them empty lists', async () => {
    await act(blocker, 'follow', plain.accountId);
    expect((await ids(other.client, `/api/v1/accounts/${blocker.accountId}/following`)).length).toBeGreaterThan(0);
    expect(await ids(viewer.client, `/api/v1/accounts/${blocker.accountId}/following`)).toEqual([]);
    expect(await ids(viewer.client, `/api/v1/accounts/${blocker.accountId}/followers`)).toEqual([]);
    expect((await viewer.client.get(`/api/v1/accounts/${blocker.accountId}/followers`)).status).toBe(200);
  });

  it('an ended mute hides nothing any more', async () => {
    await act(viewer, 'unmute', muted.accountId);
    expect((await ids(viewer.client, `/api/v1/accounts/${star.accountId}/followers`)).sort()).toEqual([muted.accountId, plain.accountId].sort());
  });
});
