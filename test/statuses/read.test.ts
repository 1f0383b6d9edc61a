import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { follow, post } from './helpers.js';

describe('reading statuses', () => {
  let inst: TestInstance;
  let author: TestUser;
  let follower: TestUser;
  let mentioned: TestUser;
  let stranger: TestUser;
  const s: Record<'public' | 'unlisted' | 'private' | 'direct', string> = { public: '', unlisted: '', private: '', direct: '' };

  beforeAll(async () => {
    inst = await startInstance();
    author = await inst.createUser('author');
    follower = await inst.createUser('follower');
    mentioned = await inst.createUser('mentioned');
    stranger = await inst.createUser('stranger');
    await follow(follower.client, author.accountId);
    for (const visibility of ['public', 'unlisted', 'private', 'direct'] as const) {
      s[visibility] = (await post(author.client, { status: `${visibility} for @mentioned`, visibility })).id;
    }
  });
  afterAll(async () => {
    await inst.close();
  });

  it('shows each visibility to exactly the right viewers (GET /api/v1/statuses/:id)', async () => {
    const viewers = { author: author.client, follower: follower.client, mentioned: mentioned.client, stranger: stranger.client, anonymous: inst.anon };
    const expected: Record<string, Record<string, number>> = {
      public: { author: 200, follower: 200, mentioned: 200, stranger: 200, anonymous: 200 },
      unlisted: { author: 200, follower: 200, mentioned: 200, stranger: 200, anonymous: 200 },
      private: { author: 200, follower: 200, mentioned: 200, stranger: 404, anonymous: 404 },
      direct: { author: 200, follower: 404, mentioned: 200, stranger: 404, anonymous: 404 },
    };
    for (const [visibility, byViewer] of Object.entries(expected)) {
      for (const [viewer, status] of Object.entries(byViewer)) {
        const res = await viewers[viewer as keyof typeof viewers].get(`/api/v1/statuses/${s[visibility as keyof typeof s]}`);
        expect(res.status, `${visibility} seen by ${viewer}`).toBe(status);
        if (status === 404) expect(res.body).toEqual({ error: 'Record not found' });
        else expect(res.body.visibility).toBe(visibility);
      }
    }
  });

  it('leaves viewer flags out for anonymous viewers and shows them to signed-in ones', async () => {
    const anon = await inst.anon.get(`/api/v1/statuses/${s.public}`);
    for (const key of ['favourited', 'reblogged', 'muted', 'bookmarked', 'pinned', 'filtered']) expect(anon.body).not.toHaveProperty(key);
    const other = await stranger.client.get(`/api/v1/statuses/${s.public}`);
    expect(other.body).toMatchObject({ favourited: false, reblogged: false, muted: false, bookmarked: false, filtered: [] });
    // `pinned` only where the viewer could pin.
    expect(other.body).not.toHaveProperty('pinned');
    expect((await author.client.get(`/api/v1/statuses/${s.public}`)).body.pinned).toBe(false);
  });

  it('answers 404 for missing statuses and ids that cannot exist', async () => {
    expect((await inst.anon.get('/api/v1/statuses/1')).status).toBe(404);
    expect((await inst.anon.get('/api/v1/statuses/abc')).status).toBe(404);
  });

  it('checks tokens and scopes on public routes when a token is given', async () => {
    expect((await inst.anon.get(`/api/v1/statuses/${s.public}`, { token: 'bad' })).status).toBe(401);
    const writeOnly = author.client.withToken(inst.tokenFor(author, 'write'));
    expect((await writeOnly.get(`/api/v1/statuses/${s.public}`)).status).toBe(403);
    const granular = author.client.withToken(inst.tokenFor(author, 'read:statuses'));
    expect((await granular.get(`/api/v1/statuses/${s.private}`)).status).toBe(200);
  });

  it('GET /api/v1/statuses?id[]= returns the visible ones in the order asked', async () => {
    const q = `id[]=${s.direct}&id[]=${s.unlisted}&id[]=999&id[]=${s.public}&id[]=${s.private}&id[]=nope`;
    const anon = await inst.anon.get(`/api/v1/statuses?${q}`);
    expect(anon.status).toBe(200);
    expect(anon.body.map((x: { id: string }) => x.id)).toEqual([s.unlisted, s.public]);
    const fol = await follower.client.get(`/api/v1/statuses?${q}`);
    expect(fol.body.map((x: { id: string }) => x.id)).toEqual([s.unlisted, s.public, s.private]);
    const men = await mentioned.client.get(`/api/v1/statuses?${q}`);
    expect(men.body.map((x: { id: string }) => x.id)).toEqual([s.direct, s.unlisted, s.public, s.private]);
    expect((await inst.anon.get('/api/v1/statuses')).body).toEqual([]);
  });

  it('GET /source gives the raw text to the author only', async () => {
    const st = await post(author.client, { status: 'raw <b>text</b> #tag', spoiler_text: 'cw' });
    const res = await author.client.get(`/api/v1/statuses/${st.id}/source`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: st.id, text: 'raw <b>text</b> #tag', spoiler_text: 'cw' });
    expect((await stranger.client.get(`/api/v1/statuses/${st.id}/source`)).status).toBe(404);
    expect((await inst.anon.get(`/api/v1/statuses/${st.id}/source`)).status).toBe(401);
    const writeOnly = author.client.withToken(inst.tokenFor(author, 'write'));
    expect((await writeOnly.get(`/api/v1/statuses/${st.id}/source`)).status).toBe(403);
  });
});

