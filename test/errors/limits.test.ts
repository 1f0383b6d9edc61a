import { beforeAll, describe, expect, it } from 'vitest';
import { limitParam, rubyToI } from '../../api/http/limit.js';
import { postStatus, useInstance } from '../helpers/fixtures.js';
import type { TestResponse } from '../helpers/client.js';
import type { TestUser } from '../helpers/instance.js';

/**
 * `limit`, as Mastodon's `limit_param` reads it, on every method that takes one: the default when
 * absent, the value as Ruby's `to_i` reads it (so a non-number is 0, an empty page), a negative
 * one as its absolute value, anything beyond the method's maximum cut to it. Never refused.
 */

describe('limitParam: Mastodon’s limit_param', () => {
  it('reads the value as Ruby’s to_i and cuts it to the maximum', () => {
    const read = (limit: unknown) => limitParam({ limit }, 20, 40);
    expect(read(undefined)).toBe(20);
    expect(read(null)).toBe(20);
    expect(read('7')).toBe(7);
    expect(read(7)).toBe(7);
    expect(read(7.9)).toBe(7);
    expect(read('1000')).toBe(40);
    expect(read('99999999999999999999999')).toBe(40);
    expect(read('-3')).toBe(3);
    expect(read('0')).toBe(0);
    expect(read('')).toBe(0);
    expect(read('abc')).toBe(0);
    expect(read(' 12abc')).toBe(12);
    expect(read('+5')).toBe(5);
    expect(read('1e3')).toBe(1);
    expect(read('0x10')).toBe(0);
    expect(rubyToI('1_0')).toBe(10);
    expect(rubyToI('1__0')).toBe(1);
    expect(() => read(['1'])).toThrow(/limit/);
    expect(() => read({ a: '1' })).toThrow(/limit/);
  });
});

interface LimitRoute {
  /** The route as the route table names it. */
  route: string;
  /** The URL to ask (with any parameter the method needs besides `limit`). */
  url: string;
  default: number;
  max: number;
  /** The items of an answer (the body itself for most). */
  items?: (body: any) => unknown[];
  /** Whether the test world gives this listing at least one item. */
  seeded?: boolean;
  /** The list members listing reads an empty `limit=` as no limit (every member, as without one). */
  emptyIsAbsent?: boolean;
}

const groups = (body: any) => body.notification_groups as unknown[];
const counted = (body: any) => Array.from({ length: body.count as number });
// Search limits each category: the longest one is what the limit governs.
const searched = (body: any) => [body.accounts, body.statuses, body.hashtags].reduce((a: unknown[], b: unknown[]) => (b.length > a.length ? b : a));
const collections = (body: any) => body.collections as unknown[];

