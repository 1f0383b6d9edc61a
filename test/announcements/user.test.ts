import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { postStatus, seedRemoteAccount } from '../helpers/fixtures.js';
import { seedRemoteStatus } from '../streaming/helpers.js';
import { addEmoji, announce, fromNow, owner, rows } from './helpers.js';

/** The announcements API as users call it: list, dismiss, reactions. */
describe('announcements for users', () => {
  let inst: TestInstance;
  let staff: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  beforeAll(async () => {
    inst = await startInstance();
    staff = await owner(inst);
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    await addEmoji(inst, 'blobcat');
  });
  afterAll(async () => {
    await inst.close();
  });

  const path = (id: string, rest = '') => `/api/v1/announcements/${id}${rest}`;
  const react = (user: TestUser, id: string, name: string) => user.client.put(path(id, `/reactions/${encodeURIComponent(name)}`));
  const unreact = (user: TestUser, id: string, name: string) => user.client.delete(path(id, `/reactions/${encodeURIComponent(name)}`));

  it('lists what is published and current, in chronological order, rendered as Mastodon renders it', async () => {
    expect((await alice.client.get('/api/v1/announcements')).body).toEqual([]);
    const shown = await postStatus(bob.client, { status: 'Read this', visibility: 'public' });
    const hidden = await postStatus(bob.client, { status: 'Only for followers', visibility: 'private' });
    const text = `Hello @bob and @nobody! See ${shown.url} and ${hidden.url} #Welcome :blobcat: :nosuch:\n\nhttps://example.com/info`;
    const first = await announce(staff.client, { text, starts_at: '2030-01-01T10:00:00Z', ends_at: '2030-01-02T10:00:00Z' });
    const second = await announce(staff.client, { text: 'Earlier by its start', starts_at: '2029-06-01', ends_at: '2029-06-03', all_day: true });
    await announce(staff.client, { text: 'Not yet', scheduled_at: fromNow(3_600_000) });
    await announce(staff.client, { text: 'Already over', starts_at: fromNow(-7_200_000), ends_at: fromNow(-3_600_000) });

    const res = await alice.client.get('/api/v1/announcements');
    expect(res.status).toBe(200);
    expect(res.body.map((a: { id: string }) => a.id)).toEqual([second.id, first.id]);
    const a = res.body[1];
    expect(a).toMatchObject({
      id: first.id,
      starts_at: '2030-01-01T10:00:00.000Z',
      ends_at: '2030-01-02T10:00:00.000Z',
      all_day: false,
      read: false,
      reactions: [],
    });
    expect(a.published_at).toBe(first.published_at);
    expect(a.content).toMatch(/^<p>Hello <span class="h-card" translate="no"><a href="[^"]+\/@bob" class="u-url mention">@<span>bob<\/span><\/a><\/span> and @nobody! See <a href=/);
    expect(a.content).toContain('<a href="http://127.0.0.1');
    expect(a.content).toContain('class="mention hashtag" rel="tag">#<span>Welcome</span></a>');
    expect(a.content).toContain('</p><p><a href="https://example.com/info"');
    expect(a.mentions).toEqual([{ id: bob.accountId, username: 'bob', acct: 'bob', url: expect.stringMatching(/\/@bob$/) }]);
    expect(a.statuses).toEqual([{ id: shown.id, url: shown.url }]);
    expect(a.tags).toEqual([{ name: 'Welcome', url: expect.stringMatching(/\/tags\/Welcome$/) }]);
    expect(a.emojis.map((e: { shortcode: string }) => e.shortcode)).toEqual(['blobcat']);
    expect(res.body[0]).toMatchObject({ all_day: true, starts_at: '2029-06-01T00:00:00.000Z', ends_at: '2029-06-03T00:00:00.000Z' });
  });

  it('links statuses named by any address of the instance and known remote ones, by their id or page', async () => {
    const mine = await postStatus(alice.client, { status: 'Linked by another name', visibility: 'unlisted' });
    const port = new URL(inst.url).port;
    const remoteAccount = seedRemoteAccount(inst, 'zed', 'remote.example');
    const byUri = seedRemoteStatus(inst, remoteAccount);
    const byPage = seedRemoteStatus(inst, remoteAccount);
    const text = [
      `http://localhost:${port}/users/alice/statuses/${mine.id}`,
      `https://remote.example/statuses/${byUri}`,
      `https://remote.example/@x/${byPage}`,
      `http://localhost:${port}/@bob/${mine.id}`, // not Bob's: nothing
      'https://remote.example/statuses/1', // unknown: nothing is fetched
    ].join(' ');
    const a = await announce(staff.client, { text });
    const shown = (await alice.client.get('/api/v1/announcements')).body.find((x: { id: string }) => x.id === a.id);
    expect(shown.statuses).toEqual([
      { id: mine.id, url: mine.url },
      { id: byUri, url: `https://remote.example/@x/${byUri}` },
      { id: byPage, url: `https://remote.example/@x/${byPage}` },
    ]);
    await staff.client.delete(`/api/v1/admin/announcements/${a.id}`);
  });

  it('dismisses: `read` becomes true, dismissed ones stay listed unless with_dismissed=false', async () => {
    const a = await announce(staff.client, { text: 'Dismiss me' });
    expect((await alice.client.post(path(a.id, '/dismiss'))).status).toBe(200);
    // Again: nothing changes, still 200 (Mastodon's find_or_create).
    const again = await alice.client.post(path(a.id, '/dismiss'));
    expect(again.status).toBe(200);
    expect(again.body).toEqual({});
    const mine = (await alice.client.get('/api/v1/announcements')).body.find((x: { id: string }) => x.id === a.id);
    expect(mine.read).toBe(true);
    const bobs = (await bob.client.get('/api/v1/announcements')).body.find((x: { id: string }) => x.id === a.id);
    expect(bobs.read).toBe(false);
    const without = (await alice.client.get('/api/v1/announcements?with_dismissed=false')).body;
    expect(without.some((x: { id: string }) => x.id === a.id)).toBe(false);
    expect(without.length).toBeGreaterThan(0);
    const withThem = (await alice.client.get('/api/v1/announcements?with_dismissed=true')).body;
    expect(withThem.some((x: { id: string }) => x.id === a.id)).toBe(true);
  });

  it('answers 404 for announcements users do not see, and for unknown ones', async () => {
    const scheduled = await announce(staff.client, { text: 'Later', scheduled_at: fromNow(3_600_000) });
    for (const id of [scheduled.id, '12345', 'nope']) {
      const dismiss = await alice.client.post(path(id, '/dismiss'));
      expect(dismiss.status).toBe(404);
      expect(dismiss.body).toEqual({ error: 'Record not found' });
      expect((await react(alice, id, '👍')).status).toBe(404);
      expect((await unreact(alice, id, '👍')).status).toBe(404);
    }
    expect(rows(inst, 'announcement_reactions')).toBe(0);
  });

  it('adds and removes reactions: counts, `me`, custom emojis with their pictures, order of first use', async () => {
    const a = await announce(staff.client, { text: 'React to me' });
    expect((await react(alice, a.id, '👍')).body).toEqual({});
    expect((await react(bob, a.id, 'blobcat')).status).toBe(200);
    expect((await react(bob, a.id, '👍')).status).toBe(200);
    // The same reaction again changes nothing.
    expect((await react(bob, a.id, '👍')).status).toBe(200);
    // With or without the variation selector, a heart is an emoji.
    expect((await react(alice, a.id, '❤')).status).toBe(200);

    const forAlice = (await alice.client.get('/api/v1/announcements')).body.find((x: { id: string }) => x.id === a.id);
    expect(forAlice.reactions).toEqual([
      { name: '👍', count: 2, me: true },
      { name: 'blobcat', count: 1, me: false, url: expect.stringContaining('/custom_emojis/'), static_url: expect.stringContaining('/custom_emojis/') },
      { name: '❤', count: 1, me: true },
    ]);
    const custom = forAlice.reactions[1];
    expect((await fetch(custom.url)).status).toBe(200);
    const forBob = (await bob.client.get('/api/v1/announcements')).body.find((x: { id: string }) => x.id === a.id);
    expect(forBob.reactions.map((r: { me: boolean }) => r.me)).toEqual([true, true, false]);

    expect((await unreact(alice, a.id, '👍')).status).toBe(200);
    // Taking back what one did not give is 404, as Mastodon finds the reaction first.
    const missing = await unreact(alice, a.id, '👍');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('Record not found');
    const after = (await alice.client.get('/api/v1/announcements')).body.find((x: { id: string }) => x.id === a.id);
    // Ordered by the earliest reaction still there: Bob's thumbs-up came after his blobcat.
    expect(after.reactions.map((r: { name: string }) => r.name)).toEqual(['blobcat', '👍', '❤']);
    expect(after.reactions[1]).toEqual({ name: '👍', count: 1, me: false });
  });

  it('refuses what is no emoji and a ninth different reaction, writing nothing', async () => {
    const a = await announce(staff.client, { text: 'Only emojis' });
    const before = rows(inst, 'announcement_reactions');
    for (const name of ['notanemoji', 'nosuch', 'ab', '🙂🙂', 'BLOBCAT']) {
      const res = await react(alice, a.id, name);
      expect(res.status, name).toBe(422);
      expect(res.body.error).toBe('Validation failed: Name is not a recognized emoji');
    }
    expect(rows(inst, 'announcement_reactions')).toBe(before);

    const eight = ['😀', '😂', '🥲', '😍', '🤔', '🎉', '🔥', '👀'];
    for (const name of eight) expect((await react(alice, a.id, name)).status, name).toBe(200);
    const ninth = await react(bob, a.id, '🐈');
    expect(ninth.status).toBe(422);
    expect(ninth.body.error).toBe('Validation failed: Limit of different reactions reached');
    // Joining an existing reaction is still fine.
    expect((await react(bob, a.id, '🔥')).status).toBe(200);
    expect(rows(inst, 'announcement_reactions')).toBe(before + 9);
  });

  it('asks for a user token and the scopes Mastodon names', async () => {
    const a = await announce(staff.client, { text: 'Scopes' });
    expect((await inst.anon.get('/api/v1/announcements')).status).toBe(401);
    const readOnly = alice.client.withToken(inst.tokenFor(alice, 'read:statuses'));
    expect((await readOnly.get('/api/v1/announcements')).status).toBe(200);
    expect((await readOnly.post(path(a.id, '/dismiss'))).status).toBe(403);
    expect((await readOnly.put(path(a.id, `/reactions/${encodeURIComponent('👍')}`))).status).toBe(403);
    const writeOnly = alice.client.withToken(inst.tokenFor(alice, 'write'));
    expect((await writeOnly.get('/api/v1/announcements')).status).toBe(403);

    const accounts = alice.client.withToken(inst.tokenFor(alice, 'write:accounts'));
    expect((await accounts.post(path(a.id, '/dismiss'))).status).toBe(200);
    expect((await accounts.put(path(a.id, `/reactions/${encodeURIComponent('👍')}`))).status).toBe(403);
    const favourites = alice.client.withToken(inst.tokenFor(alice, 'write:favourites'));
    expect((await favourites.post(path(a.id, '/dismiss'))).status).toBe(403);
    expect((await favourites.put(path(a.id, `/reactions/${encodeURIComponent('👍')}`))).status).toBe(200);
    expect((await favourites.delete(path(a.id, `/reactions/${encodeURIComponent('👍')}`))).status).toBe(200);
  });

  it('leaves out an announcement once it is withdrawn or deleted', async () => {
    const a = await announce(staff.client, { text: 'Short-lived' });
    await react(alice, a.id, '👍');
    await alice.client.post(path(a.id, '/dismiss'));
    expect((await staff.client.post(`/api/v1/admin/announcements/${a.id}/unpublish`)).status).toBe(200);
    expect((await alice.client.get('/api/v1/announcements')).body.some((x: { id: string }) => x.id === a.id)).toBe(false);
    expect((await react(alice, a.id, '🎉')).status).toBe(404);
    expect((await staff.client.delete(`/api/v1/admin/announcements/${a.id}`)).status).toBe(200);
    const left = inst.deps.db
      .query<{ n: number }>('SELECT (SELECT COUNT(*) FROM announcement_reactions WHERE announcement_id = @id) + (SELECT COUNT(*) FROM announcement_dismissals WHERE announcement_id = @id) AS n')
      .get({ id: a.id });
    expect(left?.n).toBe(0);
  });
});
