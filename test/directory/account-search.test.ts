import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { follow, seedRelation, seedRemoteAccount, setAccount } from '../suggestions/helpers.js';

describe('GET /api/v1/accounts/search', () => {
  let inst: TestInstance;
  let viewer: TestUser;
  let robin: TestUser;
  let roberta: TestUser;
  let ann: TestUser;
  let remoteRobin: string;

  async function search(query: string, client = viewer.client): Promise<string[]> {
    const res = await client.get(`/api/v1/accounts/search?${query}`);
    expect(res.status, res.text).toBe(200);
    return (res.body as { id: string }[]).map((a) => a.id);
  }

  beforeAll(async () => {
    inst = await startInstance();
    viewer = await inst.createUser('viewer');
    robin = await inst.createUser('robin');
    roberta = await inst.createUser('roberta');
    ann = await inst.createUser('ann');
    expect((await ann.client.patch('/api/v1/accounts/update_credentials', { display_name: 'Dr Robotnik' })).status).toBe(200);
    remoteRobin = seedRemoteAccount(inst, 'robin', 'birds.example');
  });
  afterAll(async () => {
    await inst.close();
  });

  it('matches username, acct and display name prefix, the exact handle first', async () => {
    const found = await search('q=robin');
    // The exact local handle first, then the remote robin (exact username, other domain) and the prefixes.
    expect(found[0]).toBe(robin.accountId);
    expect(found.sort()).toEqual([robin.accountId, remoteRobin].sort());
    expect((await search('q=rob')).sort()).toEqual([robin.accountId, roberta.accountId, remoteRobin, ann.accountId].sort());
    // acct: user@domain, remote and local (this instance's own domain).
    expect(await search('q=robin@birds')).toEqual([remoteRobin]);
    expect(await search(`q=${encodeURIComponent(`@robin@${new URL(inst.url).host}`)}`)).toEqual([robin.accountId]);
    // A word of the display name.
    expect(await search('q=robotn')).toEqual([ann.accountId]);
    expect(await search('q=ROBOTNIK')).toEqual([ann.accountId]);
    expect(await search('q=botnik')).toEqual([]);
    // resolve is accepted (remote resolution comes with federation).
    expect(await search('q=robin@birds.example&resolve=true')).toEqual([remoteRobin]);
  });

  it('following=true limits the search to followed accounts', async () => {
    await follow(viewer.client, roberta.accountId);
    expect(await search('q=rob&following=true')).toEqual([roberta.accountId]);
    // Followed accounts also rank first in a normal search (after an exact handle).
    expect((await search('q=rob')).slice(0, 1)).toEqual([roberta.accountId]);
  });

  it('excludes suspended accounts', async () => {
    setAccount(inst, remoteRobin, { suspended_at: Date.now() });
    try {
      expect(await search('q=robin')).toEqual([robin.accountId]);
    } finally {
      setAccount(inst, remoteRobin, { suspended_at: null });
    }
  });

  it('excludes blocked accounts, both ways', async () => {
    const unblock = seedRelation(inst, 'blocks', viewer.accountId, robin.accountId);
    expect(await search('q=robin')).toEqual([remoteRobin]);
    unblock();
    const unblockedBy = seedRelation(inst, 'blocks', robin.accountId, viewer.accountId);
    expect(await search('q=robin')).toEqual([remoteRobin]);
    unblockedBy();
    expect(await search('q=robin')).toContain(robin.accountId);
  });

  it('limit and offset page through results; a blank query finds nothing; a bad limit reads as 0', async () => {
    const all = await search('q=rob');
    expect(all).toHaveLength(4);
    expect(await search('q=rob&limit=2')).toEqual(all.slice(0, 2));
    expect(await search('q=rob&limit=2&offset=2')).toEqual(all.slice(2));
    expect(await search('q=rob&limit=0')).toEqual([]);
    expect(await search('q=%20')).toEqual([]);
    expect(await search('')).toEqual([]);
    const bad = await viewer.client.get('/api/v1/accounts/search?q=rob&offset=-1');
    expect(bad.status).toBe(422);
    expect(bad.body.details).toHaveProperty('offset');
    expect(await search('q=rob&limit=lots')).toEqual([]);
  });

  it('needs a user token with read:accounts', async () => {
    expect((await inst.anon.get('/api/v1/accounts/search?q=rob')).status).toBe(401);
    const wrong = inst.tokenFor(viewer, 'write:accounts');
    expect((await viewer.client.get('/api/v1/accounts/search?q=rob', { token: wrong })).status).toBe(403);
    const right = inst.tokenFor(viewer, 'read:accounts');
    expect((await viewer.client.get('/api/v1/accounts/search?q=rob', { token: right })).status).toBe(200);
  });
});
