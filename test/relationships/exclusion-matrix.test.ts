import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listTimelineStatusIds } from '../../api/core/lists/timeline.js';
import { newId } from '../../api/util/ids.js';
import type { TestClient } from '../helpers/client.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { act, post, seedFollow, seedRemoteAccount, seedRemoteStatus } from './helpers.js';

/**
 * Blocks (both directions), mutes (with and without notifications) and domain blocks, crossed with
 * every endpoint that returns statuses, notifications or the accounts that acted on a status. For
 * each relationship a fresh viewer V and author X are set up so that X's items appear everywhere
 * (checked first, so that every "hidden" below can fail), then the relationship is made and each
 * endpoint is checked against the expected outcome (Mastodon's behaviour).
 */

type Endpoint =
  | 'home'
  | 'home boost'
  | 'public'
  | 'tag'
  | 'list'
  | 'profile'
  | 'profile boost'
  | 'status'
  | 'context'
  | 'search'
  | 'notifications v1'
  | 'notifications v2'
  | 'favourited_by'
  | 'reblogged_by';

const ENDPOINTS: Endpoint[] = [
  'home',
  'home boost',
  'public',
  'tag',
  'list',
  'profile',
  'profile boost',
  'status',
  'context',
  'search',
  'notifications v1',
  'notifications v2',
  'favourited_by',
  'reblogged_by',
];

/** What X did, seen from V. */
interface Fixture {
  n: number;
  viewer: TestUser;
  authorId: string;
  /** A neutral account V follows, which boosts X's status. */
  booster: TestUser;
  listId: string;
  /** V's own status that X replied to, favourited and boosted. */
  rootId: string;
  /** X's public status mentioning V, with a hashtag and a searchable word. */
  statusId: string;
  replyId: string;
  boostId: string;
}

interface Case {
  name: string;
  remote: boolean;
  apply(inst: TestInstance, f: Fixture, author: TestUser | null): Promise<void>;
  /** Endpoints where X's items stay shown. */
  shown: Endpoint[];
}

const CASES: Case[] = [
  {
    name: 'viewer blocks author',
    remote: false,
    apply: async (_inst, f) => void (await act(f.viewer, 'block', f.authorId)),
    // Mastodon shows a blocked account's profile and statuses when asked for them directly.
    shown: ['status', 'profile'],
  },
  {
    name: 'author blocks viewer',
    remote: false,
    apply: async (_inst, f, author) => void (await act(author!, 'block', f.viewer.accountId)),
    shown: [],
  },
  {
    name: 'viewer mutes author (notifications hidden)',
    remote: false,
    apply: async (_inst, f) => void (await act(f.viewer, 'mute', f.authorId)),
    shown: ['status', 'profile'],
  },
  {
    name: 'viewer mutes author (notifications shown)',
    remote: false,
    apply: async (_inst, f) => void (await act(f.viewer, 'mute', f.authorId, { notifications: false })),
    shown: ['status', 'profile', 'notifications v1', 'notifications v2'],
  },
  {
    name: "viewer blocks author's domain",
    remote: true,
    apply: async (_inst, f) => {
      const res = await f.viewer.client.post('/api/v1/domain_blocks', { domain: `far${f.n}.example` });
      expect(res.status).toBe(200);
    },
    shown: ['status', 'profile'],
  },
];

async function listIds(client: TestClient, path: string): Promise<string[]> {
  const res = await client.get(path);
  expect(res.status, `${path}: ${res.text}`).toBe(200);
  return (res.body as { id: string }[]).map((x) => x.id);
}

/** Whether X's item shows at an endpoint, for V. */
async function shows(inst: TestInstance, f: Fixture, endpoint: Endpoint): Promise<boolean> {
  const v = f.viewer.client;
  switch (endpoint) {
    case 'home':
      return (await listIds(v, '/api/v1/timelines/home?limit=40')).includes(f.statusId);
    case 'home boost':
      return (await listIds(v, '/api/v1/timelines/home?limit=40')).includes(f.boostId);
    case 'public':
      return (await listIds(v, '/api/v1/timelines/public?limit=40')).includes(f.statusId);
    case 'tag':
      return (await listIds(v, `/api/v1/timelines/tag/matrix${f.n}`)).includes(f.statusId);
    case 'list':
      // The list timeline route is not mounted yet (timelines area); its core query is what it will serve.
      return listTimelineStatusIds(inst.deps, f.viewer.accountId, f.listId, { limit: 40 }).includes(f.statusId);
    case 'profile':
      return (await listIds(v, `/api/v1/accounts/${f.authorId}/statuses`)).includes(f.statusId);
    case 'profile boost':
      return (await listIds(v, `/api/v1/accounts/${f.booster.accountId}/statuses`)).includes(f.boostId);
    case 'status': {
      const res = await v.get(`/api/v1/statuses/${f.statusId}`);
      expect([200, 404]).toContain(res.status);
      return res.status === 200;
    }
    case 'context': {
      const res = await v.get(`/api/v1/statuses/${f.rootId}/context`);
      expect(res.status).toBe(200);
      return res.body.descendants.some((s: { id: string }) => s.id === f.replyId);
    }
    case 'search': {
      const res = await v.get(`/api/v2/search?q=matrixword${f.n}&type=statuses`);
      expect(res.status).toBe(200);
      return res.body.statuses.some((s: { id: string }) => s.id === f.statusId);
    }
    case 'notifications v1': {
      const res = await v.get('/api/v1/notifications?limit=40');
      expect(res.status).toBe(200);
      return res.body.some((n: { account: { id: string } }) => n.account.id === f.authorId);
    }
    case 'notifications v2': {
      const res = await v.get('/api/v2/notifications?limit=40');
      expect(res.status).toBe(200);
      return res.body.notification_groups.some((g: { sample_account_ids: string[] }) => g.sample_account_ids.includes(f.authorId));
    }
    case 'favourited_by':
      return (await listIds(v, `/api/v1/statuses/${f.rootId}/favourited_by`)).includes(f.authorId);
    case 'reblogged_by':
      return (await listIds(v, `/api/v1/statuses/${f.rootId}/reblogged_by`)).includes(f.authorId);
  }
}

