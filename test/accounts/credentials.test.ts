import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getUserSettings } from '../../api/core/accounts/settings.js';
import { findAccountById } from '../../api/db/repos/accounts.js';
import { findUserById } from '../../api/db/repos/users.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';

const UPDATE = '/api/v1/accounts/update_credentials';

describe('verify_credentials and preferences', () => {
  let inst: TestInstance;
  let alice: TestUser;
  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice', { role: 'admin' });
  });
  afterAll(async () => {
    await inst.close();
  });

  it('answers the CredentialAccount with source and role', async () => {
    const res = await alice.client.get('/api/v1/accounts/verify_credentials');
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(alice.accountId);
    expect(res.body.source).toEqual({
      privacy: 'public',
      sensitive: false,
      language: null,
      quote_policy: 'public',
      note: '',
      fields: [],
      follow_requests_count: 0,
      hide_collections: false,
      discoverable: null,
      indexable: false,
      attribution_domains: [],
    });
    expect(res.body.role).toMatchObject({ id: '2', name: 'Admin', highlighted: true });
    expect(res.body.role.permissions).toMatch(/^\d+$/);
    expect(res.body.roles).toEqual([{ id: '2', name: 'Admin', color: res.body.role.color }]);
  });

  it('shows a plain user the everyone role, and counts pending follow requests', async () => {
    const bob = await inst.createUser('bob');
    const carol = await inst.createUser('carol');
    inst.deps.db
      .query('INSERT INTO follow_requests (id, account_id, target_account_id, created_at, updated_at) VALUES (@id, @account_id, @target_account_id, 1, 1)')
      .run({ id: '1', account_id: carol.accountId, target_account_id: bob.accountId });
    const res = await bob.client.get('/api/v1/accounts/verify_credentials');
    expect(res.body.role).toEqual({ id: '-99', name: '', permissions: '65536', color: '', highlighted: false });
    expect(res.body.roles).toEqual([]);
    expect(res.body.source.follow_requests_count).toBe(1);
  });

  it('accepts the profile scope alone, and refuses missing, bad and app-only tokens', async () => {
    expect((await inst.anon.get('/api/v1/accounts/verify_credentials', { token: inst.tokenFor(alice, 'profile') })).status).toBe(200);
    expect((await inst.anon.get('/api/v1/accounts/verify_credentials')).status).toBe(401);
    expect((await inst.anon.get('/api/v1/accounts/verify_credentials', { token: 'bad' })).status).toBe(401);
    expect((await inst.anon.get('/api/v1/accounts/verify_credentials', { token: inst.tokenFor(alice, 'write') })).status).toBe(403);
  });

  it('answers the preferences with usable defaults', async () => {
    const res = await alice.client.get('/api/v1/preferences');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      'posting:default:visibility': 'public',
      'posting:default:sensitive': false,
      'posting:default:language': null,
      'posting:default:quote_policy': 'public',
      'reading:expand:media': 'default',
      'reading:expand:spoilers': false,
      'reading:autoplay:gifs': false,
    });
    expect((await inst.anon.get('/api/v1/preferences')).status).toBe(401);
    expect((await inst.anon.get('/api/v1/preferences', { token: inst.tokenFor(alice, 'write') })).status).toBe(403);
  });

  it('reflects posting defaults set through update_credentials in preferences', async () => {
    const user = await inst.createUser('poster');
    const res = await user.client.patch(UPDATE, { source: { privacy: 'private', sensitive: true, language: 'de' } });
    expect(res.status).toBe(200);
    const prefs = (await user.client.get('/api/v1/preferences')).body;
    expect(prefs['posting:default:visibility']).toBe('private');
    expect(prefs['posting:default:sensitive']).toBe(true);
    expect(prefs['posting:default:language']).toBe('de');
    expect(getUserSettings(findUserById(inst.deps.db, user.userId)!).default_language).toBe('de');
  });
});

