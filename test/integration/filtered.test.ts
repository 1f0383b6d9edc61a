import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestClient } from '../helpers/client.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';

interface Result {
  filter: { id: string; filter_action: string };
  keyword_matches: string[] | null;
  status_matches: string[] | null;
}
interface Status {
  id: string;
  filtered?: Result[];
  reblog: Status | null;
  account: { id: string };
}

async function post(client: TestClient, params: Record<string, unknown>): Promise<string> {
  const res = await client.post('/api/v1/statuses', params);
  expect(res.status, res.text).toBe(200);
  return res.body.id as string;
}

async function filter(client: TestClient, params: Record<string, unknown>): Promise<string> {
  const res = await client.post('/api/v2/filters', params);
  expect(res.status, res.text).toBe(200);
  return res.body.id as string;
}

async function list(client: TestClient, path: string): Promise<Status[]> {
  const res = await client.get(path);
  expect(res.status, res.text).toBe(200);
  return res.body as Status[];
}

function byId(statuses: readonly Status[], id: string | undefined): Status | undefined {
  return statuses.find((s) => s.id === id);
}

/**
 * `filtered` on every Status the REST API returns to a signed-in viewer (all contexts, as Mastodon
 * reports them), never on the viewer's own posts; `hide` filters drop statuses on the server in
 * home, lists and notifications; expired filters never apply.
 */
