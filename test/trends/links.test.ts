import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardsIdle } from '../../api/core/cards/install.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { Articles, DAY, discoverable, post } from './helpers.js';

describe('trending links, from the cards of shared pages', () => {
  let inst: TestInstance;
  let web: Articles;
  const u = {} as Record<'alice' | 'bob' | 'carol' | 'dave', TestUser>;

  beforeAll(async () => {
    web = new Articles();
    await web.start();
    inst = await startInstance({ federationAllowLoopback: true });
    for (const name of ['alice', 'bob', 'carol', 'dave'] as const) u[name] = await inst.createUser(name);
    for (const name of ['alice', 'bob', 'carol'] as const) await discoverable(u[name].client);
  });
  afterAll(async () => {
    await inst.close();
    await web.stop();
  });

  async function share(user: TestUser, path: string, extra: Record<string, unknown> = {}): Promise<string> {
    const s = await post(user.client, { status: `Read this ${web.base}${path}`, ...extra });
    await cardsIdle(inst.deps);
    return s.id;
  }

  it('answers [] while nothing trends', async () => {
    expect((await inst.anon.get('/api/v1/trends/links')).body).toEqual([]);
    await share(u.alice, '/solo');
    await share(u.alice, '/solo');
    expect((await inst.anon.get('/api/v1/trends/links')).body).toEqual([]);
  });

  it('trends a page two discoverable accounts shared, as Trends::Link with its history', async () => {
    await share(u.alice, '/big-story');
    await share(u.bob, '/big-story');
    const res = await inst.anon.get('/api/v1/trends/links');
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    const link = res.body[0];
    expect(link).toMatchObject({ url: `${web.base}/big-story`, title: 'Article big-story', description: 'About big-story', type: 'link', provider_name: 'Daily News' });
    const today = Math.floor(Date.now() / DAY);
    expect(link.history).toHaveLength(7);
    expect(link.history[0]).toEqual({ day: String((today * DAY) / 1000), uses: '2', accounts: '2' });
  });

  it('leaves out accounts that did not opt in, statuses that are not public, and pages without a title', async () => {
    await share(u.alice, '/hidden');
    await share(u.dave, '/hidden');
    await share(u.bob, '/hidden', { visibility: 'unlisted' });
    await share(u.alice, '/untitled');
    await share(u.bob, '/untitled');
    const urls = (await inst.anon.get('/api/v1/trends/links')).body.map((l: { url: string }) => l.url);
    expect(urls).not.toContain(`${web.base}/hidden`);
    expect(urls).not.toContain(`${web.base}/untitled`);
    await discoverable(u.dave.client);
    expect((await inst.anon.get('/api/v1/trends/links')).body.map((l: { url: string }) => l.url)).toContain(`${web.base}/hidden`);
  });

  it('ranks the link more people share first; pages with offset; limits as Mastodon', async () => {
    await share(u.carol, '/hidden');
    const urls = (await inst.anon.get('/api/v1/trends/links')).body.map((l: { url: string }) => l.url);
    expect(urls[0]).toBe(`${web.base}/hidden`);
    const second = await inst.anon.get('/api/v1/trends/links?limit=1&offset=1');
    expect(second.body.map((l: { url: string }) => l.url)).toEqual([urls[1]]);
    expect(second.headers.get('link')).toMatch(/offset=0.*rel="prev"/);
    expect((await inst.anon.get('/api/v1/trends/links?offset=-2')).status).toBe(422);
    expect((await inst.anon.get('/api/v1/trends/links?limit=abc')).body).toEqual([]);
  });
});