describe('every method that takes a limit', () => {
  const env = useInstance(['alice', 'bob', 'carol', 'dave']);
  let alice: TestUser;
  let bob: TestUser;
  let routes: LimitRoute[] = [];

  beforeAll(async () => {
    const { users } = env();
    ({ alice, bob } = users);
    const { carol, dave } = users;
    // A little of everything, so that most listings hold something.
    expect((await alice.client.post(`/api/v1/accounts/${bob.accountId}/follow`)).status).toBe(200);
    expect((await bob.client.post(`/api/v1/accounts/${alice.accountId}/follow`)).status).toBe(200);
    expect((await alice.client.post(`/api/v1/accounts/${bob.accountId}/endorse`)).status).toBe(200);
    expect((await alice.client.post(`/api/v1/accounts/${carol.accountId}/block`)).status).toBe(200);
    expect((await alice.client.post(`/api/v1/accounts/${dave.accountId}/mute`)).status).toBe(200);
    expect((await alice.client.post('/api/v1/domain_blocks', { domain: 'spam.example' })).status).toBe(200);
    expect((await alice.client.post('/api/v1/tags/cats/follow')).status).toBe(200);
    const own = await postStatus(alice.client, { status: 'cats are #cats', visibility: 'public' });
    const bobs = await postStatus(bob.client, { status: `@alice look #cats`, visibility: 'public' });
    await postStatus(bob.client, { status: '@alice a secret', visibility: 'direct' });
    await postStatus(alice.client, { status: 'later', scheduled_at: new Date(Date.now() + 3_600_000).toISOString() });
    for (const action of ['favourite', 'bookmark', 'reblog']) expect((await alice.client.post(`/api/v1/statuses/${bobs.id}/${action}`)).status).toBe(200);
    const list = await alice.client.post('/api/v1/lists', { title: 'friends' });
    expect((await alice.client.post(`/api/v1/lists/${list.body.id}/accounts`, { account_ids: [bob.accountId] })).status).toBe(200);
    const group = (await alice.client.get('/api/v2/notifications')).body.notification_groups[0]?.group_key as string;

    routes = [
      { route: 'GET /api/v1/accounts/:id/statuses', url: `/api/v1/accounts/${alice.accountId}/statuses`, default: 20, max: 40, seeded: true },
      { route: 'GET /api/v1/accounts/:id/followers', url: `/api/v1/accounts/${alice.accountId}/followers`, default: 40, max: 80, seeded: true },
      { route: 'GET /api/v1/accounts/:id/following', url: `/api/v1/accounts/${alice.accountId}/following`, default: 40, max: 80, seeded: true },
      { route: 'GET /api/v1/accounts/:id/endorsements', url: `/api/v1/accounts/${alice.accountId}/endorsements`, default: 40, max: 80, seeded: true },
      { route: 'GET /api/v1/accounts/search', url: '/api/v1/accounts/search?q=bob', default: 40, max: 80, seeded: true },
      { route: 'GET /api/v1/blocks', url: '/api/v1/blocks', default: 40, max: 80, seeded: true },
      { route: 'GET /api/v1/mutes', url: '/api/v1/mutes', default: 40, max: 80, seeded: true },
      { route: 'GET /api/v1/domain_blocks', url: '/api/v1/domain_blocks', default: 100, max: 200, seeded: true },
      { route: 'GET /api/v1/endorsements', url: '/api/v1/endorsements', default: 40, max: 80, seeded: true },
      { route: 'GET /api/v1/favourites', url: '/api/v1/favourites', default: 20, max: 40, seeded: true },
      { route: 'GET /api/v1/bookmarks', url: '/api/v1/bookmarks', default: 20, max: 40, seeded: true },
      { route: 'GET /api/v1/follow_requests', url: '/api/v1/follow_requests', default: 40, max: 80 },
      { route: 'GET /api/v1/followed_tags', url: '/api/v1/followed_tags', default: 100, max: 200, seeded: true },
      { route: 'GET /api/v1/conversations', url: '/api/v1/conversations', default: 20, max: 40, seeded: true },
      { route: 'GET /api/v1/directory', url: '/api/v1/directory', default: 40, max: 80 },
      { route: 'GET /api/v1/accounts/:account_id/collections', url: `/api/v1/accounts/${alice.accountId}/collections`, default: 40, max: 80, items: collections },
      { route: 'GET /api/v1/accounts/:account_id/in_collections', url: `/api/v1/accounts/${alice.accountId}/in_collections`, default: 40, max: 80, items: collections },
      { route: 'GET /api/v1/lists/:id/accounts', url: `/api/v1/lists/${list.body.id}/accounts`, default: 40, max: 80, seeded: true, emptyIsAbsent: true },
      { route: 'GET /api/v1/notifications', url: '/api/v1/notifications', default: 40, max: 80, seeded: true },
      { route: 'GET /api/v1/notifications/unread_count', url: '/api/v1/notifications/unread_count', default: 100, max: 1000, items: counted, seeded: true },
      { route: 'GET /api/v1/notifications/requests', url: '/api/v1/notifications/requests', default: 40, max: 80 },
      { route: 'GET /api/v2/notifications', url: '/api/v2/notifications', default: 40, max: 80, items: groups, seeded: true },
      { route: 'GET /api/v2/notifications/unread_count', url: '/api/v2/notifications/unread_count', default: 100, max: 1000, items: counted, seeded: true },
      { route: 'GET /api/v2/notifications/:group_key/accounts', url: `/api/v2/notifications/${group}/accounts`, default: 40, max: 80, seeded: true },
      { route: 'GET /api/v1/scheduled_statuses', url: '/api/v1/scheduled_statuses', default: 20, max: 40, seeded: true },
      { route: 'GET /api/v2/search', url: '/api/v2/search?q=cats', default: 20, max: 40, items: searched, seeded: true },
      { route: 'GET /api/v1/statuses/:id/reblogged_by', url: `/api/v1/statuses/${bobs.id}/reblogged_by`, default: 40, max: 80, seeded: true },
      { route: 'GET /api/v1/statuses/:id/favourited_by', url: `/api/v1/statuses/${bobs.id}/favourited_by`, default: 40, max: 80, seeded: true },
      { route: 'GET /api/v1/statuses/:id/quotes', url: `/api/v1/statuses/${own.id}/quotes`, default: 20, max: 40 },
      { route: 'GET /api/v1/suggestions', url: '/api/v1/suggestions', default: 40, max: 80 },
      { route: 'GET /api/v2/suggestions', url: '/api/v2/suggestions', default: 40, max: 80 },
      { route: 'GET /api/v1/timelines/home', url: '/api/v1/timelines/home', default: 20, max: 40, seeded: true },
      { route: 'GET /api/v1/timelines/public', url: '/api/v1/timelines/public', default: 20, max: 40, seeded: true },
      { route: 'GET /api/v1/timelines/tag/:hashtag', url: '/api/v1/timelines/tag/cats', default: 20, max: 40, seeded: true },
      { route: 'GET /api/v1/timelines/list/:list_id', url: `/api/v1/timelines/list/${list.body.id}`, default: 20, max: 40, seeded: true },
      { route: 'GET /api/v1/timelines/link', url: `/api/v1/timelines/link?url=${encodeURIComponent('https://example.org/')}`, default: 20, max: 40 },
      { route: 'GET /api/v1/trends/tags', url: '/api/v1/trends/tags', default: 10, max: 20 },
      { route: 'GET /api/v1/trends/statuses', url: '/api/v1/trends/statuses', default: 20, max: 40 },
      { route: 'GET /api/v1/trends/links', url: '/api/v1/trends/links', default: 10, max: 20 },
    ];
  });

  async function ask(url: string, limit: string | null): Promise<TestResponse> {
    const full = limit === null ? url : `${url}${url.includes('?') ? '&' : '?'}${limit}`;
    return alice.client.get(full);
  }

  it('each is a route of the app', () => {
    const table = new Set(env().inst.app.routes.map((r) => `${r.method.toUpperCase()} ${r.path}`));
    expect(routes.filter((r) => !table.has(r.route)).map((r) => r.route)).toEqual([]);
  });

  it('a limit beyond the maximum is cut to it, never refused; a negative one counts as its absolute value', async () => {
    for (const r of routes) {
      const items = r.items ?? ((body: any) => body as unknown[]);
      const all = await ask(r.url, null);
      // Every limit is answered as the request without one (the link timeline is a 404 here: no link trends).
      expect(all.status, `${r.route} ${all.text}`).toBe(r.route === 'GET /api/v1/timelines/link' ? 404 : 200);
      if (r.seeded) expect(items(all.body).length, r.route).toBeGreaterThan(0);
      for (const limit of ['limit=100000', `limit=${r.max + 1}`]) {
        const res = await ask(r.url, limit);
        expect(res.status, `${r.route}?${limit} ${res.text}`).toBe(all.status);
        if (res.status === 200) expect(items(res.body).length, r.route).toBeLessThanOrEqual(r.max);
      }
      const one = await ask(r.url, 'limit=-1');
      expect(one.status, `${r.route}?limit=-1 ${one.text}`).toBe(all.status);
      if (one.status === 200) expect(items(one.body).length, r.route).toBe(Math.min(1, items(all.body).length));
    }
  });

  it('a limit that is not a number is 0 (an empty page), as Ruby reads it; an array or an object is a 400', async () => {
    for (const r of routes) {
      const items = r.items ?? ((body: any) => body as unknown[]);
      const all = await ask(r.url, null);
      for (const limit of r.emptyIsAbsent ? ['limit=abc'] : ['limit=abc', 'limit=']) {
        const res = await ask(r.url, limit);
        expect(res.status, `${r.route}?${limit} ${res.text}`).toBe(all.status);
        if (res.status === 200) expect(items(res.body), `${r.route}?${limit}`).toEqual([]);
      }
      const res = await ask(r.url, 'limit[]=3');
      expect(res.status, `${r.route}?limit[]=3 ${res.text}`).toBe(400);
      expect(res.body).toEqual({ error: "Invalid value for 'limit': it must be a number" });
    }
  });
});

