import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestClient } from '../helpers/client.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { follow, post, unfollow } from './helpers.js';

/**
 * The visibility matrix: for each visibility (public, unlisted, private, direct), each kind of
 * viewer (the author, an account the status mentions, a follower, a stranger, anonymous) and each
 * endpoint that returns statuses, exactly the right statuses appear.
 */

type Visibility = 'public' | 'unlisted' | 'private' | 'direct';
type Viewer = 'author' | 'mentioned' | 'follower' | 'stranger' | 'anonymous';

const VISIBILITIES: Visibility[] = ['public', 'unlisted', 'private', 'direct'];
const VIEWERS: Viewer[] = ['author', 'mentioned', 'follower', 'stranger', 'anonymous'];

/** Who may see a status at all: THE rule. */
const MAY_SEE: Record<Visibility, Viewer[]> = {
  public: ['author', 'mentioned', 'follower', 'stranger', 'anonymous'],
  unlisted: ['author', 'mentioned', 'follower', 'stranger', 'anonymous'],
  private: ['author', 'mentioned', 'follower'],
  direct: ['author', 'mentioned'],
};

const all = (v: Viewer) => VISIBILITIES.filter((vis) => MAY_SEE[vis].includes(v));

describe('visibility matrix', () => {
  let inst: TestInstance;
  let author: TestUser;
  let mentioned: TestUser;
  let follower: TestUser;
  let stranger: TestUser;
  const clients = {} as Record<Viewer, TestClient>;
  const byVisibility = {} as Record<Visibility, string>;
  let root: string;

  beforeAll(async () => {
    inst = await startInstance();
    author = await inst.createUser('author');
    mentioned = await inst.createUser('mentioned');
    follower = await inst.createUser('follower');
    stranger = await inst.createUser('stranger');
    clients.author = author.client;
    clients.mentioned = mentioned.client;
    clients.follower = follower.client;
    clients.stranger = stranger.client;
    clients.anonymous = inst.anon;
    await follow(follower.client, author.accountId);
    // Public statuses of indexable accounts are searchable by anyone signed in.
    inst.deps.db.query('UPDATE accounts SET indexable = 1 WHERE id = @id').run({ id: author.accountId });
    root = (await post(author.client, { status: 'matrix root' })).id;
    for (const visibility of VISIBILITIES) {
      const s = await post(author.client, { status: `@mentioned matrixword ${visibility} #matrix`, visibility, in_reply_to_id: root });
      byVisibility[visibility] = s.id;
    }
    // Everyone bookmarks and favourites what they can (the action itself answers 404 otherwise).
    for (const viewer of VIEWERS.filter((v) => v !== 'anonymous')) {
      for (const visibility of VISIBILITIES) {
        const res = await clients[viewer].post(`/api/v1/statuses/${byVisibility[visibility]}/bookmark`);
        expect(res.status).toBe(MAY_SEE[visibility].includes(viewer) ? 200 : 404);
        await clients[viewer].post(`/api/v1/statuses/${byVisibility[visibility]}/favourite`);
      }
    }
  });
  afterAll(async () => {
    await inst.close();
  });

  /** The visibilities of the matrix statuses among a list of statuses. */
  function seen(statuses: { id: string }[]): Visibility[] {
    const ids = new Set(statuses.map((s) => s.id));
    return VISIBILITIES.filter((v) => ids.has(byVisibility[v]));
  }

  async function list(viewer: Viewer, path: string): Promise<Visibility[]> {
    const res = await clients[viewer].get(path);
    expect(res.status, `${viewer} ${path}: ${res.text}`).toBe(200);
    return seen(res.body);
  }

  /** Each endpoint with what each viewer must see there (null: the endpoint needs a user). */
  const endpoints: { name: string; path: () => string; expected: (v: Viewer) => Visibility[] | null; pick?: (body: any) => { id: string }[] }[] = [
    { name: 'GET /api/v1/statuses?id[]=', path: () => `/api/v1/statuses?${VISIBILITIES.map((v) => `id[]=${byVisibility[v]}`).join('&')}`, expected: all },
    { name: 'GET /api/v1/accounts/:id/statuses', path: () => `/api/v1/accounts/${author.accountId}/statuses`, expected: all },
    { name: 'GET /api/v1/accounts/:id/statuses?tagged', path: () => `/api/v1/accounts/${author.accountId}/statuses?tagged=matrix`, expected: all },
    { name: 'GET /api/v1/statuses/:id/context', path: () => `/api/v1/statuses/${root}/context`, expected: all, pick: (b) => b.descendants },
    // Unlisted statuses never appear in the public and tag timelines; the rest only if public.
    { name: 'GET /api/v1/timelines/public', path: () => '/api/v1/timelines/public?limit=40', expected: () => ['public'] },
    { name: 'GET /api/v1/timelines/public?local', path: () => '/api/v1/timelines/public?local=true', expected: () => ['public'] },
    { name: 'GET /api/v1/timelines/tag/:tag', path: () => '/api/v1/timelines/tag/matrix', expected: () => ['public'] },
    {
      name: 'GET /api/v1/timelines/home',
      path: () => '/api/v1/timelines/home?limit=40',
      // The author's own; a follower's, but direct only to the mentioned followers; nothing for others.
      expected: (v) => (v === 'anonymous' ? null : v === 'author' ? [...VISIBILITIES] : v === 'follower' ? ['public', 'unlisted', 'private'] : []),
    },
    { name: 'GET /api/v1/bookmarks', path: () => '/api/v1/bookmarks', expected: (v) => (v === 'anonymous' ? null : all(v)) },
    { name: 'GET /api/v1/favourites', path: () => '/api/v1/favourites', expected: (v) => (v === 'anonymous' ? null : all(v)) },
    {
      name: 'GET /api/v2/search',
      path: () => '/api/v2/search?q=matrixword&type=statuses',
      // Full text: not for anonymous; what the viewer may see AND wrote, was mentioned in, favourited,
      // bookmarked or boosted, or public statuses of indexable accounts. Everyone here favourited
      // what they could see, so the library rule and the visibility rule give the same answer.
      expected: (v) => (v === 'anonymous' ? [] : all(v)),
      pick: (b) => b.statuses,
    },
    {
      name: 'GET /api/v1/conversations',
      path: () => '/api/v1/conversations',
      expected: (v) => (v === 'anonymous' ? null : v === 'author' || v === 'mentioned' ? ['direct'] : []),
      pick: (b) => b.map((c: { last_status: { id: string } | null }) => c.last_status).filter(Boolean),
    },
  ];

  for (const ep of endpoints) {
    it(ep.name, async () => {
      for (const viewer of VIEWERS) {
        const expected = ep.expected(viewer);
        const res = await clients[viewer].get(ep.path());
        if (expected === null) {
          expect(res.status, `${viewer} ${ep.name}`).toBe(401);
          continue;
        }
        expect(res.status, `${viewer} ${ep.name}: ${res.text}`).toBe(200);
        expect(seen(ep.pick ? ep.pick(res.body) : res.body), `${viewer} on ${ep.name}`).toEqual(expected);
      }
    });
  }

  it('GET /api/v1/statuses/:id', async () => {
    for (const viewer of VIEWERS) {
      for (const visibility of VISIBILITIES) {
        const res = await clients[viewer].get(`/api/v1/statuses/${byVisibility[visibility]}`);
        expect(res.status, `${viewer} ${visibility}`).toBe(MAY_SEE[visibility].includes(viewer) ? 200 : 404);
      }
    }
  });

  it('follows the follow: after an unfollow the private status disappears everywhere for the former follower', async () => {
    await unfollow(follower.client, author.accountId);
    expect(await list('follower', `/api/v1/accounts/${author.accountId}/statuses`)).toEqual(['public', 'unlisted']);
    expect(await list('follower', '/api/v1/timelines/home?limit=40')).toEqual([]);
    expect(await list('follower', '/api/v1/bookmarks')).toEqual(['public', 'unlisted']);
    expect(await list('follower', '/api/v1/favourites')).toEqual(['public', 'unlisted']);
    await follow(follower.client, author.accountId);
    expect(await list('follower', '/api/v1/timelines/home?limit=40')).toEqual(['public', 'unlisted', 'private']);
  });
});