describe('filters applied to REST statuses', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let warnId: string;
  let hideId: string;
  let listId: string;
  const s: Record<string, string> = {};

  /** Alice's warn filter matched `pineapple` in status `id` (and only it). */
  const expectWarned = (status: Status | undefined) => {
    expect(status, 'status missing').toBeDefined();
    expect(status?.filtered).toEqual([expect.objectContaining({ keyword_matches: ['pineapple'], status_matches: null })]);
    expect(status?.filtered?.[0]?.filter).toMatchObject({ id: warnId, filter_action: 'warn' });
  };

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    carol = await inst.createUser('carol');
    expect((await alice.client.post(`/api/v1/accounts/${bob.accountId}/follow`)).status).toBe(200);
    // The warn filter names only `home`: REST still reports it everywhere (clients pick by context).
    warnId = await filter(alice.client, { title: 'Fruit', context: ['home'], filter_action: 'warn', keywords_attributes: [{ keyword: 'pineapple' }] });
    hideId = await filter(alice.client, {
      title: 'Smelly',
      context: ['home', 'notifications', 'public'],
      filter_action: 'hide',
      keywords_attributes: [{ keyword: 'durian' }],
    });
    await filter(alice.client, { title: 'Gone soon', context: ['home', 'notifications'], filter_action: 'hide', expires_in: 1, keywords_attributes: [{ keyword: 'mango' }] });
    // An irreversible v1 filter is a hide filter.
    const v1 = await alice.client.post('/api/v1/filters', { phrase: 'kiwi', context: ['home', 'notifications'], irreversible: true });
    expect(v1.status, v1.text).toBe(200);
    listId = (await alice.client.post('/api/v1/lists', { title: 'Bob' })).body.id as string;
    expect((await alice.client.post(`/api/v1/lists/${listId}/accounts`, { account_ids: [bob.accountId] })).status).toBe(200);

    s.warned = await post(bob.client, { status: 'I love pineapple pizza #food' });
    s.reply = await post(bob.client, { status: 'pineapple again', in_reply_to_id: s.warned });
    s.own = await post(alice.client, { status: 'my own pineapple #food', in_reply_to_id: s.warned });
    s.carol = await post(carol.client, { status: 'carol likes pineapple' });
    s.boost = (await bob.client.post(`/api/v1/statuses/${s.carol}/reblog`)).body.id as string;
    s.hidden = await post(bob.client, { status: 'durian season #food' });
    s.mention = await post(bob.client, { status: '@alice pineapple for you' });
    s.hiddenMention = await post(bob.client, { status: '@alice durian for you' });
    s.irreversible = await post(bob.client, { status: '@alice a kiwi' });
    // Wait for the one-second filter to expire.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    s.expired = await post(bob.client, { status: 'mango time @alice' });
  });
  afterAll(() => inst.close());

  it('statuses: GET /api/v1/statuses/:id and POST answers; never on the viewer own posts', async () => {
    const res = await alice.client.get(`/api/v1/statuses/${s.warned}`);
    expect(res.status).toBe(200);
    expectWarned(res.body as Status);
    expect((await alice.client.get(`/api/v1/statuses/${s.own}`)).body.filtered).toEqual([]);
    const created = await alice.client.post('/api/v1/statuses', { status: 'another pineapple of mine' });
    expect(created.body.filtered).toEqual([]);
    // The author (no filters) and an anonymous reader see nothing of Alice's filters.
    expect((await bob.client.get(`/api/v1/statuses/${s.warned}`)).body.filtered).toEqual([]);
    expect((await inst.anon.get(`/api/v1/statuses/${s.warned}`)).body.filtered).toBeUndefined();
    // A hide filter is reported with its action outside the contexts where the server drops.
    const hidden = (await alice.client.get(`/api/v1/statuses/${s.hidden}`)).body as Status;
    expect(hidden.filtered?.map((r) => [r.filter.id, r.filter.filter_action, r.keyword_matches])).toEqual([[hideId, 'hide', ['durian']]]);
  });

  it('context: descendants and ancestors carry filtered, own replies do not', async () => {
    const res = await alice.client.get(`/api/v1/statuses/${s.reply}/context`);
    expect(res.status).toBe(200);
    expectWarned(byId(res.body.ancestors as Status[], s.warned));
    const ctx = await alice.client.get(`/api/v1/statuses/${s.warned}/context`);
    expectWarned(byId(ctx.body.descendants as Status[], s.reply));
    expect(byId(ctx.body.descendants as Status[], s.own)?.filtered).toEqual([]);
  });

  it('home: cached rendering stays viewer-independent; reblogs carry it inside and out; hide drops', async () => {
    for (let round = 0; round < 2; round++) {
      const home = await list(alice.client, '/api/v1/timelines/home?limit=40');
      expectWarned(byId(home, s.warned));
      expect(byId(home, s.own)?.filtered).toEqual([]);
      const boost = byId(home, s.boost);
      expectWarned(boost);
      expectWarned(boost?.reblog ?? undefined);
      expect(byId(home, s.hidden)).toBeUndefined();
      expect(byId(home, s.hiddenMention)).toBeUndefined();
      expect(byId(home, s.irreversible)).toBeUndefined();
      // The expired hide filter neither hides nor reports.
      expect(byId(home, s.expired)?.filtered).toEqual([]);
      // Bob's rendering of the same cached statuses has no trace of Alice's filters.
      const bobs = await list(bob.client, '/api/v1/timelines/home?limit=40');
      expect(byId(bobs, s.warned)?.filtered).toEqual([]);
      expect(byId(bobs, s.hidden)?.filtered).toEqual([]);
    }
  });

  it('public, tag and account timelines: warn reported; hide reported (clients drop it there, as Mastodon documents)', async () => {
    for (const path of ['/api/v1/timelines/public', '/api/v1/timelines/tag/food', `/api/v1/accounts/${bob.accountId}/statuses`]) {
      const statuses = await list(alice.client, `${path}?limit=40`);
      expectWarned(byId(statuses, s.warned));
      expect(byId(statuses, s.hidden)?.filtered?.[0]?.filter.filter_action, path).toBe('hide');
    }
    const tagged = await list(alice.client, '/api/v1/timelines/tag/food');
    expect(byId(tagged, s.own)?.filtered).toEqual([]);
  });

  it('list timeline: warn reported, hide (home context) dropped', async () => {
    const statuses = await list(alice.client, `/api/v1/timelines/list/${listId}`);
    expectWarned(byId(statuses, s.warned));
    expect(byId(statuses, s.hidden)).toBeUndefined();
    expect(byId(statuses, s.expired)).toBeDefined();
  });

  it('notifications (v1 and grouped): the status carries filtered; hide drops the notification', async () => {
    const res = await alice.client.get('/api/v1/notifications');
    expect(res.status).toBe(200);
    const notes = res.body as { type: string; status?: Status }[];
    expectWarned(notes.find((n) => n.status?.id === s.mention)?.status);
    expect(notes.find((n) => n.status?.id === s.hiddenMention)).toBeUndefined();
    expect(notes.find((n) => n.status?.id === s.irreversible)).toBeUndefined();
    expect((await alice.client.get('/api/v1/notifications?limit=40')).body.length).toBe(notes.length);
    expect(notes.find((n) => n.status?.id === s.expired)?.status?.filtered).toEqual([]);
    const grouped = await alice.client.get('/api/v2/notifications');
    expect(grouped.status).toBe(200);
    expectWarned(byId(grouped.body.statuses as Status[], s.mention));
    expect(byId(grouped.body.statuses as Status[], s.hiddenMention)).toBeUndefined();
  });

  it('favourites and bookmarks', async () => {
    expect((await alice.client.post(`/api/v1/statuses/${s.warned}/favourite`)).status).toBe(200);
    expect((await alice.client.post(`/api/v1/statuses/${s.warned}/bookmark`)).status).toBe(200);
    expectWarned(byId(await list(alice.client, '/api/v1/favourites'), s.warned));
    expectWarned(byId(await list(alice.client, '/api/v1/bookmarks'), s.warned));
  });

  it('search: statuses found carry filtered, own ones do not', async () => {
    const res = await alice.client.get('/api/v2/search?q=pineapple&type=statuses&limit=40');
    expect(res.status, res.text).toBe(200);
    const statuses = res.body.statuses as Status[];
    expect(statuses.length).toBeGreaterThan(0);
    for (const st of statuses) {
      if (st.account.id === alice.accountId) expect(st.filtered).toEqual([]);
      else expectWarned(st);
    }
  });
});
