import { createRestAPIClient } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardsIdle } from '../../api/core/cards/install.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { Articles, DAY, discoverable, post } from '../trends/helpers.js';

/** Trends moderation: what staff see, what approving and rejecting change in the public trends. */
describe('admin trends', () => {
  let inst: TestInstance;
  let web: Articles;
  const u = {} as Record<'owner' | 'admin' | 'mod' | 'alice' | 'bob' | 'carol', TestUser>;
  const ADMIN_SCOPES = 'read write admin:read admin:write';

  beforeAll(async () => {
    web = new Articles();
    await web.start();
    inst = await startInstance({ federationAllowLoopback: true });
    u.owner = await inst.createUser('owner', { role: 'owner', scopes: ADMIN_SCOPES });
    u.admin = await inst.createUser('admin', { role: 'admin', scopes: ADMIN_SCOPES });
    u.mod = await inst.createUser('mod', { role: 'moderator', scopes: ADMIN_SCOPES });
    // A plain user with admin scopes: only the role can refuse them.
    for (const name of ['alice', 'bob', 'carol'] as const) u[name] = await inst.createUser(name, { scopes: ADMIN_SCOPES });
    for (const name of ['alice', 'bob', 'carol'] as const) await discoverable(u[name].client);
  });
  afterAll(async () => {
    await inst.close();
    await web.stop();
  });

  const publicNames = async () => (await inst.anon.get('/api/v1/trends/tags')).body.map((t: { name: string }) => t.name);

  it('lets owner, admin and moderator (Manage Taxonomies) look and decide; refuses users, missing tokens and narrower scopes', async () => {
    await post(u.alice.client, { status: 'Spring #seedlings' });
    await post(u.bob.client, { status: 'Mine too #seedlings' });
    const tagId = (await u.admin.client.get('/api/v1/admin/trends/tags')).body.find((t: { name: string }) => t.name === 'seedlings').id;
    for (const who of [u.owner, u.admin, u.mod]) {
      for (const path of ['tags', 'statuses', 'links', 'links/publishers']) {
        const res = await who.client.get(`/api/v1/admin/trends/${path}`);
        expect(res.status, `${who.username} ${path}: ${res.text}`).toBe(200);
      }
      expect((await who.client.post(`/api/v1/admin/trends/tags/${tagId}/approve`)).status).toBe(200);
    }
    for (const path of ['tags', 'statuses', 'links', 'links/publishers']) {
      const res = await u.alice.client.get(`/api/v1/admin/trends/${path}`);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'This action is not allowed' });
      expect((await inst.anon.get(`/api/v1/admin/trends/${path}`)).status).toBe(403);
    }
    expect((await u.alice.client.post(`/api/v1/admin/trends/tags/${tagId}/reject`)).status).toBe(403);
    // The scopes: admin:read to look, admin:write to decide.
    const reader = inst.tokenFor(u.admin, 'admin:read');
    expect((await u.admin.client.get('/api/v1/admin/trends/tags', { token: reader })).status).toBe(200);
    const refused = await u.admin.client.post(`/api/v1/admin/trends/tags/${tagId}/reject`, undefined, { token: reader });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('This action is outside the authorized scopes');
    expect((await u.admin.client.get('/api/v1/admin/trends/tags', { token: inst.tokenFor(u.admin, 'read write') })).status).toBe(403);
    // Nothing was changed by the refusals: still approved.
    const tag = (await u.admin.client.get('/api/v1/admin/trends/tags')).body.find((t: { id: string }) => t.id === tagId);
    expect(tag).toMatchObject({ trendable: true, requires_review: false });
  });

  it('shows trending tags with their review state; a rejected tag leaves the public trends until approved', async () => {
    await post(u.alice.client, { status: 'Out in the #garden' });
    await post(u.bob.client, { status: 'Me too #Garden' });
    expect(await publicNames()).toContain('garden');
    const list = await u.mod.client.get('/api/v1/admin/trends/tags');
    const garden = list.body.find((t: { name: string }) => t.name === 'garden');
    const today = Math.floor(Date.now() / DAY);
    expect(garden).toMatchObject({ url: `${inst.url}/tags/garden`, trendable: true, usable: true, requires_review: true });
    expect(garden.history).toHaveLength(7);
    expect(garden.history[0]).toEqual({ day: String((today * DAY) / 1000), uses: '2', accounts: '2' });

    const rejected = await u.mod.client.post(`/api/v1/admin/trends/tags/${garden.id}/reject`);
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ id: garden.id, name: 'garden', trendable: false, requires_review: false });
    expect(rejected.body.history[0].uses).toBe('2');
    expect(await publicNames()).not.toContain('garden');
    // Staff still see it, rejected.
    expect((await u.mod.client.get('/api/v1/admin/trends/tags')).body.find((t: { id: string }) => t.id === garden.id)).toMatchObject({ trendable: false });

    const approved = await u.mod.client.post(`/api/v1/admin/trends/tags/${garden.id}/approve`);
    expect(approved.body).toMatchObject({ trendable: true, requires_review: false });
    expect(await publicNames()).toContain('garden');
    // An unknown tag, and an id that cannot be one.
    expect((await u.mod.client.post('/api/v1/admin/trends/tags/999999999/approve')).status).toBe(404);
    expect((await u.mod.client.post('/api/v1/admin/trends/tags/abc/reject')).body).toEqual({ error: 'Record not found' });
  });

  it('moderates trending statuses', async () => {
    const status = await post(u.alice.client, { status: 'A fine day' });
    for (const fan of [u.bob, u.carol]) expect((await fan.client.post(`/api/v1/statuses/${status.id}/favourite`)).status).toBe(200);
    const publicIds = async () => (await inst.anon.get('/api/v1/trends/statuses')).body.map((s: { id: string }) => s.id);
    expect(await publicIds()).toContain(status.id);
    const listed = (await u.admin.client.get('/api/v1/admin/trends/statuses')).body.find((s: { id: string }) => s.id === status.id);
    expect(listed).toMatchObject({ id: status.id, content: '<p>A fine day</p>', requires_review: true, favourites_count: 2 });

    const rejected = await u.admin.client.post(`/api/v1/admin/trends/statuses/${status.id}/reject`);
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ id: status.id, requires_review: false });
    expect(await publicIds()).not.toContain(status.id);
    expect((await u.admin.client.get('/api/v1/admin/trends/statuses')).body.map((s: { id: string }) => s.id)).toContain(status.id);
    await u.admin.client.post(`/api/v1/admin/trends/statuses/${status.id}/approve`);
    expect(await publicIds()).toContain(status.id);

    // A status the staff member cannot see is not reviewed: 404, and nothing is written.
    const secret = await post(u.bob.client, { status: 'just for me', visibility: 'direct' });
    expect((await u.admin.client.post(`/api/v1/admin/trends/statuses/${secret.id}/reject`)).status).toBe(404);
    expect(inst.deps.db.query<{ trendable: number | null }>('SELECT trendable FROM statuses WHERE id = ?').get(secret.id)?.trendable).toBeNull();
  });

  it('moderates trending links and their publishers; a link approved on its own trends whatever its publisher', async () => {
    for (const user of [u.alice, u.bob]) {
      await post(user.client, { status: `Read ${web.base}/story` });
      await post(user.client, { status: `And ${web.base}/other` });
    }
    await cardsIdle(inst.deps);
    const publicUrls = async () => (await inst.anon.get('/api/v1/trends/links')).body.map((l: { url: string }) => l.url);
    expect(await publicUrls()).toEqual(expect.arrayContaining([`${web.base}/story`, `${web.base}/other`]));

    const links = (await u.owner.client.get('/api/v1/admin/trends/links')).body;
    const story = links.find((l: { url: string }) => l.url === `${web.base}/story`);
    expect(story).toMatchObject({ title: 'Article story', type: 'link', requires_review: true });
    expect(typeof story.id).toBe('string');
    expect(story.history[0]).toMatchObject({ uses: '2', accounts: '2' });

    // The publisher was recorded when staff first saw its links, its review requested.
    const publishers = await u.owner.client.get('/api/v1/admin/trends/links/publishers');
    expect(publishers.status).toBe(200);
    const publisher = publishers.body.find((p: { domain: string }) => p.domain === '127.0.0.1');
    expect(publisher).toMatchObject({ trendable: true, reviewed_at: null, requires_review: true });
    expect(publisher.requested_review_at).toMatch(/^\d{4}-\d\d-\d\dT/);

    const rejected = await u.owner.client.post(`/api/v1/admin/trends/links/publishers/${publisher.id}/reject`);
    expect(rejected.body).toMatchObject({ id: publisher.id, domain: '127.0.0.1', trendable: false, requires_review: false });
    expect(rejected.body.reviewed_at).not.toBeNull();
    expect(await publicUrls()).toEqual([]);
    // Its links now follow the publisher's verdict: reviewed.
    expect((await u.owner.client.get('/api/v1/admin/trends/links')).body.every((l: { requires_review: boolean }) => !l.requires_review)).toBe(true);

    const approved = await u.owner.client.post(`/api/v1/admin/trends/links/${story.id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ id: story.id, url: `${web.base}/story`, requires_review: false });
    expect(await publicUrls()).toEqual([`${web.base}/story`]);
    await u.owner.client.post(`/api/v1/admin/trends/links/${story.id}/reject`);
    expect(await publicUrls()).toEqual([]);
    await u.owner.client.post(`/api/v1/admin/trends/links/publishers/${publisher.id}/approve`);
    expect(await publicUrls()).toEqual([`${web.base}/other`]);
    expect((await u.owner.client.post('/api/v1/admin/trends/links/1234/approve')).status).toBe(404);
    expect((await u.owner.client.post('/api/v1/admin/trends/links/publishers/1234/approve')).status).toBe(404);
  });

  it('pages the admin lists with offset and a Link header', async () => {
    await post(u.carol.client, { status: 'also #garden and #seedlings' });
    const all = (await u.admin.client.get('/api/v1/admin/trends/tags')).body;
    expect(all.length).toBeGreaterThanOrEqual(2);
    const first = await u.admin.client.get('/api/v1/admin/trends/tags?limit=1');
    expect(first.body.map((t: { id: string }) => t.id)).toEqual([all[0].id]);
    expect(first.headers.get('link')).toMatch(/offset=1.*rel="next"/);
    const second = await u.admin.client.get('/api/v1/admin/trends/tags?limit=1&offset=1');
    expect(second.body.map((t: { id: string }) => t.id)).toEqual([all[1].id]);
    expect((await u.admin.client.get('/api/v1/admin/trends/tags?offset=-1')).status).toBe(422);
  });

  it('is driven by the masto client', async () => {
    const masto = createRestAPIClient({ url: inst.url, accessToken: u.admin.token });
    const tags = await masto.v1.admin.trends.tags.list();
    const garden = tags.find((t) => t.name === 'garden');
    expect(garden).toMatchObject({ usable: true });
    const rejected = await masto.v1.admin.trends.tags.$select(garden?.id ?? '').reject();
    expect(rejected).toMatchObject({ name: 'garden', trendable: false, requiresReview: false });
    expect(await publicNames()).not.toContain('garden');
    await masto.v1.admin.trends.tags.$select(garden?.id ?? '').approve();
    expect(await publicNames()).toContain('garden');
    const statuses = await masto.v1.admin.trends.statuses.list();
    expect(statuses.length).toBeGreaterThan(0);
    const links = await masto.v1.admin.trends.links.list();
    expect(links.map((l) => l.url)).toContain(`${web.base}/story`);
    const publishers = await masto.v1.admin.trends.links.publishers.list();
    expect(publishers.length).toBe(1);
    const asUser = createRestAPIClient({ url: inst.url, accessToken: u.alice.token });
    await expect(asUser.v1.admin.trends.tags.list()).rejects.toMatchObject({ statusCode: 403 });
  });
});
