import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installSuggestions } from '../../api/core/suggestions/install.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import {
  count,
  domainBlock,
  favourite,
  follow,
  post,
  reblog,
  relate,
  reply,
  seedRelation,
  seedRemoteAccount,
  seedRemoteStatus,
  setAccount,
  suggestedIds,
  suggestionsV2,
  tick,
  unfollow,
} from './helpers.js';

/**
 * The spec's follow-suggestion rules, one test each, over real HTTP (blocks, mutes and domain
 * blocks through their endpoints, which call the suggestion hooks `onBlocked` / `onMuted`).
 */
describe('follow suggestions: the spec rules', () => {
  let inst: TestInstance;
  let n = 0;
  /** A fresh user, so each rule starts from an empty history. */
  const user = (prefix: string) => inst.createUser(`${prefix}${++n}`);

  beforeAll(async () => {
    inst = await startInstance();
    // createApp will call this once wired; calling it again is harmless.
    installSuggestions(inst.deps);
  });
  afterAll(async () => {
    await inst.close();
  });

  /** `viewer` favourites a fresh status of `target`, making it a candidate. */
  async function interact(viewer: TestUser, target: TestUser): Promise<void> {
    await favourite(viewer.client, await post(target.client, 'hello'));
  }

  describe('rule 1: suspended, blocked, muted, domain-blocked, locked and moved accounts are excluded; accounts already followed are excluded; more recently updated accounts are preferred', () => {
    it('a suspended account is excluded', async () => {
      const [viewer, target] = [await user('v'), await user('t')];
      await interact(viewer, target);
      expect(await suggestedIds(viewer.client)).toEqual([target.accountId]);
      setAccount(inst, target.accountId, { suspended_at: Date.now() });
      expect(await suggestedIds(viewer.client)).toEqual([]);
      setAccount(inst, target.accountId, { suspended_at: null });
      expect(await suggestedIds(viewer.client)).toEqual([target.accountId]);
    });

    it('an account the viewer blocks, or that blocks the viewer, is excluded', async () => {
      const [viewer, target] = [await user('v'), await user('t')];
      await interact(viewer, target);
      // Rows put directly, without the hooks the block action also runs, show the exclusion alone.
      const unblock = seedRelation(inst, 'blocks', viewer.accountId, target.accountId);
      expect(await suggestedIds(viewer.client)).toEqual([]);
      unblock();
      const unblockedBy = seedRelation(inst, 'blocks', target.accountId, viewer.accountId);
      expect(await suggestedIds(viewer.client)).toEqual([]);
      unblockedBy();
      expect(await suggestedIds(viewer.client)).toEqual([target.accountId]);
    });

    it('a muted account is excluded while the mute lasts', async () => {
      const [viewer, target] = [await user('v'), await user('t')];
      await interact(viewer, target);
      // Rows put directly, without the hooks the mute action also runs, show the exclusion alone.
      const unmute = seedRelation(inst, 'mutes', viewer.accountId, target.accountId);
      expect(await suggestedIds(viewer.client)).toEqual([]);
      unmute();
      // An expired mute no longer applies.
      seedRelation(inst, 'mutes', viewer.accountId, target.accountId, { expires_at: Date.now() - 1000 });
      expect(await suggestedIds(viewer.client)).toEqual([target.accountId]);
    });

    it('an account on a domain the viewer blocked is excluded', async () => {
      const viewer = await user('v');
      const remote = seedRemoteAccount(inst, 'remo', 'blocked.example');
      await favourite(viewer.client, seedRemoteStatus(inst, remote));
      expect(await suggestedIds(viewer.client)).toEqual([remote]);
      await domainBlock(viewer.client, 'blocked.example');
      expect(await suggestedIds(viewer.client)).toEqual([]);
      await domainBlock(viewer.client, 'blocked.example', true);
      expect(await suggestedIds(viewer.client)).toEqual([remote]);
    });

    it('a locked account is excluded', async () => {
      const [viewer, target] = [await user('v'), await user('t')];
      await interact(viewer, target);
      expect((await target.client.patch('/api/v1/accounts/update_credentials', { locked: true })).status).toBe(200);
      expect(await suggestedIds(viewer.client)).toEqual([]);
      expect((await target.client.patch('/api/v1/accounts/update_credentials', { locked: false })).status).toBe(200);
      expect(await suggestedIds(viewer.client)).toEqual([target.accountId]);
    });

    it('a moved account is excluded', async () => {
      const [viewer, target, newHome] = [await user('v'), await user('t'), await user('t')];
      await interact(viewer, target);
      setAccount(inst, target.accountId, { moved_to_account_id: newHome.accountId });
      expect(await suggestedIds(viewer.client)).toEqual([]);
    });

    it('an account already followed (or asked to be followed) is excluded, and so is the viewer', async () => {
      const [viewer, target] = [await user('v'), await user('t')];
      await interact(viewer, target);
      // Interactions with oneself make no candidate.
      await favourite(viewer.client, await post(viewer.client, 'mine'));
      expect(await suggestedIds(viewer.client)).toEqual([target.accountId]);
      await follow(viewer.client, target.accountId);
      expect(await suggestedIds(viewer.client)).toEqual([]);
      expect(count(inst, 'suggestion_candidates', `account_id = ${viewer.accountId}`)).toBe(0);
    });

    it('more recently updated accounts are preferred', async () => {
      const [viewer, older, newer] = [await user('v'), await user('t'), await user('t')];
      // Equal weights: one favourite each.
      await interact(viewer, older);
      await interact(viewer, newer);
      await tick();
      expect((await older.client.patch('/api/v1/accounts/update_credentials', { display_name: 'Older' })).status).toBe(200);
      await tick();
      expect((await newer.client.patch('/api/v1/accounts/update_credentials', { display_name: 'Newer' })).status).toBe(200);
      expect(await suggestedIds(viewer.client)).toEqual([newer.accountId, older.accountId]);
      await tick();
      expect((await older.client.patch('/api/v1/accounts/update_credentials', { display_name: 'Older, again' })).status).toBe(200);
      expect(await suggestedIds(viewer.client)).toEqual([older.accountId, newer.accountId]);
    });
  });

  it('rule 2: replying to, favouriting or reblogging an account not followed makes it a candidate, with weights 1 (reply), 10 (favourite) and 20 (reblog)', async () => {
    const [viewer, replied, favourited, reblogged, followed] = [await user('v'), await user('r'), await user('f'), await user('b'), await user('x')];
    await reply(viewer.client, await post(replied.client, 'a question'));
    await favourite(viewer.client, await post(favourited.client, 'nice'));
    await reblog(viewer.client, await post(reblogged.client, 'news'));
    await follow(viewer.client, followed.accountId);
    await reblog(viewer.client, await post(followed.client, 'followed news'));

    const scores = inst.deps.db
      .query<{ target_account_id: string; score: number }>('SELECT target_account_id, score FROM suggestion_candidates WHERE account_id = @account_id')
      .all({ account_id: viewer.accountId });
    expect(Object.fromEntries(scores.map((s) => [s.target_account_id, s.score]))).toEqual({
      [replied.accountId]: 1,
      [favourited.accountId]: 10,
      [reblogged.accountId]: 20,
    });
    expect(await suggestedIds(viewer.client)).toEqual([reblogged.accountId, favourited.accountId, replied.accountId]);
    const v2 = await suggestionsV2(viewer.client);
    expect(v2.map((s) => s.source)).toEqual(['past_interactions', 'past_interactions', 'past_interactions']);

    // Eleven replies (11) outweigh one favourite (10), and stay under one reblog (20).
    const question = await post(replied.client, 'another question');
    for (let i = 0; i < 10; i++) await reply(viewer.client, question);
    expect(await suggestedIds(viewer.client)).toEqual([reblogged.accountId, replied.accountId, favourited.accountId]);
  });

  describe('rule 3: following, muting or blocking an account removes it from the list', () => {
    it('following removes it, and it does not come back from past interactions after an unfollow', async () => {
      const [viewer, target] = [await user('v'), await user('t')];
      await interact(viewer, target);
      await follow(viewer.client, target.accountId);
      expect(await suggestedIds(viewer.client)).toEqual([]);
      await unfollow(viewer.client, target.accountId);
      expect(await suggestedIds(viewer.client)).toEqual([]);
    });

    it('asking to follow (a remote account answers later) removes it too', async () => {
      const viewer = await user('v');
      const remote = seedRemoteAccount(inst, 'far', 'far.example');
      await favourite(viewer.client, seedRemoteStatus(inst, remote));
      expect(await suggestedIds(viewer.client)).toEqual([remote]);
      await follow(viewer.client, remote);
      expect(await suggestedIds(viewer.client)).toEqual([]);
      expect(count(inst, 'suggestion_candidates', `account_id = ${viewer.accountId}`)).toBe(0);
    });

    it('muting removes it, and it stays removed after the unmute', async () => {
      const [viewer, target] = [await user('v'), await user('t')];
      await interact(viewer, target);
      await relate(viewer.client, 'mute', target.accountId);
      expect(await suggestedIds(viewer.client)).toEqual([]);
      await relate(viewer.client, 'unmute', target.accountId);
      expect(await suggestedIds(viewer.client)).toEqual([]);
    });

    it('blocking removes it, and it stays removed after the unblock', async () => {
      const [viewer, target] = [await user('v'), await user('t')];
      await interact(viewer, target);
      await relate(viewer.client, 'block', target.accountId);
      expect(await suggestedIds(viewer.client)).toEqual([]);
      await relate(viewer.client, 'unblock', target.accountId);
      expect(await suggestedIds(viewer.client)).toEqual([]);
    });
  });

  describe("rule 4: when blocking, the suggestion is removed on both sides; muting does not remove it on the target's side", () => {
    it('blocking removes the suggestion on both sides', async () => {
      const [a, b] = [await user('a'), await user('b')];
      await interact(a, b);
      await interact(b, a);
      expect(await suggestedIds(a.client)).toEqual([b.accountId]);
      expect(await suggestedIds(b.client)).toEqual([a.accountId]);
      await relate(a.client, 'block', b.accountId);
      await relate(a.client, 'unblock', b.accountId);
      expect(await suggestedIds(a.client)).toEqual([]);
      expect(await suggestedIds(b.client)).toEqual([]);
    });

    it("muting does not remove it on the target's side", async () => {
      const [a, b] = [await user('a'), await user('b')];
      await interact(a, b);
      await interact(b, a);
      await relate(a.client, 'mute', b.accountId);
      expect(await suggestedIds(a.client)).toEqual([]);
      expect(await suggestedIds(b.client)).toEqual([a.accountId]);
      await relate(a.client, 'unmute', b.accountId);
      expect(await suggestedIds(a.client)).toEqual([]);
      expect(await suggestedIds(b.client)).toEqual([a.accountId]);
    });
  });

  it('rule 5: a cold-start recommendation mechanism also exists (staff-featured, then active local accounts) for a new user', async () => {
    const { featureSuggestedAccount, unfeatureSuggestedAccount } = await import('../../api/core/suggestions/suggest.js');
    const [featured, active, quiet, hidden] = [await user('staffpick'), await user('active'), await user('quiet'), await user('hidden')];
    // Active and discoverable: suggested. Discoverable but never posted, or active but not
    // discoverable: not suggested. Featured: suggested whatever its activity.
    for (const u of [active, quiet]) expect((await u.client.patch('/api/v1/accounts/update_credentials', { discoverable: true })).status).toBe(200);
    await post(active.client, 'I am here');
    await post(hidden.client, 'I am here too, quietly');
    featureSuggestedAccount(inst.deps, featured.accountId);
    try {
      const newcomer = await user('new');
      const v2 = await suggestionsV2(newcomer.client);
      expect(v2).toEqual([
        { id: featured.accountId, source: 'staff', sources: ['featured'] },
        { id: active.accountId, source: 'global', sources: ['most_followed'] },
      ]);
      expect(await suggestedIds(newcomer.client)).toEqual([featured.accountId, active.accountId]);
      // Past interactions come first; the cold start fills the rest of the limit.
      const target = await user('t');
      await interact(newcomer, target);
      expect(await suggestedIds(newcomer.client)).toEqual([target.accountId, featured.accountId, active.accountId]);
      expect(await suggestedIds(newcomer.client, '?limit=1')).toEqual([target.accountId]);
      // The same exclusions apply: a followed featured account is not suggested.
      await follow(newcomer.client, featured.accountId);
      expect(await suggestedIds(newcomer.client)).toEqual([target.accountId, active.accountId]);
    } finally {
      unfeatureSuggestedAccount(inst.deps, featured.accountId);
      setAccount(inst, active.accountId, { discoverable: 0 });
    }
  });
});
