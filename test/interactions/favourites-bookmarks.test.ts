import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventMap } from '../../api/core/events.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { follow, links, post } from './helpers.js';

describe('favourites and bookmarks', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  const events: { name: string; payload: unknown }[] = [];

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    carol = await inst.createUser('carol');
    for (const name of ['favourite.created', 'favourite.deleted'] as const) {
      inst.deps.events.on(name, (payload: EventMap[typeof name]) => events.push({ name, payload }));
    }
  });
  afterAll(async () => {
    await inst.close();
  });

  it('favourites once, counts once, and answers the status with favourited: true', async () => {
    const status = await post(alice.client, { status: 'favourite me' });
    events.length = 0;
    const first = await bob.client.post(`/api/v1/statuses/${status.id}/favourite`);
    expect(first.status).toBe(200);
    expect(first.body.id).toBe(status.id);
    expect(first.body.favourited).toBe(true);
    expect(first.body.favourites_count).toBe(1);
    const again = await bob.client.post(`/api/v1/statuses/${status.id}/favourite`);
    expect(again.status).toBe(200);
    expect(again.body.favourites_count).toBe(1);
    expect(events.map((e) => e.name)).toEqual(['favourite.created']);
    expect(events[0]?.payload).toMatchObject({ statusId: status.id, accountId: bob.accountId });

    // Another viewer sees the count but not bob's flag.
    const seen = await carol.client.get(`/api/v1/statuses/${status.id}`);
    expect(seen.body.favourites_count).toBe(1);
    expect(seen.body.favourited).toBe(false);

    const undo = await bob.client.post(`/api/v1/statuses/${status.id}/unfavourite`);
    expect(undo.status).toBe(200);
    expect(undo.body.favourited).toBe(false);
    expect(undo.body.favourites_count).toBe(0);
    // Undoing again is fine and changes nothing.
    const undoAgain = await bob.client.post(`/api/v1/statuses/${status.id}/unfavourite`);
    expect(undoAgain.status).toBe(200);
    expect(undoAgain.body.favourites_count).toBe(0);
    expect(events.map((e) => e.name)).toEqual(['favourite.created', 'favourite.deleted']);
  });

  it('favouriting a reblog favourites the original', async () => {
    const status = await post(alice.client, { status: 'boost and like' });
    const reblog = await carol.client.post(`/api/v1/statuses/${status.id}/reblog`);
    expect(reblog.status).toBe(200);
    const fav = await bob.client.post(`/api/v1/statuses/${reblog.body.id}/favourite`);
    expect(fav.status).toBe(200);
    expect(fav.body.id).toBe(reblog.body.id);
    expect(fav.body.reblog.favourited).toBe(true);
    expect(fav.body.reblog.favourites_count).toBe(1);
    const original = await bob.client.get(`/api/v1/statuses/${status.id}`);
    expect(original.body.favourited).toBe(true);
  });

  it('answers 404 for statuses the caller may not see, and writes nothing', async () => {
    const secret = await post(alice.client, { status: 'followers only', visibility: 'private' });
    for (const action of ['favourite', 'unfavourite', 'bookmark', 'unbookmark']) {
      const res = await carol.client.post(`/api/v1/statuses/${secret.id}/${action}`);
      expect(res.status, action).toBe(404);
      expect(res.body).toEqual({ error: 'Record not found' });
    }
    expect((await alice.client.get(`/api/v1/statuses/${secret.id}`)).body.favourites_count).toBe(0);
    expect((await bob.client.post('/api/v1/statuses/99999999/favourite')).status).toBe(404);
    expect((await bob.client.post('/api/v1/statuses/not-an-id/favourite')).status).toBe(404);
  });

  it('lets a follower favourite a private status', async () => {
    await follow(bob.client, alice.accountId);
    const secret = await post(alice.client, { status: 'for followers', visibility: 'private' });
    const res = await bob.client.post(`/api/v1/statuses/${secret.id}/favourite`);
    expect(res.status).toBe(200);
    expect(res.body.favourited).toBe(true);
    // favourited_by of a private status: only for those who may see it.
    expect((await inst.anon.get(`/api/v1/statuses/${secret.id}/favourited_by`)).status).toBe(404);
    expect((await carol.client.get(`/api/v1/statuses/${secret.id}/favourited_by`)).status).toBe(404);
    const list = await bob.client.get(`/api/v1/statuses/${secret.id}/favourited_by`);
    expect(list.status).toBe(200);
    expect(list.body.map((a: { id: string }) => a.id)).toEqual([bob.accountId]);
  });

  it('bookmarks idempotently and sets bookmarked', async () => {
    const status = await post(alice.client, { status: 'bookmark me' });
    const res = await bob.client.post(`/api/v1/statuses/${status.id}/bookmark`);
    expect(res.status).toBe(200);
    expect(res.body.bookmarked).toBe(true);
    expect((await bob.client.post(`/api/v1/statuses/${status.id}/bookmark`)).body.bookmarked).toBe(true);
    expect((await carol.client.get(`/api/v1/statuses/${status.id}`)).body.bookmarked).toBe(false);
    const undo = await bob.client.post(`/api/v1/statuses/${status.id}/unbookmark`);
    expect(undo.status).toBe(200);
    expect(undo.body.bookmarked).toBe(false);
    expect((await bob.client.post(`/api/v1/statuses/${status.id}/unbookmark`)).status).toBe(200);
  });

  it('lists who favourited a public status, newest first, paged with Link headers, anonymously too', async () => {
    const status = await post(alice.client, { status: 'popular' });
    const fans: TestUser[] = [];
    for (const name of ['fan1', 'fan2', 'fan3']) {
      const fan = await inst.createUser(name);
      fans.push(fan);
      expect((await fan.client.post(`/api/v1/statuses/${status.id}/favourite`)).status).toBe(200);
    }
    const page1 = await inst.anon.get(`/api/v1/statuses/${status.id}/favourited_by?limit=2`);
    expect(page1.status).toBe(200);
    expect(page1.body.map((a: { username: string }) => a.username)).toEqual(['fan3', 'fan2']);
    const { next, prev } = links(page1.headers.get('link'));
    expect(next).toBeTruthy();
    expect(prev).toBeTruthy();
    const page2 = await inst.anon.get(next ?? '');
    expect(page2.body.map((a: { username: string }) => a.username)).toEqual(['fan1']);
    const newer = await inst.anon.get(links(page2.headers.get('link')).prev ?? '');
    expect(newer.body.map((a: { username: string }) => a.username)).toEqual(['fan3', 'fan2']);
  });

  it('checks tokens and scopes', async () => {
    const status = await post(alice.client, { status: 'scopes' });
    expect((await inst.anon.post(`/api/v1/statuses/${status.id}/favourite`)).status).toBe(401);
    expect((await bob.client.post(`/api/v1/statuses/${status.id}/favourite`, undefined, { token: 'bogus' })).status).toBe(401);
    const readOnly = inst.tokenFor(bob, 'read');
    const denied = await bob.client.post(`/api/v1/statuses/${status.id}/favourite`, undefined, { token: readOnly });
    expect(denied.status).toBe(403);
    expect((await bob.client.post(`/api/v1/statuses/${status.id}/bookmark`, undefined, { token: inst.tokenFor(bob, 'write:favourites') })).status).toBe(403);
    const granular = await bob.client.post(`/api/v1/statuses/${status.id}/favourite`, undefined, { token: inst.tokenFor(bob, 'write:favourites') });
    expect(granular.status).toBe(200);
    const bookmark = await bob.client.post(`/api/v1/statuses/${status.id}/bookmark`, undefined, { token: inst.tokenFor(bob, 'write:bookmarks') });
    expect(bookmark.status).toBe(200);
    // favourited_by with a token must carry a read scope.
    expect((await bob.client.get(`/api/v1/statuses/${status.id}/favourited_by`, { token: inst.tokenFor(bob, 'write') })).status).toBe(403);
    expect((await bob.client.get(`/api/v1/statuses/${status.id}/favourited_by`, { token: 'bogus' })).status).toBe(401);
  });
});