describe('blocks, mutes and domain blocks on every endpoint that returns statuses or notifications', () => {
  let inst: TestInstance;

  beforeAll(async () => {
    inst = await startInstance();
  });
  afterAll(async () => {
    await inst.close();
  });

  /** Sets up V, X and what X did, locally through the API or, for a remote X, as federation will store it. */
  async function setUp(n: number, remote: boolean): Promise<{ f: Fixture; author: TestUser | null }> {
    const viewer = await inst.createUser(`viewer${n}`);
    const booster = await inst.createUser(`booster${n}`);
    const root = await post(viewer, `root ${n}`);
    let author: TestUser | null = null;
    let authorId: string;
    let statusId: string;
    let replyId: string;
    const text = `@viewer${n} hello matrixword${n} #matrix${n}`;
    if (!remote) {
      author = await inst.createUser(`author${n}`);
      authorId = author.accountId;
      await act(viewer, 'follow', authorId);
      statusId = (await post(author, text)).id;
      replyId = (await post(author, { status: `@viewer${n} a reply`, in_reply_to_id: root.id })).id;
      expect((await author.client.post(`/api/v1/statuses/${root.id}/favourite`)).status).toBe(200);
      expect((await author.client.post(`/api/v1/statuses/${root.id}/reblog`)).status).toBe(200);
    } else {
      authorId = seedRemoteAccount(inst, `far${n}`, `far${n}.example`);
      seedFollow(inst, viewer.accountId, authorId);
      // The hashtag exists once someone used it; the remote status carries it as the inbox will store it.
      await post(booster, `warming up #matrix${n}`);
      statusId = seedRemoteStatus(inst, authorId, text, { mentions: [viewer.accountId], tag: `matrix${n}` });
      replyId = seedRemoteStatus(inst, authorId, 'a reply', { inReplyTo: { id: root.id, account: { id: viewer.accountId } }, mentions: [viewer.accountId] });
      const favId = newId();
      inst.deps.db
        .query('INSERT INTO favourites (id, account_id, status_id, created_at) VALUES (@id, @account_id, @status_id, @at)')
        .run({ id: favId, account_id: authorId, status_id: root.id, at: Date.now() });
      inst.deps.events.emit('favourite.created', { favouriteId: favId, statusId: root.id, accountId: authorId });
      seedRemoteStatus(inst, authorId, '', { reblogOf: root.id });
    }
    // X's reply to someone V does not follow stays out of V's home, so the booster's boost of it
    // shows there (a boost of something already in the feed would not, as in Mastodon).
    const third = await inst.createUser(`third${n}`);
    const thirdStatus = await post(third, `third ${n}`);
    const boostedId = author
      ? (await post(author, { status: `@third${n} over here`, in_reply_to_id: thirdStatus.id })).id
      : seedRemoteStatus(inst, authorId, 'over here', { inReplyTo: { id: thirdStatus.id, account: { id: third.accountId } }, mentions: [third.accountId] });
    await act(viewer, 'follow', booster.accountId);
    const boost = await booster.client.post(`/api/v1/statuses/${boostedId}/reblog`);
    expect(boost.status, boost.text).toBe(200);
    const list = await viewer.client.post('/api/v1/lists', { title: `list ${n}` });
    expect(list.status, list.text).toBe(200);
    const added = await viewer.client.post(`/api/v1/lists/${list.body.id}/accounts`, { account_ids: [authorId] });
    expect(added.status, added.text).toBe(200);
    return {
      f: { n, viewer, authorId, booster, listId: list.body.id, rootId: root.id, statusId, replyId, boostId: boost.body.id },
      author,
    };
  }

  CASES.forEach((c, i) => {
    it(c.name, async () => {
      const { f, author } = await setUp(i + 1, c.remote);
      const before: Record<string, boolean> = {};
      for (const e of ENDPOINTS) before[e] = await shows(inst, f, e);
      expect(before, 'before the relationship, X shows everywhere').toEqual(Object.fromEntries(ENDPOINTS.map((e) => [e, true])));

      await c.apply(inst, f, author);
      const after: Record<string, boolean> = {};
      for (const e of ENDPOINTS) after[e] = await shows(inst, f, e);
      expect(after).toEqual(Object.fromEntries(ENDPOINTS.map((e) => [e, c.shown.includes(e)])));
    });
  });
});
