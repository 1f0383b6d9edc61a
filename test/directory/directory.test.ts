import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { post, seedDomainBlock, seedRelation, seedRemoteAccount, setAccount, tick } from '../suggestions/helpers.js';

describe('GET /api/v1/directory', () => {
  let inst: TestInstance;
  let viewer: TestUser;
  let early: TestUser;
  let late: TestUser;
  let silent: TestUser;
  let hidden: TestUser;
  let remote: string;

  async function directory(query = '', client = inst.anon): Promise<string[]> {
    const res = await client.get(`/api/v1/directory${query}`);
    expect(res.status, res.text).toBe(200);
    return (res.body as { id: string }[]).map((a) => a.id);
  }

  beforeAll(async () => {
    inst = await startInstance();
    viewer = await inst.createUser('viewer');
    early = await inst.createUser('early');
    late = await inst.createUser('late');
    silent = await inst.createUser('silent');
    hidden = await inst.createUser('hidden');
    for (const u of [early, late, silent]) {
      expect((await u.client.patch('/api/v1/accounts/update_credentials', { discoverable: true })).status).toBe(200);
    }
    // `hidden` posts but never chose to be discoverable; `silent` is discoverable but never posted.
    await post(hidden.client, 'not listed');
    await post(late.client, 'first');
    await tick();
    await post(early.client, 'now the most recent');
    remote = seedRemoteAccount(inst, 'faraway', 'far.example');
    setAccount(inst, remote, { discoverable: 1, last_status_at: Date.now() - 60_000 });
  });
  afterAll(async () => {
    await inst.close();
  });

  it('lists discoverable accounts only, most recently active first by default (order=active)', async () => {
    expect(await directory()).toEqual([early.accountId, late.accountId, remote, silent.accountId]);
    expect(await directory('?order=active')).toEqual([early.accountId, late.accountId, remote, silent.accountId]);
  });

  it('order=new lists the newest accounts first', async () => {
    expect(await directory('?order=new')).toEqual([remote, silent.accountId, late.accountId, early.accountId]);
  });

  it('local=true lists local accounts only', async () => {
    expect(await directory('?local=true')).toEqual([early.accountId, late.accountId, silent.accountId]);
    expect(await directory('?local=false')).toContain(remote);
  });

  it('limit and offset page through the directory; an unknown order is 422, a bad limit reads as 0', async () => {
    expect(await directory('?limit=2')).toEqual([early.accountId, late.accountId]);
    expect(await directory('?limit=2&offset=2')).toEqual([remote, silent.accountId]);
    const bad = await inst.anon.get('/api/v1/directory?order=popular');
    expect(bad.status).toBe(422);
    expect(bad.body.details).toHaveProperty('order');
    expect((await inst.anon.get('/api/v1/directory?limit=x')).body).toEqual([]);
  });

  it('suspended, silenced and moved accounts are not listed', async () => {
    setAccount(inst, late.accountId, { silenced_at: Date.now() });
    setAccount(inst, silent.accountId, { suspended_at: Date.now() });
    setAccount(inst, remote, { moved_to_account_id: early.accountId });
    try {
      expect(await directory()).toEqual([early.accountId]);
    } finally {
      setAccount(inst, late.accountId, { silenced_at: null });
      setAccount(inst, silent.accountId, { suspended_at: null });
      setAccount(inst, remote, { moved_to_account_id: null });
    }
  });

  it('a signed-in viewer does not see accounts blocked either way, muted, or on a domain they blocked', async () => {
    const undo = [
      seedRelation(inst, 'blocks', viewer.accountId, early.accountId),
      seedRelation(inst, 'blocks', late.accountId, viewer.accountId),
      seedRelation(inst, 'mutes', viewer.accountId, silent.accountId),
      seedDomainBlock(inst, viewer.accountId, 'far.example'),
    ];
    try {
      expect(await directory('', viewer.client)).toEqual([]);
      // Others still see everyone.
      expect(await directory()).toHaveLength(4);
    } finally {
      undo.forEach((f) => f());
    }
    expect(await directory('', viewer.client)).toHaveLength(4);
  });

  it('is public: no token needed, and any valid token works; an invalid token is 401', async () => {
    const token = inst.tokenFor(viewer, 'write:statuses');
    expect((await inst.anon.get('/api/v1/directory', { token })).status).toBe(200);
    expect((await inst.anon.get('/api/v1/directory', { token: 'bogus' })).status).toBe(401);
  });
});
