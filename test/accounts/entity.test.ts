import { describe, expect, it } from 'vitest';
import { updateAccount } from '../../api/db/repos/accounts.js';
import { updateUser } from '../../api/db/repos/users.js';
import { newId } from '../../api/util/ids.js';
import { useInstance } from '../helpers/fixtures.js';
import { insertRemoteAccount } from './helpers.js';

describe('the Account entity', () => {
  const env = useInstance(['alice']);

  it('shows a local account with every documented field', async () => {
    const { inst, users: { alice } } = env();
    const res = await inst.anon.get(`/api/v1/accounts/${alice.accountId}`);
    expect(res.status).toBe(200);
    const a = res.body;
    expect(a.id).toBe(alice.accountId);
    expect(a.username).toBe('alice');
    expect(a.acct).toBe('alice');
    expect(a.url).toBe(`${inst.url}/@alice`);
    expect(a.uri).toBe(`${inst.url}/users/alice`);
    expect(a.display_name).toBe('');
    expect(a.note).toBe('');
    expect(a.locked).toBe(false);
    expect(a.bot).toBe(false);
    expect(a.group).toBe(false);
    expect(a.discoverable).toBeNull();
    expect(a.indexable).toBe(false);
    expect(a.hide_collections).toBe(false);
    // Never opted in to discovery: search engines are told to stay away.
    expect(a.noindex).toBe(true);
    expect(a.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/);
    expect(a.last_status_at).toBeNull();
    expect([a.followers_count, a.following_count, a.statuses_count]).toEqual([0, 0, 0]);
    expect(a.emojis).toEqual([]);
    expect(a.fields).toEqual([]);
    expect(a.roles).toEqual([]);
    for (const key of ['moved', 'suspended', 'limited', 'memorial']) expect(a).not.toHaveProperty(key);
  });

  it('points accounts without pictures at real default PNG files', async () => {
    const { inst, users: { alice } } = env();
    const a = (await inst.anon.get(`/api/v1/accounts/${alice.accountId}`)).body;
    expect(a.avatar).toBe(`${inst.url}/avatars/original/missing.png`);
    expect(a.avatar_static).toBe(a.avatar);
    expect(a.header).toBe(`${inst.url}/headers/original/missing.png`);
    expect(a.header_static).toBe(a.header);
    for (const url of [a.avatar, a.header]) {
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
      expect(bytes.length).toBeLessThan(20_000);
    }
  });

  it('writes acct of a remote account with its domain in Unicode', async () => {
    const { inst } = env();
    const id = insertRemoteAccount(inst, 'reader', 'bücher.example');
    const punycoded = insertRemoteAccount(inst, 'writer', 'xn--bcher-kva.example');
    const a = (await inst.anon.get(`/api/v1/accounts/${id}`)).body;
    expect(a.acct).toBe('reader@bücher.example');
    expect(a.uri).toBe('https://xn--bcher-kva.example/users/reader');
    expect(a.url).toBe('https://xn--bcher-kva.example/@reader');
    expect(a.created_at).toBe('2021-05-06T00:00:00.000Z');
    expect(a.roles).toEqual([]);
    // noindex is a local user's choice; it is not shown for remote accounts.
    expect(a).not.toHaveProperty('noindex');
    expect((await inst.anon.get(`/api/v1/accounts/${punycoded}`)).body.acct).toBe('writer@bücher.example');
  });

  it('writes last_status_at as a date', async () => {
    const { inst } = env();
    const id = insertRemoteAccount(inst, 'poster', 'dates.example', { last_status_at: Date.UTC(2024, 1, 3, 22, 10, 5), statuses_count: 12 });
    const a = (await inst.anon.get(`/api/v1/accounts/${id}`)).body;
    expect(a.last_status_at).toBe('2024-02-03');
    expect(a.statuses_count).toBe(12);
  });

  it('marks silenced accounts limited and memorial accounts memorial', async () => {
    const { inst } = env();
    const silenced = insertRemoteAccount(inst, 'loud', 'limits.example', { silenced_at: Date.now() });
    const memorial = insertRemoteAccount(inst, 'remembered', 'limits.example', { memorial: 1 });
    expect((await inst.anon.get(`/api/v1/accounts/${silenced}`)).body.limited).toBe(true);
    const m = (await inst.anon.get(`/api/v1/accounts/${memorial}`)).body;
    expect(m.memorial).toBe(true);
    expect(m).not.toHaveProperty('limited');
  });

  it('recognises group and bot actors', async () => {
    const { inst } = env();
    const group = insertRemoteAccount(inst, 'club', 'groups.example', { actor_type: 'Group' });
    const service = insertRemoteAccount(inst, 'robot', 'groups.example', { actor_type: 'Service' });
    const application = insertRemoteAccount(inst, 'app', 'groups.example', { actor_type: 'Application' });
    const g = (await inst.anon.get(`/api/v1/accounts/${group}`)).body;
    expect([g.group, g.bot]).toEqual([true, false]);
    const s = (await inst.anon.get(`/api/v1/accounts/${service}`)).body;
    expect([s.group, s.bot]).toEqual([false, true]);
    expect((await inst.anon.get(`/api/v1/accounts/${application}`)).body.bot).toBe(true);
  });

  it('shows highlighted roles of owners, admins and moderators', async () => {
    const { inst } = env();
    const owner = await inst.createUser('kim', { role: 'owner' });
    const admin = await inst.createUser('sam', { role: 'admin' });
    const moderator = await inst.createUser('lee', { role: 'moderator' });
    const roles = async (id: string) => (await inst.anon.get(`/api/v1/accounts/${id}`)).body.roles;
    expect(await roles(owner.accountId)).toEqual([{ id: '3', name: 'Owner', color: expect.stringMatching(/^#[0-9a-f]{6}$/) }]);
    expect(await roles(admin.accountId)).toEqual([{ id: '2', name: 'Admin', color: expect.stringMatching(/^#[0-9a-f]{6}$/) }]);
    expect(await roles(moderator.accountId)).toEqual([{ id: '1', name: 'Moderator', color: expect.stringMatching(/^#[0-9a-f]{6}$/) }]);
  });

  it('includes the moved-to account, its own move one level deeper, then cuts', async () => {
    const { inst } = env();
    const d = insertRemoteAccount(inst, 'd', 'moves.example');
    const c = insertRemoteAccount(inst, 'c', 'moves.example', { moved_to_account_id: d });
    const b = insertRemoteAccount(inst, 'b', 'moves.example', { moved_to_account_id: c });
    const a = insertRemoteAccount(inst, 'a', 'moves.example', { moved_to_account_id: b });
    const res = (await inst.anon.get(`/api/v1/accounts/${a}`)).body;
    expect(res.moved.id).toBe(b);
    expect(res.moved.moved.id).toBe(c);
    expect(res.moved.moved).not.toHaveProperty('moved');
    // Through the list endpoint too, with the chain shared between entries.
    const list = (await inst.anon.get(`/api/v1/accounts?id[]=${a}&id[]=${c}`)).body;
    expect(list.map((x: { id: string }) => x.id)).toEqual([a, c]);
    expect(list[1].moved.id).toBe(d);
    expect(list[0].moved.moved.id).toBe(c);
  });

  it('shows a suspended account with suspended: true and empty data (200, as Mastodon 3.3+), by id, lookup and in lists', async () => {
    const { inst, users: { alice } } = env();
    const id = insertRemoteAccount(inst, 'gone', 'suspended.example', {
      display_name: 'Gone :blob:',
      note: '<p>bio</p>',
      fields: JSON.stringify([{ name: 'Site', value: 'x', verified_at: null }]),
      followers_count: 5,
      statuses_count: 9,
      last_status_at: Date.now(),
      locked: 1,
      suspended_at: Date.now(),
      avatar_remote_url: 'https://suspended.example/a.png',
      avatar_description: 'a face',
    });
    const emptied = (a: Record<string, unknown>): void => {
      expect(a.id).toBe(id);
      expect(a.suspended).toBe(true);
      expect(a.acct).toBe('gone@suspended.example');
      expect([a.display_name, a.note, a.locked, a.bot, a.avatar_description]).toEqual(['', '', false, false, '']);
      expect([a.fields, a.emojis]).toEqual([[], []]);
      expect([a.followers_count, a.statuses_count, a.last_status_at]).toEqual([0, 0, null]);
      expect(a.avatar).toBe(`${inst.url}/avatars/original/missing.png`);
      expect(a.header).toBe(`${inst.url}/headers/original/missing.png`);
    };
    const single = await inst.anon.get(`/api/v1/accounts/${id}`);
    expect(single.status).toBe(200);
    emptied(single.body);
    const signedIn = await alice.client.get(`/api/v1/accounts/${id}`);
    expect(signedIn.status).toBe(200);
    emptied(signedIn.body);
    const lookup = await inst.anon.get('/api/v1/accounts/lookup?acct=gone@suspended.example');
    expect(lookup.status).toBe(200);
    emptied(lookup.body);
    const [a] = (await inst.anon.get(`/api/v1/accounts?id[]=${id}`)).body;
    emptied(a);
    // Its statuses are withheld; relationships leave it out unless asked `with_suspended`; search leaves it out.
    const statuses = await inst.anon.get(`/api/v1/accounts/${id}/statuses`);
    expect([statuses.status, statuses.body]).toEqual([200, []]);
    expect((await alice.client.get(`/api/v1/accounts/relationships?id[]=${id}`)).body).toEqual([]);
    const withSuspended = await alice.client.get(`/api/v1/accounts/relationships?id[]=${id}&with_suspended=true`);
    expect(withSuspended.body).toMatchObject([{ id, following: false }]);
    const search = await alice.client.get('/api/v2/search?q=gone@suspended.example&type=accounts');
    expect(search.status).toBe(200);
    expect(search.body.accounts).toEqual([]);
  });

  it('lists the custom emojis a profile uses, and renders fields with verified_at', async () => {
    const { inst } = env();
    const at = Date.now();
    for (const [shortcode, domain] of [
      ['blobcat', null],
      ['blobcat', 'emoji.example'],
      ['unused', null],
    ] as const) {
      inst.deps.db
        .query('INSERT INTO custom_emojis (id, shortcode, domain, image_file, image_remote_url, created_at, updated_at) VALUES (@id, @shortcode, @domain, @file, @remote, @at, @at)')
        .run({ id: newId(), shortcode, domain, file: domain ? null : `custom_emojis/${shortcode}.png`, remote: domain ? `https://${domain}/e/${shortcode}.png` : null, at });
    }
    const user = await inst.createUser('emojifan');
    updateAccount(inst.deps.db, user.accountId, {
      display_name: 'Fan :blobcat:',
      fields: JSON.stringify([{ name: 'Site', value: '<a href="https://a.example">a.example</a>', value_source: 'https://a.example', verified_at: Date.UTC(2024, 0, 2) }]),
    });
    const a = (await inst.anon.get(`/api/v1/accounts/${user.accountId}`)).body;
    expect(a.emojis).toEqual([
      { shortcode: 'blobcat', url: `${inst.url}/system/custom_emojis/blobcat.png`, static_url: `${inst.url}/system/custom_emojis/blobcat.png`, visible_in_picker: true, category: null },
    ]);
    expect(a.fields).toEqual([{ name: 'Site', value: '<a href="https://a.example">a.example</a>', verified_at: '2024-01-02T00:00:00.000Z' }]);
    const remote = insertRemoteAccount(inst, 'emo', 'emoji.example', { note: '<p>hi :blobcat:</p>' });
    const r = (await inst.anon.get(`/api/v1/accounts/${remote}`)).body;
    expect(r.emojis.map((e: { url: string }) => e.url)).toEqual(['https://emoji.example/e/blobcat.png']);
  });

  it('answers 404 for unknown and malformed ids and for sign-ups awaiting approval', async () => {
    const { inst } = env();
    expect((await inst.anon.get('/api/v1/accounts/123456789')).status).toBe(404);
    const bad = await inst.anon.get('/api/v1/accounts/not-an-id');
    expect(bad.status).toBe(404);
    expect(bad.body).toEqual({ error: 'Record not found' });
    const pending = await inst.createUser('waiting');
    updateUser(inst.deps.db, pending.userId, { approved: 0 });
    expect((await inst.anon.get(`/api/v1/accounts/${pending.accountId}`)).status).toBe(404);
    expect((await inst.anon.get(`/api/v1/accounts?id[]=${pending.accountId}`)).body).toEqual([]);
  });

  it('checks a token when one is given', async () => {
    const { inst, users: { alice } } = env();
    const path = `/api/v1/accounts/${alice.accountId}`;
    expect((await inst.anon.get(path, { token: 'nope' })).status).toBe(401);
    expect((await inst.anon.get(path, { token: inst.tokenFor(alice, 'write') })).status).toBe(403);
    expect((await inst.anon.get(path, { token: inst.tokenFor(alice, 'read:accounts') })).status).toBe(200);
    expect((await inst.anon.get(path, { token: inst.tokenFor(alice, 'read') })).status).toBe(200);
  });
});

describe('GET /api/v1/accounts and lookup', () => {
  const env = useInstance(['alice', 'bob']);

  it('returns several accounts in the order asked, skipping unknown ids', async () => {
    const { inst, users: { alice, bob } } = env();
    const res = await inst.anon.get(`/api/v1/accounts?id[]=${bob.accountId}&id[]=999999&id[]=nonsense&id[]=${alice.accountId}`);
    expect(res.status).toBe(200);
    expect(res.body.map((a: { acct: string }) => a.acct)).toEqual(['bob', 'alice']);
    expect((await alice.client.get(`/api/v1/accounts?id=${alice.accountId}`)).body.map((a: { id: string }) => a.id)).toEqual([alice.accountId]);
    expect((await inst.anon.get('/api/v1/accounts')).body).toEqual([]);
  });

  it('refuses more than 40 ids', async () => {
    const { inst } = env();
    const query = Array.from({ length: 41 }, (_, i) => `id[]=${i + 1}`).join('&');
    const res = await inst.anon.get(`/api/v1/accounts?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.details.id[0].error).toBe('ERR_TOO_LONG');
  });

  it('checks the scope of a given token', async () => {
    const { inst, users: { alice } } = env();
    expect((await inst.anon.get(`/api/v1/accounts?id[]=${alice.accountId}`, { token: inst.tokenFor(alice, 'write') })).status).toBe(403);
    expect((await inst.anon.get(`/api/v1/accounts?id[]=${alice.accountId}`, { token: 'bad' })).status).toBe(401);
  });

  it('looks up local accounts by name, @name and name@domain, case-insensitively', async () => {
    const { inst, users: { alice } } = env();
    const domain = new URL(inst.url).host;
    for (const acct of ['alice', '@alice', 'ALICE', `alice@${domain}`, `@alice@${domain}`]) {
      const res = await inst.anon.get(`/api/v1/accounts/lookup?acct=${encodeURIComponent(acct)}`);
      expect(res.status, acct).toBe(200);
      expect(res.body.id).toBe(alice.accountId);
    }
  });

  it('finds remote accounts already known, and answers 404 for the rest', async () => {
    const { inst, users: { alice } } = env();
    const id = insertRemoteAccount(inst, 'reader', 'bücher.example');
    for (const acct of ['reader@bücher.example', 'reader@xn--bcher-kva.example']) {
      const res = await inst.anon.get(`/api/v1/accounts/lookup?acct=${encodeURIComponent(acct)}`);
      expect(res.status, acct).toBe(200);
      expect(res.body.id).toBe(id);
    }
    expect((await inst.anon.get('/api/v1/accounts/lookup?acct=someone@elsewhere.example')).status).toBe(404);
    expect((await inst.anon.get('/api/v1/accounts/lookup?acct=nobody')).status).toBe(404);
    expect((await inst.anon.get('/api/v1/accounts/lookup')).status).toBe(404);
    expect((await inst.anon.get('/api/v1/accounts/lookup?acct=alice', { token: inst.tokenFor(alice, 'write') })).status).toBe(403);
  });
});