describe('update_credentials', () => {
  let inst: TestInstance;
  let alice: TestUser;
  const events: string[] = [];
  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    inst.deps.events.on('account.updated', ({ accountId }) => events.push(accountId));
  });
  afterAll(async () => {
    await inst.close();
  });

  it('changes every profile field from a JSON body and emits account.updated', async () => {
    events.length = 0;
    const res = await alice.client.patch(UPDATE, {
      display_name: 'Alice ✨',
      note: 'Hello <world> & friends.\nSecond line: https://alice.example/about\n\nNew paragraph',
      locked: true,
      bot: true,
      discoverable: true,
      hide_collections: true,
      indexable: true,
      fields_attributes: [
        { name: 'Site', value: 'https://alice.example' },
        { name: 'Pronouns', value: 'she/her' },
      ],
      attribution_domains: ['alice.example', 'Blog.Example'],
      source: { privacy: 'unlisted', sensitive: true, language: 'fr', quote_policy: 'followers' },
    });
    expect(res.status).toBe(200);
    const a = res.body;
    expect(a.display_name).toBe('Alice ✨');
    expect(a.note).toBe(
      '<p>Hello &lt;world&gt; &amp; friends.<br />Second line: <a href="https://alice.example/about" target="_blank" rel="nofollow noopener noreferrer">' +
        '<span class="invisible">https://</span><span class="">alice.example/about</span><span class="invisible"></span></a></p><p>New paragraph</p>',
    );
    expect(a.source.note).toBe('Hello <world> & friends.\nSecond line: https://alice.example/about\n\nNew paragraph');
    expect([a.locked, a.bot, a.discoverable, a.hide_collections, a.indexable, a.noindex]).toEqual([true, true, true, true, true, false]);
    expect(a.fields[0]).toEqual({
      name: 'Site',
      value: '<a href="https://alice.example" target="_blank" rel="me nofollow noopener noreferrer"><span class="invisible">https://</span><span class="">alice.example</span><span class="invisible"></span></a>',
      verified_at: null,
    });
    expect(a.fields[1]).toEqual({ name: 'Pronouns', value: 'she/her', verified_at: null });
    expect(a.source.fields).toEqual([
      { name: 'Site', value: 'https://alice.example', verified_at: null },
      { name: 'Pronouns', value: 'she/her', verified_at: null },
    ]);
    expect(a.source).toMatchObject({ privacy: 'unlisted', sensitive: true, language: 'fr', quote_policy: 'followers', attribution_domains: ['alice.example', 'blog.example'] });
    expect(events).toEqual([alice.accountId]);
    // What others see changed too.
    expect((await inst.anon.get(`/api/v1/accounts/${alice.accountId}`)).body.display_name).toBe('Alice ✨');
  });

  it('links mentions of known accounts and hashtags in the bio, as Mastodon does; unknown handles and emoji stay text', async () => {
    await inst.createUser('biofriend');
    const note = 'Friends with @biofriend, not @nobody_here. Into #Gardening :blobcat:';
    const res = await alice.client.patch(UPDATE, { note });
    expect(res.status).toBe(200);
    expect(res.body.note).toBe(
      `<p>Friends with <span class="h-card" translate="no"><a href="${inst.url}/@biofriend" class="u-url mention">@<span>biofriend</span></a></span>, ` +
        `not @nobody_here. Into <a href="${inst.url}/tags/Gardening" class="mention hashtag" rel="tag">#<span>Gardening</span></a> :blobcat:</p>`,
    );
    expect(res.body.source.note).toBe(note);
  });

  it('formats the bio safely: markup escaped, only http(s) links, trailing punctuation left out', async () => {
    const long = 'https://example.com/a/very/long/path/that/goes/on/and/on';
    const note = `<script>alert(1)</script> javascript:alert(1) (see https://x.example/a_(b)). Also ${long}, ok?`;
    const res = await alice.client.patch(UPDATE, { note });
    expect(res.status).toBe(200);
    const html: string = res.body.note;
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('href="javascript');
    expect(html).toContain('href="https://x.example/a_(b)"');
    expect(html).toContain('</a>). Also ');
    expect(html).toContain(`href="${long}"`);
    expect(html).toContain('<span class="ellipsis">example.com/a/very/long/path/t</span><span class="invisible">hat/goes/on/and/on</span></a>, ok?');
    expect(res.body.source.note).toBe(note);
  });

  it('accepts form bodies with bracketed names and indexed fields', async () => {
    const res = await alice.client.patch(UPDATE, undefined, {
      form: {
        display_name: 'Form Alice',
        locked: 'false',
        bot: '0',
        'fields_attributes[0][name]': 'One',
        'fields_attributes[0][value]': '1',
        'fields_attributes[1][name]': 'Two',
        'fields_attributes[1][value]': '2',
        'source[privacy]': 'private',
        'source[sensitive]': 'f',
        'source[language]': 'es',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.display_name).toBe('Form Alice');
    expect([res.body.locked, res.body.bot]).toEqual([false, false]);
    expect(res.body.fields.map((f: { name: string }) => f.name)).toEqual(['One', 'Two']);
    expect(res.body.source).toMatchObject({ privacy: 'private', sensitive: false, language: 'es' });
  });

  it('accepts multipart bodies (with an avatar file)', async () => {
    const form = new FormData();
    form.append('display_name', 'Multipart Alice');
    form.append('note', 'From a phone');
    form.append('discoverable', 'true');
    form.append('fields_attributes[0][name]', 'Only');
    form.append('fields_attributes[0][value]', 'field');
    form.append('source[language]', 'it');
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#c04000' } }).png().toBuffer();
    form.append('avatar', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'a.png');
    const res = await alice.client.request('PATCH', UPDATE, { multipart: form });
    expect(res.status).toBe(200);
    expect(res.body.display_name).toBe('Multipart Alice');
    expect(res.body.note).toBe('<p>From a phone</p>');
    expect(res.body.discoverable).toBe(true);
    expect(res.body.fields).toHaveLength(1);
    expect(res.body.source.language).toBe('it');
    // Avatars are processed by the media layer (test/media/profile.test.ts covers them).
    expect(res.body.avatar).toMatch(new RegExp(`^${inst.url}/system/accounts/avatars/`));
  });

  it('takes fields as an object indexed by position, and PUT works like PATCH', async () => {
    const res = await alice.client.put(UPDATE, { fields_attributes: { '0': { name: 'A', value: 'a' }, '1': { name: '', value: '' }, '2': { name: 'C', value: 'c' } } });
    expect(res.status).toBe(200);
    // The blank pair is dropped.
    expect(res.body.source.fields.map((f: { name: string }) => f.name)).toEqual(['A', 'C']);
  });

  it('reads Mastodon boolean truthiness', async () => {
    const set = async (value: string) => (await alice.client.patch(UPDATE, undefined, { form: { locked: value } })).body.locked;
    expect(await set('true')).toBe(true);
    for (const falsy of ['f', '0', 'false', 'False', 'off']) {
      await set('1');
      expect(await set(falsy), falsy).toBe(false);
    }
    await set('1');
    // An empty value is "not given": it leaves the setting as it was.
    expect(await set('')).toBe(true);
    const json = await alice.client.patch(UPDATE, { locked: false });
    expect(json.body.locked).toBe(false);
  });

  it('keeps verified_at while a field value is unchanged', async () => {
    const before = findAccountById(inst.deps.db, alice.accountId)!;
    const fields = [{ name: 'Site', value: 'x', value_source: 'https://v.example', verified_at: Date.UTC(2024, 4, 5) }];
    inst.deps.db.query('UPDATE accounts SET fields = @fields WHERE id = @id').run({ fields: JSON.stringify(fields), id: before.id });
    const res = await alice.client.patch(UPDATE, {
      fields_attributes: [
        { name: 'Website', value: 'https://v.example' },
        { name: 'Other', value: 'https://w.example' },
      ],
    });
    expect(res.body.fields.map((f: { verified_at: string | null }) => f.verified_at)).toEqual(['2024-05-05T00:00:00.000Z', null]);
  });

  it('clears the default language with an empty value', async () => {
    await alice.client.patch(UPDATE, { source: { language: 'nl' } });
    const res = await alice.client.patch(UPDATE, undefined, { form: { 'source[language]': '' } });
    expect(res.body.source.language).toBeNull();
    expect((await alice.client.get('/api/v1/preferences')).body['posting:default:language']).toBeNull();
  });

  it('refuses bad input with 422 and changes nothing', async () => {
    await alice.client.patch(UPDATE, { display_name: 'Stable', note: 'stable', locked: false, source: { language: 'en', privacy: 'public' } });
    const snapshot = findAccountById(inst.deps.db, alice.accountId);
    const settings = findUserById(inst.deps.db, alice.userId)!.settings;
    events.length = 0;
    const bad: [string, unknown][] = [
      ['too long display_name', { display_name: 'x'.repeat(31), locked: true }],
      ['too long note', { note: 'y'.repeat(501), locked: true }],
      ['five fields', { locked: true, fields_attributes: Array.from({ length: 5 }, (_, i) => ({ name: `n${i}`, value: `v${i}` })) }],
      ['too long field name', { fields_attributes: [{ name: 'n'.repeat(256), value: 'v' }] }],
      ['too long field value', { fields_attributes: [{ name: 'n', value: 'v'.repeat(256) }] }],
      ['unknown language', { display_name: 'Changed', source: { language: 'xx' } }],
      ['regional language tag', { source: { language: 'en-GB' } }],
      ['direct default privacy', { source: { privacy: 'direct' } }],
      ['unknown privacy', { display_name: 'Changed', source: { privacy: 'friends' } }],
      ['bad quote policy', { source: { quote_policy: 'everyone' } }],
      ['locked as an object', { display_name: 'Changed', locked: { yes: true } }],
      ['display_name as an array', { display_name: ['a'] }],
      ['fields as a string', { fields_attributes: 'abc' }],
      ['source as a string', { display_name: 'Changed', source: 'public' }],
      ['eleven attribution domains', { attribution_domains: Array.from({ length: 11 }, (_, i) => `d${i}.example`) }],
      ['invalid attribution domain', { attribution_domains: ['not a domain'] }],
    ];
    for (const [what, body] of bad) {
      const res = await alice.client.patch(UPDATE, body);
      expect(res.status, what).toBe(422);
      expect(res.body.error, what).toMatch(/^Validation failed: /);
    }
    expect(findAccountById(inst.deps.db, alice.accountId)).toEqual(snapshot);
    expect(findUserById(inst.deps.db, alice.userId)!.settings).toBe(settings);
    expect(events).toEqual([]);
  });

  it('names the problem as Mastodon does', async () => {
    const res = await alice.client.patch(UPDATE, { display_name: 'x'.repeat(31) });
    expect(res.body.error).toBe('Validation failed: Display name is too long (maximum is 30 characters)');
    expect(res.body.details.display_name[0].error).toBe('ERR_TOO_LONG');
  });

  it('counts characters, not UTF-16 units', async () => {
    const res = await alice.client.patch(UPDATE, { display_name: '😀'.repeat(30) });
    expect(res.status).toBe(200);
  });

  it('needs a user token with write:accounts', async () => {
    expect((await inst.anon.patch(UPDATE, { display_name: 'x' })).status).toBe(401);
    expect((await inst.anon.patch(UPDATE, { display_name: 'x' }, { token: 'bad' })).status).toBe(401);
    const readOnly = await inst.anon.patch(UPDATE, { display_name: 'Nope' }, { token: inst.tokenFor(alice, 'read') });
    expect(readOnly.status).toBe(403);
    expect(findAccountById(inst.deps.db, alice.accountId)!.display_name).not.toBe('Nope');
    expect((await inst.anon.patch(UPDATE, { display_name: 'Scoped' }, { token: inst.tokenFor(alice, 'write:accounts') })).status).toBe(200);
  });
});