describe('the defaults and maximums, counted', () => {
  const env = useInstance(['alice', 'bob']);

  it('statuses: 20 by default, at most 40; notifications: 40 by default, at most 80; unread counts up to 1000', async () => {
    const { alice, bob } = env().users;
    for (let i = 0; i < 81; i++) await postStatus(bob.client, { status: `@alice number ${i}`, visibility: 'public' });
    const count = async (url: string) => ((await alice.client.get(url)).body as unknown[]).length;
    expect(await count('/api/v1/timelines/public')).toBe(20);
    expect(await count('/api/v1/timelines/public?limit=1000')).toBe(40);
    expect(await count('/api/v1/timelines/public?limit=%2012abc')).toBe(12);
    expect(await count(`/api/v1/accounts/${bob.accountId}/statuses?limit=41`)).toBe(40);
    expect(await count('/api/v1/notifications')).toBe(40);
    expect(await count('/api/v1/notifications?limit=81')).toBe(80);
    expect(await count('/api/v1/notifications?limit=-81')).toBe(80);
    const grouped = await alice.client.get('/api/v2/notifications?limit=500');
    expect(grouped.body.notification_groups).toHaveLength(80);
    expect((await alice.client.get('/api/v1/notifications/unread_count?limit=5000')).body).toEqual({ count: 81 });
    expect((await alice.client.get('/api/v1/notifications/unread_count?limit=5')).body).toEqual({ count: 5 });
    expect((await alice.client.get('/api/v2/notifications/unread_count?limit=-7')).body).toEqual({ count: 7 });
    expect((await alice.client.get('/api/v2/notifications/unread_count?limit=x')).body).toEqual({ count: 0 });
    // The next page keeps the limit the client asked for, as given.
    const page = await alice.client.get('/api/v1/notifications?limit=1000');
    expect(new URL(/<([^>]+)>; rel="next"/.exec(page.headers.get('link') ?? '')?.[1] ?? 'http://x').searchParams.get('limit')).toBe('1000');
  });
});
