import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../api/core/oauth/tokens.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { count, post, seedFollow, seedMedia, seedRemoteAccount } from './helpers.js';

describe('POST /api/v1/statuses', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    carol = await inst.createUser('carol');
  });
  afterAll(async () => {
    await inst.close();
  });

  it('posts a status with HTML, mentions, hashtags and the defaults', async () => {
    const s = await post(alice.client, { status: 'Hi @bob, look: https://example.com/x #Cats' });
    expect(s.visibility).toBe('public');
    expect(s.content).toContain('class="u-url mention">@<span>bob</span></a>');
    expect(s.content).toContain(`href="${inst.url}/tags/Cats" class="mention hashtag"`);
    expect(s.content).toContain('href="https://example.com/x"');
    expect(s.mentions).toEqual([{ id: bob.accountId, username: 'bob', acct: 'bob', url: `${inst.url}/@bob` }]);
    expect(s.tags).toEqual([{ name: 'Cats', url: `${inst.url}/tags/Cats` }]);
    expect(s.account.id).toBe(alice.accountId);
    expect(s.uri).toBe(`${inst.url}/users/alice/statuses/${s.id}`);
    expect(s.url).toBe(`${inst.url}/@alice/${s.id}`);
    expect(s.sensitive).toBe(false);
    expect(s.spoiler_text).toBe('');
    expect(s.language).toBeNull();
    expect(s.in_reply_to_id).toBeNull();
    expect(s.edited_at).toBeNull();
    expect(s.poll).toBeNull();
    expect(s.card).toBeNull();
    expect(s.favourited).toBe(false);
    expect(s.pinned).toBe(false);
    expect(s).not.toHaveProperty('text');
    const again = await alice.client.get(`/api/v1/statuses/${s.id}`);
    expect(again.body).toEqual(s);
  });

  it('reuses a hashtag whatever its case and records when it was used', async () => {
    await post(alice.client, { status: '#Gardening is fun' });
    await post(bob.client, { status: 'more #gardening and #GARDENING' });
    expect(count(inst, 'tags', "name_normalized = 'gardening'")).toBe(1);
    const row = inst.deps.db.query<{ name: string; last_status_at: number | null }>("SELECT name, last_status_at FROM tags WHERE name_normalized = 'gardening'").get();
    expect(row?.name).toBe('Gardening');
    expect(row?.last_status_at).not.toBeNull();
  });

  it('names the application that posted, with a null website when it has none', async () => {
    const app = await inst.anon.post('/api/v1/apps', { client_name: 'Test Client', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read write' });
    expect(app.status).toBe(200);
    const token = issueToken(inst.deps, { applicationId: app.body.id, userId: alice.userId, scopes: ['read', 'write'] }).accessToken;
    const s = await post(alice.client.withToken(token), { status: 'from an app' });
    expect(s.application).toEqual({ name: 'Test Client', website: null });
    const site = await inst.anon.post('/api/v1/apps', { client_name: 'Site', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', website: 'https://site.example' });
    const siteToken = issueToken(inst.deps, { applicationId: site.body.id, userId: alice.userId, scopes: ['write'] }).accessToken;
    const t = await post(alice.client.withToken(siteToken), { status: 'from a site' });
    expect(t.application).toEqual({ name: 'Site', website: 'https://site.example' });
  });

  it('marks a status with a content warning sensitive and uses a warning alone as the text', async () => {
    const s = await post(alice.client, { status: 'body', spoiler_text: 'cw' });
    expect(s.sensitive).toBe(true);
    expect(s.spoiler_text).toBe('cw');
    const only = await post(alice.client, { status: '', spoiler_text: 'just a warning' });
    expect(only.spoiler_text).toBe('');
    expect(only.content).toBe('<p>just a warning</p>');
  });

  it('takes the language given, reduced to ISO 639-1, else the default posting language', async () => {
    expect((await post(alice.client, { status: 'Hallo', language: 'de' })).language).toBe('de');
    expect((await post(alice.client, { status: 'Colour', language: 'en-GB' })).language).toBe('en');
    expect((await post(alice.client, { status: 'what', language: 'zz' })).language).toBeNull();
    const res = await carol.client.patch('/api/v1/accounts/update_credentials', undefined, { form: { 'source[language]': 'fr', 'source[privacy]': 'unlisted' } });
    expect(res.status, res.text).toBe(200);
    const s = await post(carol.client, { status: 'Bonjour' });
    expect(s.language).toBe('fr');
    expect(s.visibility).toBe('unlisted');
    expect((await post(carol.client, { status: 'Hello', language: 'en', visibility: 'public' })).visibility).toBe('public');
  });

  it('accepts form bodies with Mastodon booleans', async () => {
    const res = await alice.client.post('/api/v1/statuses', undefined, { form: { status: 'form post', sensitive: 'f', visibility: 'unlisted' } });
    expect(res.status).toBe(200);
    expect(res.body.sensitive).toBe(false);
    expect(res.body.visibility).toBe('unlisted');
  });

  it('counts statuses on the account, direct ones excepted', async () => {
    const dave = await inst.createUser('dave');
    await post(dave.client, { status: 'one' });
    await post(dave.client, { status: 'two', visibility: 'private' });
    await post(dave.client, { status: '@alice secret', visibility: 'direct' });
    const me = await dave.client.get(`/api/v1/accounts/${dave.accountId}`);
    expect(me.body.statuses_count).toBe(2);
    expect(me.body.last_status_at).not.toBeNull();
  });

  it('counts 500 characters with links as 23 and @user@domain as @user', async () => {
    await post(alice.client, { status: 'a'.repeat(500) });
    const long = `${'a'.repeat(470)} https://example.com/${'p'.repeat(100)}`;
    await post(alice.client, { status: long });
    seedRemoteAccount(inst, 'far', 'remote.example');
    await post(alice.client, { status: `${'a'.repeat(495)} @far@remote.example` });
  });

  describe('refuses bad input with 422 and writes nothing', () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['an empty status', { status: '' }, /Text can't be blank/],
      ['a blank status', { status: '   \n ' }, /Text can't be blank/],
      ['no status at all', {}, /Text can't be blank/],
      ['a status that is too long', { status: 'a'.repeat(501) }, /character limit of 500/],
      ['a content warning that makes it too long', { status: 'a'.repeat(400), spoiler_text: 'b'.repeat(101) }, /character limit of 500/],
      ['an unknown visibility', { status: 'x', visibility: 'friends' }, /Visibility/],
      ['a poll with one option', { status: 'x', poll: { options: ['only'], expires_in: 3600 } }, /Choices/],
      ['a poll without expiry', { status: 'x', poll: { options: ['a', 'b'] } }, /Deadline/],
    ];
    for (const [name, body, message] of cases) {
      it(name, async () => {
        const before = count(inst, 'statuses');
        const res = await alice.client.post('/api/v1/statuses', body);
        expect(res.status).toBe(422);
        expect(res.body.error).toMatch(message);
        expect(count(inst, 'statuses')).toBe(before);
      });
    }

    it("someone else's media", async () => {
      const media = seedMedia(inst, bob.accountId);
      const res = await alice.client.post('/api/v1/statuses', { status: 'x', media_ids: [media] });
      expect(res.status).toBe(422);
      expect(res.body.error).toContain(media);
      expect(count(inst, 'media_attachments', 'id = @id AND status_id IS NULL', { id: media })).toBe(1);
    });

    it('more than four media, media with a poll, media still processing, a video among images', async () => {
      const ids = [1, 2, 3, 4, 5].map(() => seedMedia(inst, alice.accountId));
      const before = count(inst, 'statuses');
      expect((await alice.client.post('/api/v1/statuses', { media_ids: ids })).status).toBe(422);
      const poll = await alice.client.post('/api/v1/statuses', { status: 'x', media_ids: [ids[0]], poll: { options: ['a', 'b'], expires_in: 3600 } });
      expect(poll.status).toBe(422);
      const pending = seedMedia(inst, alice.accountId, { processing: 'processing' });
      expect((await alice.client.post('/api/v1/statuses', { media_ids: [pending] })).status).toBe(422);
      const video = seedMedia(inst, alice.accountId, { type: 'video' });
      expect((await alice.client.post('/api/v1/statuses', { media_ids: [ids[0], video] })).status).toBe(422);
      expect(count(inst, 'statuses')).toBe(before);
      expect(count(inst, 'media_attachments', 'status_id IS NOT NULL AND account_id = @a', { a: alice.accountId })).toBe(0);
    });
  });

  it('answers 404 for a reply to a status the author may not see, or that does not exist', async () => {
    const secret = await post(bob.client, { status: '@carol psst', visibility: 'direct' });
    const before = count(inst, 'statuses');
    for (const id of [secret.id, '123456789', 'not-an-id']) {
      const res = await alice.client.post('/api/v1/statuses', { status: 'reply', in_reply_to_id: id });
      expect(res.status, id).toBe(404);
      expect(res.body).toEqual({ error: 'Record not found' });
    }
    expect(count(inst, 'statuses')).toBe(before);
    // Someone mentioned may reply.
    const reply = await post(carol.client, { status: '@bob ok', in_reply_to_id: secret.id, visibility: 'direct' });
    expect(reply.in_reply_to_id).toBe(secret.id);
  });

  it('threads a reply: parent, parent author, conversation, replies_count (public and unlisted only)', async () => {
    const parent = await post(bob.client, { status: 'parent' });
    const r1 = await post(alice.client, { status: 'public reply', in_reply_to_id: parent.id });
    expect(r1.in_reply_to_id).toBe(parent.id);
    expect(r1.in_reply_to_account_id).toBe(bob.accountId);
    await post(alice.client, { status: 'unlisted reply', in_reply_to_id: parent.id, visibility: 'unlisted' });
    await post(alice.client, { status: 'private reply', in_reply_to_id: parent.id, visibility: 'private' });
    const after = await bob.client.get(`/api/v1/statuses/${parent.id}`);
    expect(after.body.replies_count).toBe(2);
    const convs = inst.deps.db
      .query<{ conversation_id: string }>('SELECT DISTINCT conversation_id FROM statuses WHERE id = @a OR in_reply_to_id = @a')
      .all({ a: parent.id });
    expect(convs).toHaveLength(1);
    expect(convs[0]?.conversation_id).not.toBeNull();
  });

  it('attaches the author\'s own media in the order given', async () => {
    const m1 = seedMedia(inst, alice.accountId, { description: 'first' });
    const m2 = seedMedia(inst, alice.accountId, { description: 'second' });
    const s = await post(alice.client, { media_ids: [m2, m1] });
    expect(s.content).toBe('');
    expect(s.media_attachments.map((m: { id: string }) => m.id)).toEqual([m2, m1]);
    expect(s.media_attachments[0]).toMatchObject({ type: 'image', description: 'second', url: `${inst.url}/system/media_attachments/${m2}/original.png` });
    // Attached media cannot go on a second status.
    const again = await alice.client.post('/api/v1/statuses', { status: 'again', media_ids: [m1] });
    expect(again.status).toBe(422);
  });

  it('creates a poll with the status', async () => {
    const s = await post(alice.client, { status: 'Which?', poll: { options: ['tea', 'coffee'], expires_in: 3600, multiple: true } });
    expect(s.poll).toMatchObject({
      expired: false,
      multiple: true,
      votes_count: 0,
      voters_count: 0,
      options: [
        { title: 'tea', votes_count: 0 },
        { title: 'coffee', votes_count: 0 },
      ],
      voted: true,
      own_votes: [],
    });
    expect(Date.parse(s.poll.expires_at) - Date.parse(s.created_at)).toBeGreaterThan(3_590_000);
    const anon = await inst.anon.get(`/api/v1/statuses/${s.id}`);
    expect(anon.body.poll).not.toHaveProperty('own_votes');
    const form = await alice.client.post('/api/v1/statuses', undefined, {
      form: { status: 'form poll', 'poll[options][]': ['x', 'y', 'z'], 'poll[expires_in]': '300', 'poll[hide_totals]': 'true' },
    });
    expect(form.status, form.text).toBe(200);
    expect(form.body.poll.options).toEqual([
      { title: 'x', votes_count: null },
      { title: 'y', votes_count: null },
      { title: 'z', votes_count: null },
    ]);
  });

  it('schedules a status when scheduled_at is at least five minutes ahead', async () => {
    const before = count(inst, 'statuses');
    const at = new Date(Date.now() + 60 * 60 * 1000).toISOString();
    const res = await alice.client.post('/api/v1/statuses', { status: 'later', scheduled_at: at, visibility: 'unlisted' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.scheduled_at).toBe(at);
    expect(res.body.params.text).toBe('later');
    expect(count(inst, 'statuses')).toBe(before);
    const soon = await alice.client.post('/api/v1/statuses', { status: 'too soon', scheduled_at: new Date(Date.now() + 60_000).toISOString() });
    expect(soon.status).toBe(422);
    // A scheduled status is checked like one posted now.
    const bad = await alice.client.post('/api/v1/statuses', { status: 'a'.repeat(501), scheduled_at: at });
    expect(bad.status).toBe(422);
    expect(count(inst, 'scheduled_statuses')).toBe(1);
  });

  it('mentions local accounts by full handle, known remote accounts, and leaves unknown handles as text', async () => {
    const remote = seedRemoteAccount(inst, 'eve', 'elsewhere.example');
    const domain = new URL(inst.url).host;
    const s = await post(alice.client, { status: `@bob@${domain} @eve@elsewhere.example @nobody@nowhere.example @nobody` });
    expect(s.mentions.map((m: { acct: string }) => m.acct)).toEqual(['bob', 'eve@elsewhere.example']);
    expect(s.mentions[1]).toEqual({ id: remote, username: 'eve', acct: 'eve@elsewhere.example', url: 'https://elsewhere.example/@eve' });
    expect(s.content).toContain('@nobody@nowhere.example');
    expect(s.content).not.toContain('nobody</span>');
  });

  it("addresses a group's followers when the group is mentioned (silent mentions)", async () => {
    const group = seedRemoteAccount(inst, 'gardeners', 'groups.example', 'Group');
    const member = await inst.createUser('member');
    seedFollow(inst, member.accountId, group);
    const s = await post(alice.client, { status: '@gardeners@groups.example tomatoes!', visibility: 'direct' });
    expect(s.mentions.map((m: { acct: string }) => m.acct)).toEqual(['gardeners@groups.example']);
    const rows = inst.deps.db.query<{ account_id: string; silent: number }>('SELECT account_id, silent FROM mentions WHERE status_id = @id ORDER BY silent').all({ id: s.id });
    expect(rows).toEqual([
      { account_id: group, silent: 0 },
      { account_id: member.accountId, silent: 1 },
    ]);
    expect((await member.client.get(`/api/v1/statuses/${s.id}`)).status).toBe(200);
    expect((await carol.client.get(`/api/v1/statuses/${s.id}`)).status).toBe(404);
  });

  it('returns the first status for a repeated Idempotency-Key, per account', async () => {
    const before = count(inst, 'statuses');
    const first = await post(alice.client, { status: 'once' }, { 'Idempotency-Key': 'key-1' });
    const second = await post(alice.client, { status: 'once' }, { 'Idempotency-Key': 'key-1' });
    expect(second.id).toBe(first.id);
    expect(count(inst, 'statuses')).toBe(before + 1);
    const other = await post(bob.client, { status: 'once' }, { 'Idempotency-Key': 'key-1' });
    expect(other.id).not.toBe(first.id);
    const fresh = await post(alice.client, { status: 'once' }, { 'Idempotency-Key': 'key-2' });
    expect(fresh.id).not.toBe(first.id);
    // A key older than an hour is forgotten.
    inst.deps.db.query("UPDATE idempotency_keys SET created_at = created_at - 3700000 WHERE key = 'key-1'").run();
    const later = await post(alice.client, { status: 'once' }, { 'Idempotency-Key': 'key-1' });
    expect(later.id).not.toBe(first.id);
  });

  it('returns the first scheduled status for a repeated Idempotency-Key', async () => {
    const at = new Date(Date.now() + 2 * 60 * 60 * 1000).toISOString();
    const a = await alice.client.post('/api/v1/statuses', { status: 'sched', scheduled_at: at }, { headers: { 'Idempotency-Key': 'sched-1' } });
    const b = await alice.client.post('/api/v1/statuses', { status: 'sched', scheduled_at: at }, { headers: { 'Idempotency-Key': 'sched-1' } });
    expect(a.status).toBe(200);
    expect(b.body.id).toBe(a.body.id);
  });

  it('needs a token (401) with write:statuses (403)', async () => {
    const before = count(inst, 'statuses');
    expect((await inst.anon.post('/api/v1/statuses', { status: 'x' })).status).toBe(401);
    expect((await alice.client.withToken('nonsense').post('/api/v1/statuses', { status: 'x' })).status).toBe(401);
    const readOnly = alice.client.withToken(inst.tokenFor(alice, 'read'));
    const res = await readOnly.post('/api/v1/statuses', { status: 'x' });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('This action is outside the authorized scopes');
    const granular = alice.client.withToken(inst.tokenFor(alice, 'write:statuses'));
    expect((await granular.post('/api/v1/statuses', { status: 'granular' })).status).toBe(200);
    expect(count(inst, 'statuses')).toBe(before + 1);
  });

  it("emits 'status.created' after commit", async () => {
    const seen: string[] = [];
    const off = inst.deps.events.on('status.created', (e) => {
      // The row is committed and readable when listeners run.
      if (inst.deps.db.query('SELECT 1 FROM statuses WHERE id = ?').get(e.statusId)) seen.push(e.accountId);
    });
    await post(alice.client, { status: 'event' });
    off();
    expect(seen).toEqual([alice.accountId]);
  });
});
