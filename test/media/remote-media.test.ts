import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../api/config.js';
import { upsertRemoteAccount } from '../../api/core/federation/remote-accounts.js';
import { deleteRemoteStatus } from '../../api/core/federation/remote-statuses.js';
import type { AccountRow } from '../../api/db/repos/accounts.js';
import { insertEmojiRow } from '../../api/db/repos/instance.js';
import { remoteCacheTestHooks } from '../../api/core/media/remote-cache.js';
import { newId } from '../../api/util/ids.js';
import { eventually, startFederated } from '../federation/helpers.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { form, jpegWithExif, picture, upload } from './helpers.js';
import { attachment, closedPort, copyState, download, FileServer, HOST, lastStatusUri, remoteActor, remoteStatus, type Account, type Attachment, type Status } from './remote-helpers.js';

/**
 * Remote media under both settings (`remoteMedia: 'cache' | 'proxy'`): a tiny file server on a
 * loopback address plays the remote server (see remote-helpers.ts), and two real instances
 * federate at the end.
 */

let photo: Buffer;
let avatarPng: Buffer;
let headerPng: Buffer;
let emojiPng: Buffer;
const server = new FileServer();

beforeAll(async () => {
  photo = await jpegWithExif(120, 80);
  avatarPng = await picture(64, 64, 'png');
  headerPng = await picture(300, 100, 'png');
  emojiPng = await picture(32, 32, 'png');
  server.files.set('/photo.jpg', { body: photo, type: 'image/jpeg' });
  server.files.set('/photo2.jpg', { body: await jpegWithExif(90, 60), type: 'image/jpeg' });
  server.files.set('/avatar.png', { body: avatarPng, type: 'image/png' });
  server.files.set('/avatar2.png', { body: await picture(50, 50, 'png'), type: 'image/png' });
  server.files.set('/header.png', { body: headerPng, type: 'image/png' });
  server.files.set('/emoji.png', { body: emojiPng, type: 'image/png' });
  server.files.set('/page.jpg', { body: Buffer.from('<!doctype html><title>not a picture</title>'), type: 'text/html' });
  await server.start();
  remoteCacheTestHooks.retryBaseMs = 50;
  remoteCacheTestHooks.scanIntervalMs = 100;
});

afterAll(async () => {
  remoteCacheTestHooks.retryBaseMs = null;
  remoteCacheTestHooks.scanIntervalMs = null;
  remoteCacheTestHooks.paused = false;
  await server.stop();
});

