import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installSuggestions } from '../../api/core/suggestions/install.js';
import { featureSuggestedAccount, unfeatureSuggestedAccount } from '../../api/core/suggestions/suggest.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { count, favourite, post, suggestedIds, suggestionsV2 } from './helpers.js';

describe('follow suggestion endpoints', () => {
  let inst: TestInstance;
  let viewer: TestUser;
  let targets: TestUser[];

  beforeAll(async () => {
    inst = await startInstance();
    installSuggestions(inst.deps);
    viewer = await inst.createUser('viewer');
    targets = [];
    for (const name of ['tara', 'tom', 'tess']) {
      const t = await inst.createUser(name);
      targets.push(t);
      await favourite(viewer.client, await post(t.client, `hello from ${name}`));
    }
  });
  afterAll(async () => {
    await inst.close();
  });

  it('GET /api/v1/suggestions answers Account entities; /api/v2/suggestions answers Suggestion entities', async () => {
    const v1 = await viewer.client.get('/api/v1/suggestions');
    expect(v1.status).toBe(200);
    expect(v1.body.map((a: { id: string }) => a.id).sort()).toEqual(targets.map((t) => t.accountId).sort());
    expect(v1.body[0]).toMatchObject({ username: expect.any(String), acct: expect.any(String), display_name: expect.any(String) });

    const v2 = await viewer.client.get('/api/v2/suggestions');
    expect(v2.status).toBe(200);
    expect(v2.body).toHaveLength(3);
    for (const s of v2.body) {
      expect(s).toEqual({ source: 'past_interactions', sources: [], account: expect.objectContaining({ id: expect.any(String) }) });
    }
  });

  it('limit: defaults to 40, at most 80, 0 answers nothing, and so does a non-number (Ruby reads it as 0)', async () => {
    expect(await suggestedIds(viewer.client, '?limit=2')).toHaveLength(2);
    expect(await suggestedIds(viewer.client, '?limit=500')).toHaveLength(3);
    expect(await suggestedIds(viewer.client, '?limit=0')).toEqual([]);
    const bad = await viewer.client.get('/api/v1/suggestions?limit=many');
    expect(bad.status).toBe(200);
    expect(bad.body).toEqual([]);
  });

  it('DELETE /api/v1/suggestions/:account_id removes a suggestion for good, from every source', async () => {
    const [gone] = targets as [TestUser];
    const res = await viewer.client.delete(`/api/v1/suggestions/${gone.accountId}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(await suggestedIds(viewer.client)).not.toContain(gone.accountId);
    // Interacting again or staff featuring it does not bring it back.
    await favourite(viewer.client, await post(gone.client, 'still here'));
    featureSuggestedAccount(inst.deps, gone.accountId);
    try {
      expect(await suggestedIds(viewer.client)).not.toContain(gone.accountId);
      expect((await suggestionsV2(viewer.client)).map((s) => s.id)).not.toContain(gone.accountId);
    } finally {
      unfeatureSuggestedAccount(inst.deps, gone.accountId);
    }
  });

  it('DELETE of an id that is no suggestion, no account or no id at all still answers 200 and writes nothing', async () => {
    const before = count(inst, 'suggestion_dismissals');
    for (const id of ['999999999', 'not-an-id']) {
      const res = await viewer.client.delete(`/api/v1/suggestions/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
    }
    expect(count(inst, 'suggestion_dismissals')).toBe(before);
  });

  it('needs a user token (401 without) with read:accounts (403 otherwise); dismissing also takes write:accounts', async () => {
    expect((await inst.anon.get('/api/v1/suggestions')).status).toBe(401);
    expect((await inst.anon.get('/api/v2/suggestions')).status).toBe(401);
    expect((await inst.anon.delete(`/api/v1/suggestions/${viewer.accountId}`)).status).toBe(401);
    expect((await viewer.client.get('/api/v1/suggestions', { token: 'nope' })).status).toBe(401);

    const wrong = inst.tokenFor(viewer, 'read:statuses write:statuses');
    expect((await viewer.client.get('/api/v1/suggestions', { token: wrong })).status).toBe(403);
    expect((await viewer.client.get('/api/v2/suggestions', { token: wrong })).status).toBe(403);
    expect((await viewer.client.delete(`/api/v1/suggestions/${viewer.accountId}`, { token: wrong })).status).toBe(403);

    const read = inst.tokenFor(viewer, 'read:accounts');
    expect((await viewer.client.get('/api/v2/suggestions', { token: read })).status).toBe(200);
    const write = inst.tokenFor(viewer, 'write:accounts');
    const [, second] = targets as [TestUser, TestUser];
    expect((await viewer.client.delete(`/api/v1/suggestions/${second.accountId}`, { token: write })).status).toBe(200);
    expect(await suggestedIds(viewer.client)).not.toContain(second.accountId);
  });
});
