import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_LIMITS, MEDIA_LIMITS, POLL_LIMITS, STATUS_LIMITS, SUPPORTED_MIME_TYPES } from '../../api/core/instance/limits.js';
import { setContactAccount, setInstanceSetting, setInstanceSettingFromText } from '../../api/core/instance/settings.js';
import { HEARTH_VERSION, VERSION_STRING } from '../../api/util/version.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { insertRemoteAccount, insertStatusRow } from './fixtures.js';

const VERSION_FORMAT = /^4\.5\.0 \(compatible; Hearth \d+\.\d+\.\d+(?:-[\w.]+)?\)$/;

describe('GET /api/v1/instance and /api/v2/instance', () => {
  let inst: TestInstance;
  let owner: TestUser;
  let other: TestUser;
  beforeAll(async () => {
    inst = await startInstance({ registrations: 'open' });
    owner = await inst.createUser('kim', { role: 'owner' });
    other = await inst.createUser('sam');
    insertRemoteAccount(inst.deps.db, 'ana', 'remote.example');
    insertRemoteAccount(inst.deps.db, 'bob', 'remote.example');
    insertRemoteAccount(inst.deps.db, 'cy', 'other.example');
    const remoteId = insertRemoteAccount(inst.deps.db, 'dee', 'third.example');
    for (const visibility of ['public', 'unlisted', 'private', 'direct'] as const) {
      insertStatusRow(inst.deps.db, { accountId: owner.accountId, visibility, createdAt: Date.now() });
    }
    insertStatusRow(inst.deps.db, { accountId: remoteId, visibility: 'public', createdAt: Date.now(), local: false });
  });
  afterAll(async () => {
    await inst?.close();
  });

  it('reads the version from package.json and formats it as compatible servers do', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(HEARTH_VERSION).toBe(pkg.version);
    expect(VERSION_STRING).toBe(`4.5.0 (compatible; Hearth ${pkg.version})`);
    expect(VERSION_STRING).toMatch(VERSION_FORMAT);
  });

  it('serves the v1 entity with the fields the spec names', async () => {
    const res = await inst.anon.get('/api/v1/instance');
    expect(res.status).toBe(200);
    const body = res.body;
    expect(body.uri).toBe(new URL(inst.url).host);
    expect(body.title).toBe('Hearth');
    expect(body.short_description).toBe('');
    expect(body.approval_required).toBe(false);
    expect(body.invites_enabled).toBe(false);
    expect(body.registrations).toBe(true);
    expect(body.version).toMatch(VERSION_FORMAT);
    expect(body.urls.streaming_api).toBe(inst.url.replace(/^http/, 'ws'));
    expect(body.stats).toEqual({ user_count: 2, status_count: 4, domain_count: 3 });
    expect(body.thumbnail).toBe(`${inst.url}/instance/thumbnail.png`);
    expect(body.languages).toEqual(['en']);
    expect(body.rules).toEqual([]);
  });

  it('publishes the limits from the one limits module', async () => {
    const v1 = (await inst.anon.get('/api/v1/instance')).body.configuration;
    const v2 = (await inst.anon.get('/api/v2/instance')).body.configuration;
    const { description_limit, ...v1Media } = MEDIA_LIMITS;
    expect(v1.statuses).toEqual({ max_characters: 500, max_media_attachments: 4, characters_reserved_per_url: 23 });
    expect(v1.statuses).toEqual(STATUS_LIMITS);
    expect(v1.media_attachments).toEqual({ supported_mime_types: SUPPORTED_MIME_TYPES, ...v1Media });
    expect(v1.media_attachments.image_size_limit).toBe(16 * 1024 * 1024);
    expect(v1.media_attachments.video_size_limit).toBe(99 * 1024 * 1024);
    expect(v1.media_attachments.image_matrix_limit).toBe(33177600);
    expect(v1.media_attachments.video_matrix_limit).toBe(8294400);
    expect(v1.media_attachments.video_frame_rate_limit).toBe(120);
    expect(v1.polls).toEqual({ max_options: 4, max_characters_per_option: 50, min_expiration: 300, max_expiration: 2629746 });
    expect(v1.polls).toEqual(POLL_LIMITS);
    expect(v1.accounts).toEqual({ max_featured_tags: 10 });
    expect(v2.accounts).toEqual({ max_featured_tags: 10, max_pinned_statuses: 5 });
    expect(v2.accounts).toEqual(ACCOUNT_LIMITS);
    expect(v2.media_attachments.description_limit).toBe(description_limit);
    expect(v2.media_attachments.description_limit).toBe(1500);
  });

  it('shows the owner as the contact account, as a full Account entity', async () => {
    const v1 = (await inst.anon.get('/api/v1/instance')).body;
    expect(v1.contact_account.id).toBe(owner.accountId);
    expect(v1.contact_account.username).toBe('kim');
    expect(v1.contact_account.acct).toBe('kim');
    expect(v1.contact_account.url).toBe(`${inst.url}/@kim`);
    const v2 = (await inst.anon.get('/api/v2/instance')).body;
    expect(v2.contact.account.id).toBe(owner.accountId);
    expect(v2.contact.email).toBe('');
  });

  it('serves the v2 entity with translation, registrations message and the featured tags limit', async () => {
    const res = await inst.anon.get('/api/v2/instance');
    expect(res.status).toBe(200);
    const body = res.body;
    expect(body.domain).toBe(new URL(inst.url).host);
    expect(body.title).toBe('Hearth');
    expect(body.version).toMatch(VERSION_FORMAT);
    expect(body.configuration.translation).toEqual({ enabled: false });
    expect(body.configuration.accounts.max_featured_tags).toBe(10);
    expect(body.configuration.urls.streaming).toBe(inst.url.replace(/^http/, 'ws'));
    expect(body.configuration.urls.status).toBeNull();
    expect(body.configuration.limited_federation).toBe(false);
    expect(body.registrations).toEqual({ enabled: true, approval_required: false, reason_required: false, message: null, min_age: null, url: null });
    expect(body.api_versions).toEqual({ mastodon: 7 });
    expect(body.usage.users.active_month).toBe(2);
    expect(body.thumbnail).toEqual({ url: `${inst.url}/instance/thumbnail.png` });
    expect(Array.isArray(body.icon)).toBe(true);
    // No repository is declared in package.json, so the source is offered at the instance itself.
    expect(body.source_url).toBe(`${inst.url}/`);
  });

  it('publishes a real P-256 VAPID public key that stays the same', async () => {
    const first = (await inst.anon.get('/api/v2/instance')).body.configuration.vapid.public_key as string;
    const point = Buffer.from(first, 'base64url');
    expect(point.length).toBe(65);
    expect(point[0]).toBe(4);
    const { createPublicKey } = await import('node:crypto');
    const key = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') }, format: 'jwk' });
    expect(key.asymmetricKeyType).toBe('ec');
    const second = (await inst.anon.get('/api/v2/instance')).body.configuration.vapid.public_key;
    expect(second).toBe(first);
  });

  it('serves the default thumbnail as a PNG', async () => {
    const res = await fetch(`${inst.url}/instance/thumbnail.png`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(bytes.readUInt32BE(16)).toBe(1200);
  });

  it('reflects settings changed through the core setters', async () => {
    setInstanceSettingFromText(inst.deps, 'title', 'Kim’s hearth');
    setInstanceSettingFromText(inst.deps, 'short_description', 'A small place');
    setInstanceSettingFromText(inst.deps, 'contact_email', 'kim@example.test');
    setInstanceSettingFromText(inst.deps, 'languages', 'en, de');
    setInstanceSettingFromText(inst.deps, 'status_page_url', 'https://status.example.test');
    setInstanceSettingFromText(inst.deps, 'invites_enabled', 'yes');
    setInstanceSettingFromText(inst.deps, 'source_url', 'https://code.example.test/hearth');
    setContactAccount(inst.deps, 'sam');
    try {
      const v1 = (await inst.anon.get('/api/v1/instance')).body;
      expect(v1.title).toBe('Kim’s hearth');
      expect(v1.short_description).toBe('A small place');
      expect(v1.email).toBe('kim@example.test');
      expect(v1.languages).toEqual(['en', 'de']);
      expect(v1.invites_enabled).toBe(true);
      expect(v1.contact_account.id).toBe(other.accountId);
      const v2 = (await inst.anon.get('/api/v2/instance')).body;
      expect(v2.description).toBe('A small place');
      expect(v2.contact).toMatchObject({ email: 'kim@example.test', account: { id: other.accountId } });
      expect(v2.configuration.urls.status).toBe('https://status.example.test');
      expect(v2.source_url).toBe('https://code.example.test/hearth');
    } finally {
      setInstanceSetting(inst.deps, 'title', 'Hearth');
      setInstanceSetting(inst.deps, 'short_description', '');
      setInstanceSetting(inst.deps, 'contact_email', '');
      setInstanceSetting(inst.deps, 'languages', ['en']);
      setInstanceSetting(inst.deps, 'status_page_url', null);
      setInstanceSetting(inst.deps, 'invites_enabled', false);
      setInstanceSetting(inst.deps, 'source_url', null);
      setContactAccount(inst.deps, null);
    }
  });

  it('refuses invalid settings without storing them', () => {
    expect(() => setInstanceSettingFromText(inst.deps, 'contact_email', 'not an address')).toThrow(/e-mail/i);
    expect(() => setInstanceSettingFromText(inst.deps, 'title', '  ')).toThrow(/blank/);
    expect(() => setInstanceSettingFromText(inst.deps, 'languages', 'en,xx')).toThrow(/language/i);
    expect(() => setInstanceSettingFromText(inst.deps, 'status_page_url', 'javascript:alert(1)')).toThrow(/URL/);
    expect(() => setInstanceSettingFromText(inst.deps, 'contact', 'nobody')).toThrow(/no local account/);
    expect(() => setInstanceSettingFromText(inst.deps, 'colour', 'red')).toThrow(/unknown instance setting/);
    expect(() => setInstanceSettingFromText(inst.deps, 'show_domain_blocks', 'everyone')).toThrow(/show_domain_blocks/);
  });

  it('accepts a valid token and answers 401 for a bad one on public routes', async () => {
    for (const path of ['/api/v1/instance', '/api/v2/instance', '/api/v1/instance/peers', '/api/v1/instance/rules', '/api/v1/custom_emojis']) {
      expect((await owner.client.get(path)).status).toBe(200);
      const bad = await inst.anon.get(path, { token: 'not-a-real-token' });
      expect(bad.status).toBe(401);
      expect(bad.body).toEqual({ error: 'The access token is invalid' });
    }
  });
});