describe("remote media: 'cache'", () => {
  let inst: TestInstance;
  let viewer: TestUser;
  let author: AccountRow;
  beforeAll(async () => {
    inst = await startInstance({ federationAllowLoopback: true, remoteMedia: 'cache' });
    viewer = await inst.createUser('viewer');
    author = upsertRemoteAccount(inst.deps, remoteActor(server, 'remote', { avatar: server.url('/avatar.png'), header: server.url('/header.png') }));
  });
  afterAll(async () => {
    await inst.close();
  });

  it('copies a remote image: local url and preview_url serve EXIF-free bytes, remote_url keeps the original', async () => {
    // The remote picture does carry EXIF (orientation, GPS, copyright).
    expect((await sharp(photo).metadata()).exif).toBeDefined();
    expect(photo.includes(Buffer.from('secret owner'))).toBe(true);
    const statusId = remoteStatus(inst.deps, server, author, [attachment(server.url('/photo.jpg'))]);
    const media = await eventually(async () => {
      const res = await viewer.client.get<Status>(`/api/v1/statuses/${statusId}`);
      const m = res.body.media_attachments[0];
      return m?.url.startsWith(`${inst.url}/system/`) ? m : null;
    });
    expect(media.remote_url).toBe(server.url('/photo.jpg'));
    expect(media.type).toBe('image');
    expect(media.preview_url).toMatch(new RegExp(`^${inst.url}/system/media_attachments/files/.+/small/`));
    expect(media.blurhash).toMatch(/^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]{6,}$/);
    const original = await download(media.url);
    expect(original.status).toBe(200);
    expect(original.type).toBe('image/jpeg');
    const meta = await sharp(original.body).metadata();
    expect(meta.exif).toBeUndefined();
    // The sideways EXIF orientation was applied before it was dropped.
    expect([meta.width, meta.height]).toEqual([80, 120]);
    expect(original.body.includes(Buffer.from('secret owner'))).toBe(false);
    const preview = await download(media.preview_url ?? '');
    expect(preview.status).toBe(200);
    expect((await sharp(preview.body).metadata()).exif).toBeUndefined();
  });

  it('keeps a blurhash the remote server sent', async () => {
    const statusId = remoteStatus(inst.deps, server, author, [attachment(server.url('/photo2.jpg'), 'image/jpeg', 'LEHV6nWB2yk8pyo0adR*.7kCMdnj')]);
    const media = await eventually(async () => {
      const m = (await viewer.client.get<Status>(`/api/v1/statuses/${statusId}`)).body.media_attachments[0];
      return m?.url.startsWith(inst.url) ? m : null;
    });
    expect(media.blurhash).toBe('LEHV6nWB2yk8pyo0adR*.7kCMdnj');
  });

  it("copies a remote account's avatar and header, cropped, served from here", async () => {
    const account = await eventually(async () => {
      const a = (await viewer.client.get<Account>(`/api/v1/accounts/${author.id}`)).body;
      return a.avatar.startsWith(`${inst.url}/system/accounts/avatars/`) && a.header.startsWith(`${inst.url}/system/accounts/headers/`) ? a : null;
    });
    expect(account.avatar_static).toBe(account.avatar);
    const avatar = await download(account.avatar);
    expect(avatar.status).toBe(200);
    expect(avatar.type).toBe('image/png');
    const header = await sharp((await download(account.header)).body).metadata();
    expect(header.width! / header.height!).toBeCloseTo(3, 1);
  });

  it('follows a changed avatar: the old copy goes, the new picture is copied', async () => {
    const before = (await viewer.client.get<Account>(`/api/v1/accounts/${author.id}`)).body.avatar;
    expect(before.startsWith(inst.url)).toBe(true);
    upsertRemoteAccount(inst.deps, remoteActor(server, 'remote', { avatar: server.url('/avatar2.png'), header: server.url('/header.png') }));
    const after = await eventually(async () => {
      const a = (await viewer.client.get<Account>(`/api/v1/accounts/${author.id}`)).body.avatar;
      return a !== before && a.startsWith(inst.url) ? a : null;
    });
    expect((await download(before)).status).toBe(404);
    expect((await sharp((await download(after)).body).metadata()).width).toBe(50);
  });

  it('copies remote custom emojis', async () => {
    const id = newId();
    insertEmojiRow(inst.deps.db, {
      id,
      shortcode: 'remote_blob',
      domain: new URL(server.base).host,
      uri: server.url('/emojis/1'),
      image_file: null,
      static_file: null,
      image_remote_url: server.url('/emoji.png'),
      category: null,
      visible_in_picker: 0,
      disabled: 0,
      created_at: Date.now(),
      updated_at: Date.now(),
    });
    const row = await eventually(() =>
      inst.deps.db.query<{ image_file: string | null; static_file: string | null }>('SELECT image_file, static_file FROM custom_emojis WHERE id = @id AND image_file IS NOT NULL').get({ id }),
    );
    const image = await download(`${inst.url}/system/${row.image_file}`);
    expect(image.body.equals(emojiPng)).toBe(true);
    expect((await download(`${inst.url}/system/${row.static_file}`)).status).toBe(200);
  });

  it('keeps the remote URL for a file that is too big, not media, or unreachable, and the API keeps answering', async () => {
    const port = await closedPort();
    const urls = [server.url('/huge.jpg'), server.url('/page.jpg'), `http://${HOST}:${port}/gone.jpg`];
    const statusId = remoteStatus(inst.deps, server, author, urls.map((u) => attachment(u)));
    const ids = (await viewer.client.get<Status>(`/api/v1/statuses/${statusId}`)).body.media_attachments.map((m) => m.id);
    // Too big and not media fail at once; unreachable is retried (short back-off in tests), then given up.
    await eventually(() => ids.every((id) => copyState(inst.deps, 'attachment', id)?.state === 'failed'), 15_000);
    expect(copyState(inst.deps, 'attachment', ids[0] ?? '')?.last_error).toMatch(/too_large/);
    expect(copyState(inst.deps, 'attachment', ids[0] ?? '')?.attempts).toBe(1);
    expect(copyState(inst.deps, 'attachment', ids[1] ?? '')?.last_error).toMatch(/not a supported/);
    expect(copyState(inst.deps, 'attachment', ids[2] ?? '')?.attempts).toBe(4);
    const res = await viewer.client.get<Status>(`/api/v1/statuses/${statusId}`);
    expect(res.status).toBe(200);
    expect(res.body.media_attachments.map((m) => m.url)).toEqual(urls);
    expect(res.body.media_attachments.map((m) => m.remote_url)).toEqual(urls);
  });

  it('retries a failing remote server with back-off and copies the file once it answers', async () => {
    const statusId = remoteStatus(inst.deps, server, author, [attachment(server.url('/flaky/photo.jpg'))]);
    const media = await eventually(async () => {
      const m = (await viewer.client.get<Status>(`/api/v1/statuses/${statusId}`)).body.media_attachments[0];
      return m?.url.startsWith(inst.url) ? m : null;
    }, 15_000);
    expect(server.hits.get('/flaky/photo.jpg')).toBe(3);
    expect(copyState(inst.deps, 'attachment', media.id)).toMatchObject({ state: 'done', attempts: 3 });
  });

  it("removes the copies of a deleted status's media", async () => {
    const statusId = remoteStatus(inst.deps, server, author, [attachment(server.url('/photo.jpg'))]);
    const media = await eventually(async () => {
      const m = (await viewer.client.get<Status>(`/api/v1/statuses/${statusId}`)).body.media_attachments[0];
      return m?.url.startsWith(inst.url) ? m : null;
    });
    expect(deleteRemoteStatus(inst.deps, author, lastStatusUri(server, 'remote'))).toBe(true);
    await eventually(async () => (await download(media.url)).status === 404 && (await download(media.preview_url ?? '')).status === 404);
    expect(copyState(inst.deps, 'attachment', media.id)).toBeUndefined();
    expect(inst.deps.db.query('SELECT id FROM media_attachments WHERE id = @id').get({ id: media.id })).toBeUndefined();
  });
});

