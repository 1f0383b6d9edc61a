import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../api/cli.js';
import { federatesWith } from '../../api/core/federation/instance-domains.js';
import { upsertRemoteAccount } from '../../api/core/federation/remote-accounts.js';
import { setInstanceSetting } from '../../api/core/instance/settings.js';
import { remoteCacheTestHooks } from '../../api/core/media/remote-cache.js';
import { eventually } from '../federation/helpers.js';
import { seedRemoteAccount } from '../helpers/fixtures.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { createStaff } from '../helpers/roles.js';
import { picture } from '../media/helpers.js';
import { attachment, copyState, FileServer, remoteActor, remoteStatus } from '../media/remote-helpers.js';

/**
 * What domain blocks do, and that the admin API and `hearth domain` share one rule set: suspension
 * stops federation, silence limits the domain's accounts (known ones and new ones), lifting a
 * block lifts what it set, the public list shows limits and suspensions, and reject_media keeps
 * the domain's files remote.
 */
describe('domain block effects and the one rule set', () => {
  let inst: TestInstance;
  let admin: TestUser;
  const server = new FileServer();

  const cli = async (...args: string[]) => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const code = await main(['domain', ...args, '--data', inst.dataDir]);
      return { code, out: log.mock.calls.map((x) => x.join(' ')).join('\n') };
    } finally {
      log.mockRestore();
      err.mockRestore();
    }
  };
  const flags = (id: string) => inst.deps.db.query<{ silenced_at: number | null; suspended_at: number | null }>('SELECT silenced_at, suspended_at FROM accounts WHERE id = @id').get({ id });
  const block = async (params: Record<string, unknown>) => {
    const res = await admin.client.post('/api/v1/admin/domain_blocks', params);
    expect(res.status, res.text).toBe(200);
    return res.body as { id: string; created_at: string };
  };

  beforeAll(async () => {
    server.files.set('/photo.jpg', { body: await picture(40, 30, 'jpeg'), type: 'image/jpeg' });
    await server.start();
    remoteCacheTestHooks.scanIntervalMs = 100;
    inst = await startInstance({ federationAllowLoopback: true, remoteMedia: 'cache' });
    admin = (await createStaff(inst)).admin;
  });
  afterAll(async () => {
    remoteCacheTestHooks.scanIntervalMs = null;
    await inst.close();
    await server.stop();
  });

  it('the CLI and the admin API read and write the same rules', async () => {
    expect((await cli('block', 'cli.example')).code).toBe(0);
    const listed = (await admin.client.get('/api/v1/admin/domain_blocks')).body;
    expect(listed).toMatchObject([{ domain: 'cli.example', severity: 'suspend' }]);
    await block({ domain: 'api.example', severity: 'silence' });
    expect((await cli('list')).out).toBe('block\tapi.example\tsilence\nblock\tcli.example');
    // `hearth domain block` on a domain the API only limits makes it a suspension.
    await cli('block', 'api.example');
    expect((await admin.client.get('/api/v1/admin/domain_blocks')).body.map((b: { severity: string }) => b.severity)).toEqual(['suspend', 'suspend']);
    await admin.client.delete(`/api/v1/admin/domain_blocks/${listed[0].id}`);
    expect((await cli('unblock', 'api.example')).code).toBe(0);
    expect((await cli('list')).out).toBe('');

    await cli('allow', 'cli-friend.example');
    const allows = (await admin.client.get('/api/v1/admin/domain_allows')).body;
    expect(allows.map((a: { domain: string }) => a.domain)).toEqual(['cli-friend.example']);
    // The API's create answers the CLI's record.
    expect((await admin.client.post('/api/v1/admin/domain_allows', { domain: 'cli-friend.example' })).body.id).toBe(allows[0].id);
    await admin.client.delete(`/api/v1/admin/domain_allows/${allows[0].id}`);
    expect((await cli('list')).out).toBe('');
  });

  it('federation: a suspension stops it, silence and noop do not; allows switch to allow-list mode', async () => {
    const suspended = await block({ domain: 'gone.example', severity: 'suspend' });
    const silenced = await block({ domain: 'quiet.example', severity: 'silence' });
    const noop = await block({ domain: 'noop.example', severity: 'noop', reject_reports: true });
    expect(federatesWith(inst.deps, 'gone.example')).toBe(false);
    expect(federatesWith(inst.deps, 'sub.gone.example:8443')).toBe(false);
    expect(federatesWith(inst.deps, 'quiet.example')).toBe(true);
    expect(federatesWith(inst.deps, 'noop.example')).toBe(true);
    // Made milder, a suspension lets federation through again at once.
    await admin.client.put(`/api/v1/admin/domain_blocks/${suspended.id}`, { severity: 'silence' });
    expect(federatesWith(inst.deps, 'gone.example')).toBe(true);
    const allow = (await admin.client.post('/api/v1/admin/domain_allows', { domain: 'quiet.example' })).body;
    expect(federatesWith(inst.deps, 'quiet.example')).toBe(true);
    expect(federatesWith(inst.deps, 'elsewhere.example')).toBe(false);
    await admin.client.delete(`/api/v1/admin/domain_allows/${allow.id}`);
    expect(federatesWith(inst.deps, 'elsewhere.example')).toBe(true);
    for (const b of [suspended, silenced, noop]) await admin.client.delete(`/api/v1/admin/domain_blocks/${b.id}`);
  });

  it("limits or suspends the domain's accounts, known and new, and lifting the block lifts exactly that", async () => {
    const loud = seedRemoteAccount(inst, 'loud', 'loud.example');
    const sub = seedRemoteAccount(inst, 'sub', 'sub.loud.example');
    const other = seedRemoteAccount(inst, 'other', 'other.example');
    const chosen = seedRemoteAccount(inst, 'chosen', 'loud.example');
    // A moderator limited this one on their own, before any block.
    inst.deps.db.query('UPDATE accounts SET silenced_at = 1000 WHERE id = @id').run({ id: chosen });

    const silence = await block({ domain: 'loud.example', severity: 'silence' });
    const at = Date.parse(silence.created_at);
    expect(flags(loud)).toEqual({ silenced_at: at, suspended_at: null });
    expect(flags(sub)).toEqual({ silenced_at: at, suspended_at: null });
    expect(flags(other)).toEqual({ silenced_at: null, suspended_at: null });
    expect((await admin.client.get(`/api/v1/accounts/${loud}`)).body.limited).toBe(true);
    // A new account of the domain starts limited.
    const fresh = upsertRemoteAccount(inst.deps, { ...remoteActor(server, 'fresh'), uri: 'https://new.loud.example/users/fresh', domain: 'new.loud.example' });
    expect(fresh.silenced_at).toBe(at);

    await admin.client.put(`/api/v1/admin/domain_blocks/${silence.id}`, { severity: 'suspend' });
    expect(flags(loud)).toEqual({ silenced_at: null, suspended_at: at });
    expect(flags(chosen)).toEqual({ silenced_at: 1000, suspended_at: at });
    await admin.client.put(`/api/v1/admin/domain_blocks/${silence.id}`, { severity: 'noop' });
    expect(flags(loud)).toEqual({ silenced_at: null, suspended_at: null });
    await admin.client.put(`/api/v1/admin/domain_blocks/${silence.id}`, { severity: 'silence' });
    await admin.client.delete(`/api/v1/admin/domain_blocks/${silence.id}`);
    for (const id of [loud, sub, fresh.id]) expect(flags(id)).toEqual({ silenced_at: null, suspended_at: null });
    // What the moderator did stays.
    expect(flags(chosen)).toEqual({ silenced_at: 1000, suspended_at: null });
  });

  it('publishes limits and suspensions (not noop), obfuscated where asked, with the public comment', async () => {
    setInstanceSetting(inst.deps, 'show_domain_blocks', 'all');
    const blocks = [
      await block({ domain: 'shown.example', severity: 'suspend', public_comment: 'Harassment', private_comment: 'never shown' }),
      await block({ domain: 'hidden-name.example', severity: 'silence', obfuscate: true }),
      await block({ domain: 'quietnoop.example', severity: 'noop', reject_media: true }),
    ];
    const res = await inst.anon.get('/api/v1/instance/domain_blocks');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { domain: 'hidde******.***mple', digest: expect.stringMatching(/^[0-9a-f]{64}$/), severity: 'silence', comment: null },
      { domain: 'shown.example', digest: expect.any(String), severity: 'suspend', comment: 'Harassment' },
    ]);
    for (const b of blocks) await admin.client.delete(`/api/v1/admin/domain_blocks/${b.id}`);
  });

  it('reject_media: the domain’s files are not copied (nor asked for); lifting it lets new ones through', async () => {
    const host = new URL(server.base).hostname;
    const rejecting = await block({ domain: host, severity: 'noop', reject_media: true });
    const author = upsertRemoteAccount(inst.deps, remoteActor(server, 'painter'));
    const statusId = remoteStatus(inst.deps, server, author, [attachment(server.url('/photo.jpg'))]);
    const mediaId = inst.deps.db.query<{ id: string }>('SELECT id FROM media_attachments WHERE status_id = @id').get({ id: statusId })?.id ?? '';
    const state = await eventually(() => copyState(inst.deps, 'attachment', mediaId)?.state === 'failed' && copyState(inst.deps, 'attachment', mediaId));
    expect(state).toMatchObject({ attempts: 1, last_error: 'media from this domain is rejected' });
    expect(server.hits.get('/photo.jpg')).toBeUndefined();
    const shown = await admin.client.get(`/api/v1/statuses/${statusId}`);
    expect(shown.body.media_attachments[0].remote_url).toBe(server.url('/photo.jpg'));

    await admin.client.delete(`/api/v1/admin/domain_blocks/${rejecting.id}`);
    const later = remoteStatus(inst.deps, server, author, [attachment(server.url('/photo.jpg'))]);
    const laterMedia = inst.deps.db.query<{ id: string }>('SELECT id FROM media_attachments WHERE status_id = @id').get({ id: later })?.id ?? '';
    await eventually(() => copyState(inst.deps, 'attachment', laterMedia)?.state === 'done');
    expect(server.hits.get('/photo.jpg')).toBe(1);
  });

  it('reject_media under the media proxy: nothing is fetched from the domain, and the proxy answers 404', async () => {
    const proxying = await startInstance({ federationAllowLoopback: true, remoteMedia: 'proxy' });
    try {
      const host = new URL(server.base).hostname;
      const owner = (await createStaff(proxying)).owner;
      expect((await owner.client.post('/api/v1/admin/domain_blocks', { domain: host, severity: 'noop', reject_media: true })).status).toBe(200);
      const author = upsertRemoteAccount(proxying.deps, remoteActor(server, 'proxied'));
      const statusId = remoteStatus(proxying.deps, server, author, [attachment(server.url('/photo.jpg'))]);
      const media = (await owner.client.get(`/api/v1/statuses/${statusId}`)).body.media_attachments[0];
      const hits = server.hits.get('/photo.jpg') ?? 0;
      expect((await fetch(media.url)).status).toBe(404);
      expect(server.hits.get('/photo.jpg') ?? 0).toBe(hits);
      expect(media.remote_url).toBe(server.url('/photo.jpg'));
    } finally {
      await proxying.close();
    }
  });
});
