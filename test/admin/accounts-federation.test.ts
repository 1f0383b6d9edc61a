import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestUser } from '../helpers/instance.js';
import { createUserWithRole } from '../helpers/roles.js';
import { eventually, startFederated } from '../federation/helpers.js';

type Inst = Awaited<ReturnType<typeof startFederated>>;
interface Relationship { following: boolean; requested: boolean }

/** A remote account suspended by a moderator, between two instances on loopback. */
describe('admin accounts: suspending a remote account', () => {
  let a: Inst;
  let b: Inst;
  let kim: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let bobOnA: string;
  let aliceOnB: string;
  beforeAll(async () => {
    a = await startFederated('127.0.0.2');
    b = await startFederated('127.0.0.3');
    kim = await createUserWithRole(a, 'kim', 'admin');
    alice = await a.createUser('alice');
    bob = await b.createUser('bob');
    carol = await b.createUser('carol');
    aliceOnB = (await b.app.federation?.resolveAccount(`${a.origin}/users/alice`))?.id ?? '';
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('ends its follows of local accounts with Reject(Follow), and ignores what it sends', async () => {
    expect((await bob.client.post(`/api/v1/accounts/${aliceOnB}/follow`)).status).toBe(200);
    await eventually(async () => ((await bob.client.get(`/api/v1/accounts/relationships?id[]=${aliceOnB}`)).body as Relationship[])[0]?.following);
    const followers = (await alice.client.get(`/api/v1/accounts/${alice.accountId}/followers`)).body as { id: string; acct: string }[];
    bobOnA = followers.find((f) => f.acct === `bob@${b.domain}`)?.id ?? '';
    expect(bobOnA).not.toBe('');

    const res = await kim.client.post(`/api/v1/admin/accounts/${bobOnA}/action`, { type: 'suspend' });
    expect(res.status, res.text).toBe(200);
    expect(((await alice.client.get(`/api/v1/accounts/${alice.accountId}/followers`)).body as unknown[]).length).toBe(0);
    // Bob's server hears of it: he no longer follows alice there.
    await eventually(async () => {
      const rel = ((await bob.client.get(`/api/v1/accounts/relationships?id[]=${aliceOnB}`)).body as Relationship[])[0];
      return rel && !rel.following && !rel.requested;
    });

    // What he sends now is dropped; carol, on the same server, still gets through.
    await bob.client.post('/api/v1/statuses', { status: `@alice@${a.domain} are you there?` });
    await carol.client.post('/api/v1/statuses', { status: `@alice@${a.domain} hello from carol` });
    const mentions = async () => ((await alice.client.get('/api/v1/notifications?types[]=mention')).body as { account: { acct: string } }[]).map((n) => n.account.acct);
    await eventually(async () => (await mentions()).includes(`carol@${b.domain}`));
    expect(await mentions()).not.toContain(`bob@${b.domain}`);
    const bobsOnA = a.deps.db.query<{ n: number }>('SELECT count(*) AS n FROM statuses WHERE account_id = ?').get(bobOnA)?.n;
    expect(bobsOnA).toBe(0);
  });
});