describe("remote media: 'cache' clean-up of a deleted account", () => {
  it("removes the copies of a deleted remote account's avatar, header and media", async () => {
    const inst = await startInstance({ federationAllowLoopback: true, remoteMedia: 'cache' });
    try {
      const author = upsertRemoteAccount(inst.deps, remoteActor(server, 'leaving', { avatar: server.url('/avatar.png'), header: server.url('/header.png') }));
      const statusId = remoteStatus(inst.deps, server, author, [attachment(server.url('/photo.jpg'))]);
      const media = await eventually(async () => {
        const m = (await inst.anon.get<Status>(`/api/v1/statuses/${statusId}`)).body.media_attachments[0];
        return m?.url.startsWith(inst.url) ? m : null;
      });
      const account = await eventually(async () => {
        const a = (await inst.anon.get<Account>(`/api/v1/accounts/${author.id}`)).body;
        return a.avatar.startsWith(inst.url) && a.header.startsWith(inst.url) ? a : null;
      });
      // As an actor's Delete does: the account row goes with everything hanging on it.
      inst.deps.db.query('DELETE FROM accounts WHERE id = @id').run({ id: author.id });
      await eventually(async () => {
        const answers = await Promise.all([media.url, media.preview_url ?? '', account.avatar, account.header].map(download));
        return answers.every((a) => a.status === 404);
      });
      expect(inst.deps.db.query('SELECT count(*) AS n FROM remote_media_copies').get()).toEqual({ n: 0 });
    } finally {
      await inst.close();
    }
  });
});

