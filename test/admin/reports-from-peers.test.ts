import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startFederated } from '../federation/helpers.js';
import type { TestUser } from '../helpers/instance.js';
import { createStaff } from '../helpers/roles.js';

type Inst = Awaited<ReturnType<typeof startFederated>>;

/**
 * A report forwarded from another Hearth instance (a Flag from its instance actor) reaches the
 * staff through the admin API like a local one; a domain block with reject_reports drops them.
 */
describe('reports federated from another Hearth instance', () => {
  let a: Inst;
  let b: Inst;
  let alice: TestUser;
  let bob: TestUser;
  let staffOnB: Awaited<ReturnType<typeof createStaff>>;
  let bobOnA = '';
  let bobPost = '';
  let bobPostUri = '';
  /** Activities B has handled (Fedify's idempotence records, one per inbound activity). */
  const handledOnB = () => b.deps.db.query<{ n: number }>("SELECT count(*) AS n FROM federation_kv WHERE key LIKE '%activityIdempotence%'").get()?.n ?? 0;

  beforeAll(async () => {
    [a, b] = await Promise.all([startFederated('127.0.0.2'), startFederated('127.0.0.3')]);
    alice = await a.createUser('alice');
    bob = await b.createUser('bob');
    staffOnB = await createStaff(b);
    const posted = (await bob.client.post('/api/v1/statuses', { status: 'bob sells things', visibility: 'public' })).body;
    bobPost = posted.id;
    bobPostUri = posted.uri;
    bobOnA = (await a.app.federation?.resolveAccount(`${b.origin}/users/bob`))?.id ?? '';
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  it("arrives in B's admin API, reported by A's instance actor, with the status", async () => {
    // Alice finds Bob's post (fetched from B) and reports it, forwarding the report to B.
    const found = await alice.client.get(`/api/v2/search?type=statuses&resolve=true&q=${encodeURIComponent(bobPostUri)}`);
    const statusOnA: string = found.body.statuses[0]?.id;
    expect(statusOnA).toBeDefined();
    const res = await alice.client.post('/api/v1/reports', { account_id: bobOnA, status_ids: [statusOnA], comment: 'from another server', forward: true });
    expect(res.status, res.text).toBe(200);
    const listed = await eventually(async () => {
      const list = await staffOnB.moderator.client.get('/api/v1/admin/reports');
      return list.body.length > 0 ? list.body : null;
    });
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      comment: 'from another server',
      action_taken: false,
      target_account: { id: bob.accountId, username: 'bob', domain: null },
      account: { domain: a.domain, email: null, role: null },
    });
    expect(listed[0].statuses.map((s: { id: string }) => s.id)).toEqual([bobPost]);
    // Staff handle it like any other.
    expect((await staffOnB.moderator.client.post(`/api/v1/admin/reports/${listed[0].id}/resolve`)).body.action_taken).toBe(true);
  });

  it("drops A's reports once a domain block rejects them", async () => {
    const block = await staffOnB.admin.client.post('/api/v1/admin/domain_blocks', { domain: a.domain, severity: 'noop', reject_reports: true });
    expect(block.status, block.text).toBe(200);
    const handled = handledOnB();
    expect((await alice.client.post('/api/v1/reports', { account_id: bobOnA, comment: 'dropped', forward: true })).status).toBe(200);
    // B received and handled the Flag, and filed nothing.
    await eventually(() => handledOnB() > handled);
    expect(b.deps.db.query<{ n: number }>("SELECT count(*) AS n FROM reports WHERE comment = 'dropped'").get()?.n).toBe(0);

    // Lifted: the next one arrives.
    await staffOnB.admin.client.delete(`/api/v1/admin/domain_blocks/${block.body.id}`);
    expect((await alice.client.post('/api/v1/reports', { account_id: bobOnA, comment: 'arrives', forward: true })).status).toBe(200);
    await eventually(async () => (await staffOnB.owner.client.get('/api/v1/admin/reports')).body.some((r: { comment: string }) => r.comment === 'arrives'));
  });
});