describe('registration modes', () => {
  const cases = [
    { mode: 'open', v1: { registrations: true, approval_required: false }, v2: { enabled: true, approval_required: false } },
    { mode: 'approval', v1: { registrations: true, approval_required: true }, v2: { enabled: true, approval_required: true } },
    { mode: 'closed', v1: { registrations: false, approval_required: false }, v2: { enabled: false, approval_required: false } },
  ] as const;

  for (const c of cases) {
    it(`reflects registrations=${c.mode} in v1, v2 and NodeInfo`, async () => {
      const inst = await startInstance({ registrations: c.mode });
      try {
        const v1 = (await inst.anon.get('/api/v1/instance')).body;
        expect({ registrations: v1.registrations, approval_required: v1.approval_required }).toEqual(c.v1);
        const v2 = (await inst.anon.get('/api/v2/instance')).body;
        expect({ enabled: v2.registrations.enabled, approval_required: v2.registrations.approval_required }).toEqual(c.v2);
        expect(v2.registrations.message).toBeNull();
        // Nobody to contact yet: no owner account exists.
        expect(v1.contact_account).toBeNull();
        expect(v2.contact.account).toBeNull();
        const nodeinfo = await fetch(`${inst.url}/nodeinfo/2.0`).then((r) => r.json() as Promise<{ openRegistrations: boolean }>);
        expect(nodeinfo.openRegistrations).toBe(c.mode !== 'closed');
      } finally {
        await inst.close();
      }
    });
  }

  it('shows the closed-registrations message, rendered from Markdown, only while closed', async () => {
    const closed = await startInstance({ registrations: 'closed' });
    const open = await startInstance({ registrations: 'open' });
    try {
      for (const inst of [closed, open]) setInstanceSettingFromText(inst.deps, 'registrations_message', 'Ask **Kim** for an <invite>.');
      const v2 = (await closed.anon.get('/api/v2/instance')).body;
      expect(v2.registrations.message).toBe('<p>Ask <strong>Kim</strong> for an &lt;invite&gt;.</p>\n');
      expect((await open.anon.get('/api/v2/instance')).body.registrations.message).toBeNull();
    } finally {
      await closed.close();
      await open.close();
    }
  });

  it('requires a reason only when sign-ups wait for approval', async () => {
    const approval = await startInstance({ registrations: 'approval' });
    const open = await startInstance({ registrations: 'open' });
    try {
      for (const inst of [approval, open]) setInstanceSetting(inst.deps, 'require_invite_text', true);
      expect((await approval.anon.get('/api/v2/instance')).body.registrations.reason_required).toBe(true);
      expect((await open.anon.get('/api/v2/instance')).body.registrations.reason_required).toBe(false);
    } finally {
      await approval.close();
      await open.close();
    }
  });
});