describe('the remoteMedia setting', () => {
  it('defaults to cache, reads the flag, the environment and the config file, and refuses anything else', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hearth-remote-media-config-'));
    try {
      expect(resolveConfig({ dataDir }, {}).remoteMedia).toBe('cache');
      expect(resolveConfig({ dataDir, remoteMedia: 'proxy' }, {}).remoteMedia).toBe('proxy');
      expect(resolveConfig({ dataDir }, { HEARTH_REMOTE_MEDIA: 'proxy' }).remoteMedia).toBe('proxy');
      writeFileSync(join(dataDir, 'hearth.json'), JSON.stringify({ remoteMedia: 'proxy' }));
      expect(resolveConfig({ dataDir }, {}).remoteMedia).toBe('proxy');
      expect(resolveConfig({ dataDir, remoteMedia: 'cache' }, {}).remoteMedia).toBe('cache');
      expect(() => resolveConfig({ dataDir, remoteMedia: 'mirror' }, {})).toThrow('remote media must be cache or proxy, not mirror');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("remote media: 'cache' across a restart", () => {
  it('copies after a restart what was stored before it and not copied yet', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hearth-remote-media-'));
    try {
      remoteCacheTestHooks.paused = true;
      let inst = await startInstance({ dataDir, federationAllowLoopback: true, remoteMedia: 'cache' });
      const author = upsertRemoteAccount(inst.deps, remoteActor(server, 'restarted', { avatar: server.url('/avatar.png') }));
      const statusId = remoteStatus(inst.deps, server, author, [attachment(server.url('/photo.jpg'))]);
      await new Promise((r) => setTimeout(r, 300));
      const before = (await inst.anon.get<Status>(`/api/v1/statuses/${statusId}`)).body.media_attachments[0];
      expect(before?.url).toBe(server.url('/photo.jpg'));
      await inst.close();

      remoteCacheTestHooks.paused = false;
      inst = await startInstance({ dataDir, federationAllowLoopback: true, remoteMedia: 'cache' });
      try {
        const media = await eventually(async () => {
          const m = (await inst.anon.get<Status>(`/api/v1/statuses/${statusId}`)).body.media_attachments[0];
          return m?.url.startsWith(`${inst.url}/system/`) ? m : null;
        });
        expect((await download(media.url)).status).toBe(200);
        await eventually(async () => (await inst.anon.get<Account>(`/api/v1/accounts/${author.id}`)).body.avatar.startsWith(`${inst.url}/system/`));
      } finally {
        await inst.close();
      }
    } finally {
      remoteCacheTestHooks.paused = false;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('remote media without federationAllowLoopback', () => {
  let inst: TestInstance;
  beforeAll(async () => {
    inst = await startInstance({ remoteMedia: 'cache' });
  });
  afterAll(async () => {
    await inst.close();
  });

  it('refuses a loopback remote URL: nothing is fetched, the remote URL stays', async () => {
    const author = upsertRemoteAccount(inst.deps, remoteActor(server, 'loopy'));
    const hitsBefore = server.hits.get('/photo.jpg') ?? 0;
    const statusId = remoteStatus(inst.deps, server, author, [attachment(server.url('/photo.jpg'))]);
    const id = (await inst.anon.get<Status>(`/api/v1/statuses/${statusId}`)).body.media_attachments[0]?.id ?? '';
    await eventually(() => copyState(inst.deps, 'attachment', id)?.state === 'failed');
    expect(copyState(inst.deps, 'attachment', id)?.last_error).toMatch(/forbidden_address/);
    expect(server.hits.get('/photo.jpg') ?? 0).toBe(hitsBefore);
    expect((await inst.anon.get<Status>(`/api/v1/statuses/${statusId}`)).body.media_attachments[0]?.url).toBe(server.url('/photo.jpg'));
    // The proxy route refuses it as well.
    expect((await download(`${inst.url}/media_proxy/${id}/original`)).status).toBe(502);
  });
});

describe("remote media: 'proxy'", () => {
  let inst: TestInstance;
  let author: AccountRow;
  beforeAll(async () => {
    inst = await startInstance({ federationAllowLoopback: true, remoteMedia: 'proxy' });
    author = upsertRemoteAccount(inst.deps, remoteActor(server, 'proxied', { avatar: server.url('/avatar.png'), header: server.url('/header.png') }));
  });
  afterAll(async () => {
    await inst.close();
  });

  it('points url and preview_url at /media_proxy, which streams the remote bytes; nothing is downloaded ahead', async () => {
    const hitsBefore = server.hits.get('/photo2.jpg') ?? 0;
    const statusId = remoteStatus(inst.deps, server, author, [attachment(server.url('/photo2.jpg'))]);
    await new Promise((r) => setTimeout(r, 300));
    expect(server.hits.get('/photo2.jpg') ?? 0).toBe(hitsBefore);
    const media = (await inst.anon.get<Status>(`/api/v1/statuses/${statusId}`)).body.media_attachments[0];
    expect(media?.url).toBe(`${inst.url}/media_proxy/${media?.id}/original`);
    expect(media?.preview_url).toBe(`${inst.url}/media_proxy/${media?.id}/small`);
    expect(media?.remote_url).toBe(server.url('/photo2.jpg'));
    const file = await download(media?.url ?? '');
    expect(file.status).toBe(200);
    expect(file.type).toBe('image/jpeg');
    expect(file.cache).toMatch(/max-age=\d+/);
    expect(file.body.equals(server.files.get('/photo2.jpg')?.body ?? Buffer.alloc(0))).toBe(true);
    expect((await download(media?.preview_url ?? '')).status).toBe(200);
    expect(copyState(inst.deps, 'attachment', media?.id ?? '')).toBeUndefined();
  });

  it('proxies avatars, headers and emojis', async () => {
    const account = (await inst.anon.get<Account>(`/api/v1/accounts/${author.id}`)).body;
    expect(account.avatar).toBe(`${inst.url}/media_proxy/accounts/${author.id}/avatar`);
    expect(account.header).toBe(`${inst.url}/media_proxy/accounts/${author.id}/header`);
    const avatar = await download(account.avatar);
    expect(avatar.type).toBe('image/png');
    expect(avatar.body.equals(avatarPng)).toBe(true);
    expect((await download(account.header)).body.equals(headerPng)).toBe(true);
    const id = newId();
    insertEmojiRow(inst.deps.db, {
      id,
      shortcode: 'proxied_blob',
      domain: new URL(server.base).host,
      uri: null,
      image_file: null,
      static_file: null,
      image_remote_url: server.url('/emoji.png'),
      category: null,
      visible_in_picker: 0,
      disabled: 0,
      created_at: Date.now(),
      updated_at: Date.now(),
    });
    expect((await download(`${inst.url}/media_proxy/emojis/${id}`)).body.equals(emojiPng)).toBe(true);
  });

  it('answers 404 for unknown ids and styles, 502 for a failing remote, and never passes on a non-media type', async () => {
    const port = await closedPort();
    const statusId = remoteStatus(inst.deps, server, author, [
      attachment(server.url('/huge.jpg')),
      attachment(server.url('/page.jpg')),
      attachment(`http://${HOST}:${port}/gone.jpg`),
      attachment(server.url('/missing.jpg')),
    ]);
    const media = (await inst.anon.get<Status>(`/api/v1/statuses/${statusId}`)).body.media_attachments;
    expect((await download(`${inst.url}/media_proxy/1234567/original`)).status).toBe(404);
    expect((await download(`${inst.url}/media_proxy/${media[0]?.id}/large`)).status).toBe(404);
    expect((await download(`${inst.url}/media_proxy/accounts/${author.id}/picture`)).status).toBe(404);
    expect((await download(`${inst.url}/media_proxy/not-an-id/original`)).status).toBe(404);
    expect((await download(media[0]?.url ?? '')).status).toBe(502);
    const page = await download(media[1]?.url ?? '');
    expect(page.status).toBe(200);
    expect(page.type).toBe('application/octet-stream');
    expect((await download(media[2]?.url ?? '')).status).toBe(502);
    expect((await download(media[3]?.url ?? '')).status).toBe(502);
    // The API keeps answering, with the proxy URLs and the remote URLs.
    const res = await inst.anon.get<Status>(`/api/v1/statuses/${statusId}`);
    expect(res.status).toBe(200);
    expect(res.body.media_attachments[3]?.remote_url).toBe(server.url('/missing.jpg'));
  });
});

describe('remote media between two federated instances', () => {
  type Inst = Awaited<ReturnType<typeof startFederated>>;
  let a: Inst;
  let b: Inst;
  beforeAll(async () => {
    a = await startFederated('127.0.0.6');
    b = await startFederated('127.0.0.7');
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it("caches a followed account's avatar and the picture of a post it delivers (B in 'cache' mode)", async () => {
    const alice = await a.createUser('alice');
    const bob = await b.createUser('bob');
    const avatar = await picture(200, 200, 'png');
    const patched = await alice.client.patch('/api/v1/accounts/update_credentials', undefined, { multipart: form({ avatar: { data: avatar, type: 'image/png', name: 'a.png' } }) });
    expect(patched.status).toBe(200);
    const aliceAvatarOnA = (patched.body as Account).avatar;
    const remote = await b.app.federation?.resolveAccount(`${a.origin}/users/alice`);
    const aliceOnB = remote?.id ?? '';
    expect((await bob.client.post(`/api/v1/accounts/${aliceOnB}/follow`)).status).toBe(200);
    await eventually(async () => ((await alice.client.get(`/api/v1/accounts/${alice.accountId}/followers`)).body as unknown[]).length === 1, 20_000);

    const media = await upload(alice.client, await jpegWithExif(160, 120), { type: 'image/jpeg', name: 'p.jpg' });
    expect(media.status).toBe(200);
    const posted = await alice.client.post('/api/v1/statuses', { status: 'a picture', media_ids: [(media.body as Attachment).id] });
    expect(posted.status).toBe(200);
    const originalOnA = (posted.body as Status).media_attachments[0]?.url ?? '';

    // Delivery first (its pace is federation's), then the copy.
    const delivered = await eventually(async () => (await bob.client.get<Status[]>('/api/v1/timelines/home')).body[0]?.media_attachments[0], 40_000);
    expect(delivered.remote_url).toBe(originalOnA);
    const onB = await eventually(async () => {
      const m = (await bob.client.get<Status>(`/api/v1/statuses/${(await bob.client.get<Status[]>('/api/v1/timelines/home')).body[0]?.id}`)).body.media_attachments[0];
      if (m && !m.url.startsWith(`${b.origin}/system/`)) {
        const state = copyState(b.deps, 'attachment', m.id);
        if (state?.state === 'failed') throw new Error(`copy failed: ${state.last_error}`);
      }
      return m?.url.startsWith(`${b.origin}/system/`) ? m : null;
    }, 20_000);
    expect(onB.remote_url).toBe(originalOnA);
    const copy = await download(onB.url);
    expect(copy.status).toBe(200);
    expect((await sharp(copy.body).metadata()).exif).toBeUndefined();
    const account = await eventually(async () => {
      const acc = (await bob.client.get<Account>(`/api/v1/accounts/${aliceOnB}`)).body;
      return acc.avatar.startsWith(`${b.origin}/system/accounts/avatars/`) ? acc : null;
    }, 20_000);
    expect(account.avatar).not.toBe(aliceAvatarOnA);
    expect((await download(account.avatar)).status).toBe(200);
  }, 120_000);
});