describe('GET /api/v1/statuses/:id/context', () => {
  const env = useInstance(['alice', 'bob', 'carol']);

  it('gives ancestors root first and descendants depth-first, filtered by visibility', async () => {
    const { inst, users: { alice, bob, carol } } = env();
    const root = await post(alice.client, { status: 'root' });
    const a = await post(bob.client, { status: 'a', in_reply_to_id: root.id });
    const b = await post(carol.client, { status: 'b', in_reply_to_id: root.id });
    const a1 = await post(alice.client, { status: 'a1', in_reply_to_id: a.id });
    const hidden = await post(bob.client, { status: '@alice only', in_reply_to_id: a1.id, visibility: 'direct' });
    const a1x = await post(carol.client, { status: 'a1x', in_reply_to_id: a1.id });

    const anon = await inst.anon.get(`/api/v1/statuses/${a1.id}/context`);
    expect(anon.status).toBe(200);
    expect(anon.body.ancestors.map((x: { id: string }) => x.id)).toEqual([root.id, a.id]);
    expect(anon.body.descendants.map((x: { id: string }) => x.id)).toEqual([a1x.id]);

    const mine = await alice.client.get(`/api/v1/statuses/${root.id}/context`);
    expect(mine.body.ancestors).toEqual([]);
    expect(mine.body.descendants.map((x: { id: string }) => x.id)).toEqual([a.id, a1.id, hidden.id, a1x.id, b.id]);
    const carols = await carol.client.get(`/api/v1/statuses/${root.id}/context`);
    expect(carols.body.descendants.map((x: { id: string }) => x.id)).toEqual([a.id, a1.id, a1x.id, b.id]);

    expect((await carol.client.get(`/api/v1/statuses/${hidden.id}/context`)).status).toBe(404);
    expect((await alice.client.get(`/api/v1/statuses/${hidden.id}/context`)).body.ancestors).toHaveLength(3);
  });

  it('has no small limit: a thread of 70 replies comes whole, even anonymously', async () => {
    const { inst, users: { alice, bob } } = env();
    const root = await post(alice.client, { status: 'long thread' });
    let parent = root.id as string;
    const ids: string[] = [];
    for (let i = 0; i < 70; i++) {
      parent = (await post(i % 2 ? alice.client : bob.client, { status: `reply ${i}`, in_reply_to_id: parent })).id;
      ids.push(parent);
    }
    const down = await inst.anon.get(`/api/v1/statuses/${root.id}/context`);
    expect(down.body.descendants.map((x: { id: string }) => x.id)).toEqual(ids);
    const up = await inst.anon.get(`/api/v1/statuses/${parent}/context`);
    expect(up.body.ancestors.map((x: { id: string }) => x.id)).toEqual([root.id, ...ids.slice(0, -1)]);
  });
});
