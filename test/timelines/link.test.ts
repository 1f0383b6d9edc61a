import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardsIdle } from '../../api/core/cards/install.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { Articles, discoverable, post } from '../trends/helpers.js';

describe('GET /api/v1/timelines/link', () => {
  let inst: TestInstance;
  let web: Articles;
  const u = {} as Record<'alice' | 'bob' | 'carol' | 'dave', TestUser>;
  const shared: Record<string, string> = {};
  let url = '';

  beforeAll(async () => {
    web = new Articles();
    await web.start();
    url = `${web.base}/story`;
    inst = await startInstance({ federationAllowLoopback: true });
    for (const name of ['alice', 'bob', 'carol', 'dave'] as const) u[name] = await inst.createUser(name);
    for (const name of ['alice', 'bob', 'carol'] as const) await discoverable(u[name].client);
    for (const name of ['alice', 'bob', 'carol', 'dave'] as const) shared[name] = (await post(u[name].client, { status: `Look ${url}` })).id;
    shared.quiet = (await post(u.alice.client, { status: `Quietly ${url}`, visibility: 'unlisted' })).id;
    await cardsIdle(inst.deps);
  });
  afterAll(async () => {
    await inst.close();
    await web.stop();
  });

  const path = (link: string, extra = '') => `/api/v1/timelines/link?url=${encodeURIComponent(link)}${extra}`;

  it('lists the public statuses of discoverable accounts that share a trending link, newest first', async () => {
    const res = await inst.anon.get(path(url));
    expect(res.status).toBe(200);
    // Dave did not opt into discovery; the unlisted share is not public.
    expect(res.body.map((s: { id: string }) => s.id)).toEqual([shared.carol, shared.bob, shared.alice]);
    expect(res.body[0].card.url).toBe(url);
  });

  it('pages with max_id and the Link header', async () => {
    const first = await u.dave.client.get(path(url, '&limit=2'));
    expect(first.body.map((s: { id: string }) => s.id)).toEqual([shared.carol, shared.bob]);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    expect(next).toContain(`max_id=${shared.bob}`);
    const second = await u.dave.client.get(new URL(next ?? '').pathname + new URL(next ?? '').search);
    expect(second.body.map((s: { id: string }) => s.id)).toEqual([shared.alice]);
  });

  it('leaves out what the viewer blocks', async () => {
    expect((await u.dave.client.post(`/api/v1/accounts/${u.bob.accountId}/block`)).status).toBe(200);
    expect((await u.dave.client.get(path(url))).body.map((s: { id: string }) => s.id)).toEqual([shared.carol, shared.alice]);
  });

  it('is 404 for a link that does not trend, an unknown one, or none', async () => {
    await post(u.alice.client, { status: `Only me ${web.base}/lonely` });
    await cardsIdle(inst.deps);
    for (const p of [path(`${web.base}/lonely`), path('https://nowhere.example/x'), '/api/v1/timelines/link']) {
      const res = await inst.anon.get(p);
      expect(res.status, p).toBe(404);
      expect(res.body).toEqual({ error: 'Record not found' });
    }
  });

  it('needs read:statuses when a token is given', async () => {
    expect((await inst.anon.get(path(url), { token: inst.tokenFor(u.alice, 'write') })).status).toBe(403);
    expect((await inst.anon.get(path(url), { token: inst.tokenFor(u.alice, 'read:statuses') })).status).toBe(200);
    expect((await inst.anon.get(path(url), { token: 'wrong' })).status).toBe(401);
  });
});
