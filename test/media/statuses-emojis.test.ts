import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../api/cli.js';
import { cleanUpMedia, cleanUpMediaNow } from '../../api/core/media/cleanup.js';
import { mediaTestHooks } from '../../api/core/media/storage.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { animatedGif, count, download, eventually, fileOnDisk, mp4, picture, upload } from './helpers.js';

const DAY = 24 * 60 * 60 * 1000;

describe('media in statuses, custom emojis, clean-up', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let scratch: string;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    scratch = mkdtempSync(join(tmpdir(), 'hearth-emoji-'));
  });
  afterAll(async () => {
    await inst.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  async function image(description?: string): Promise<{ id: string; url: string; preview_url: string }> {
    const res = await upload(alice.client, await picture(100, 60, 'png'), { type: 'image/png', fields: description ? { description } : {} });
    expect(res.status, res.text).toBe(200);
    return res.body;
  }

  it('uploads go on a status in the order given, sensitive as asked; edits keep their history', async () => {
    const [a, b] = [await image('first'), await image('second')];
    const status = await alice.client.post('/api/v1/statuses', { status: 'two pictures', media_ids: [b.id, a.id], sensitive: true });
    expect(status.status, status.text).toBe(200);
    expect(status.body.sensitive).toBe(true);
    expect(status.body.media_attachments.map((m: { id: string }) => m.id)).toEqual([b.id, a.id]);
    expect(status.body.media_attachments[0]).toMatchObject({ url: b.url, preview_url: b.preview_url, description: 'second' });
    // Bob cannot use Alice's upload.
    const stolen = await bob.client.post('/api/v1/statuses', { status: 'mine', media_ids: [a.id] });
    expect(stolen.status).toBe(422);

    const edited = await alice.client.put(`/api/v1/statuses/${status.body.id}`, {
      status: 'two pictures',
      sensitive: true,
      media_ids: [a.id, b.id],
      media_attributes: [{ id: a.id, description: 'first, described better', focus: '0.5,0.5' }],
    });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.media_attachments.map((m: { id: string }) => m.id)).toEqual([a.id, b.id]);
    expect(edited.body.media_attachments[0]).toMatchObject({ description: 'first, described better', meta: { focus: { x: 0.5, y: 0.5 } } });
    const history = await alice.client.get(`/api/v1/statuses/${status.body.id}/history`);
    expect(history.body.map((v: { media_attachments: { description: string }[] }) => v.media_attachments.map((m) => m.description))).toEqual([
      ['second', 'first'],
      ['first, described better', 'second'],
    ]);
  });

  it('the attachment limit and the video-with-images rule', async () => {
    const five = [await image(), await image(), await image(), await image(), await image()];
    const tooMany = await alice.client.post('/api/v1/statuses', { status: 'x', media_ids: five.map((m) => m.id) });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.error).toBe('Cannot attach more than 4 files');
    const video = await upload(alice.client, mp4({ silent: true }), { type: 'video/mp4' });
    const mixed = await alice.client.post('/api/v1/statuses', { status: 'x', media_ids: [five[0]?.id, video.body.id] });
    expect(mixed.status).toBe(422);
    expect(count(inst, 'media_attachments', 'status_id IS NOT NULL AND id = @id', { id: video.body.id })).toBe(0);
  });

  it('hearth emoji add/list/remove; the files are served; statuses and profiles list the emojis they use', async () => {
    const png = join(scratch, 'blobcat.png');
    writeFileSync(png, await sharp({ create: { width: 64, height: 64, channels: 4, background: { r: 255, g: 128, b: 0, alpha: 0.5 } } }).png().toBuffer());
    const gif = join(scratch, 'party.gif');
    writeFileSync(gif, await animatedGif(32, 32));
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect(await main(['emoji', 'add', '--data', inst.dataDir, '--shortcode', 'blobcat', '--file', png, '--category', 'Blobs'])).toBe(0);
      expect(await main(['emoji', 'add', '--data', inst.dataDir, '--shortcode', 'party_parrot', '--file', gif, '--unlisted'])).toBe(0);
      // Taken shortcode, bad shortcode, not an image: refused.
      expect(await main(['emoji', 'add', '--data', inst.dataDir, '--shortcode', 'blobcat', '--file', png])).toBe(1);
      expect(await main(['emoji', 'add', '--data', inst.dataDir, '--shortcode', 'a', '--file', png])).toBe(1);
      const text = join(scratch, 'x.png');
      writeFileSync(text, 'not a png');
      expect(await main(['emoji', 'add', '--data', inst.dataDir, '--shortcode', 'broken', '--file', text])).toBe(1);
      log.mockClear();
      expect(await main(['emoji', 'list', '--data', inst.dataDir])).toBe(0);
      expect(log.mock.calls.map((c) => String(c[0]))).toEqual([':blobcat:\tBlobs\tlisted', ':party_parrot:\t\tunlisted']);
    } finally {
      log.mockRestore();
      err.mockRestore();
    }

    const list = await inst.anon.get('/api/v1/custom_emojis');
    expect(list.body).toHaveLength(2);
    const [blobcat, parrot] = list.body;
    expect(blobcat).toMatchObject({ shortcode: 'blobcat', category: 'Blobs', visible_in_picker: true });
    expect(parrot).toMatchObject({ shortcode: 'party_parrot', category: null, visible_in_picker: false });
    const served = await fetch(blobcat.url);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect((await sharp(Buffer.from(await served.arrayBuffer())).metadata()).width).toBe(64);
    expect(parrot.url).toMatch(/\.gif$/);
    expect((await sharp(await download(parrot.url), { animated: true }).metadata()).pages).toBe(3);
    expect(parrot.static_url).toMatch(/\/static\/[0-9a-f]{16}\.png$/);
    expect((await sharp(await download(parrot.static_url)).metadata()).pages ?? 1).toBe(1);

    const status = await alice.client.post('/api/v1/statuses', { status: 'hello :blobcat: and :party_parrot::nope: and :unknown:', spoiler_text: 'cw :blobcat:' });
    expect(status.status, status.text).toBe(200);
    expect(status.body.emojis.map((e: { shortcode: string }) => e.shortcode)).toEqual(['blobcat']);
    expect(status.body.content).toContain(':blobcat:');
    const withParrot = await alice.client.post('/api/v1/statuses', { status: ':party_parrot: :blobcat:' });
    expect(withParrot.body.emojis.map((e: { shortcode: string }) => e.shortcode)).toEqual(['party_parrot', 'blobcat']);
    // Timelines show them too.
    const home = await alice.client.get('/api/v1/timelines/home');
    expect(home.body.find((s: { id: string }) => s.id === withParrot.body.id).emojis).toHaveLength(2);

    const profile = await alice.client.patch('/api/v1/accounts/update_credentials', { display_name: ':blobcat: Alice', note: 'I like :party_parrot:' });
    expect(profile.body.emojis.map((e: { shortcode: string }) => e.shortcode).sort()).toEqual(['blobcat', 'party_parrot']);

    const files = [fileOnDisk(inst, parrot.url), fileOnDisk(inst, parrot.static_url)];
    const silence = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      expect(await main(['emoji', 'remove', '--data', inst.dataDir, '--shortcode', 'party_parrot'])).toBe(0);
    } finally {
      silence.mockRestore();
    }
    for (const f of files) expect(existsSync(f)).toBe(false);
    expect((await inst.anon.get('/api/v1/custom_emojis')).body).toHaveLength(1);
  });

  it('the clean-up removes day-old unused uploads and orphaned files, keeping what statuses still use', async () => {
    const old = await image('forgotten');
    const scheduledMedia = await image('for later');
    const detached = await image('edited away');
    const fresh = await image('just uploaded');
    const kept = await alice.client.post('/api/v1/statuses', { status: 'keeps its picture', media_ids: [detached.id] });
    await alice.client.put(`/api/v1/statuses/${kept.body.id}`, { status: 'picture removed' });
    const later = await alice.client.post('/api/v1/statuses', { status: 'later', media_ids: [scheduledMedia.id], scheduled_at: new Date(Date.now() + 3 * DAY).toISOString() });
    expect(later.status, later.text).toBe(200);
    const past = Date.now() - 2 * DAY;
    for (const m of [old, scheduledMedia, detached]) {
      inst.deps.db.query('UPDATE media_attachments SET created_at = @at WHERE id = @id').run({ at: past, id: m.id });
    }
    // A file nothing refers to (a crashed write), old enough, and a new one (an upload in progress).
    const orphan = join(inst.dataDir, 'media', 'media_attachments', 'files', '000', '000', '001', 'original', 'deadbeefdeadbeef.png');
    const newOrphan = join(dirname(orphan), 'cafecafecafecafe.png');
    mkdirSync(dirname(orphan), { recursive: true });
    writeFileSync(orphan, 'x');
    writeFileSync(newOrphan, 'y');
    utimesSync(orphan, new Date(past), new Date(past));

    const report = await cleanUpMediaNow(inst.deps);
    expect(report).toMatchObject({ media: 1, orphanFiles: 1 });
    expect(count(inst, 'media_attachments', 'id = @id', { id: old.id })).toBe(0);
    expect(existsSync(fileOnDisk(inst, old.url))).toBe(false);
    expect(existsSync(fileOnDisk(inst, old.preview_url))).toBe(false);
    expect(existsSync(orphan)).toBe(false);
    expect(existsSync(newOrphan)).toBe(true);
    for (const m of [scheduledMedia, detached, fresh]) {
      expect(count(inst, 'media_attachments', 'id = @id', { id: m.id })).toBe(1);
      expect(existsSync(fileOnDisk(inst, m.url))).toBe(true);
    }
    // Avatars and emojis are referenced files: untouched.
    const me = await alice.client.get('/api/v1/accounts/verify_credentials');
    expect(me.status).toBe(200);
    // The hourly rhythm: just ran, so the scheduled task does nothing now.
    expect(await cleanUpMedia(inst.deps)).toBeNull();
  });
});

describe('media work survives a restart', () => {
  it('a background upload accepted before a restart is processed after it; the clean-up keeps its rhythm', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hearth-restart-'));
    try {
      let inst = await startInstance({ dataDir });
      const alice = await inst.createUser('alice');
      mediaTestHooks.beforeBackgroundJob = () => new Promise(() => undefined);
      const res = await upload(alice.client, mp4(), { version: 2, type: 'video/mp4' });
      expect(res.status).toBe(202);
      await cleanUpMediaNow(inst.deps);
      await inst.close();
      mediaTestHooks.beforeBackgroundJob = null;

      inst = await startInstance({ dataDir });
      const done = await eventually(async () => {
        const r = await alice.client.withToken(inst.tokenFor(alice, 'write:media')).request('GET', `${inst.url}/api/v1/media/${res.body.id}`);
        return r.status === 200 ? r : undefined;
      });
      expect(done.body).toMatchObject({ type: 'video', meta: { width: 320, height: 240 } });
      expect(count(inst, 'media_jobs')).toBe(0);
      // The clean-up ran minutes ago (before the restart): not due yet.
      expect(await cleanUpMedia(inst.deps)).toBeNull();
      await inst.close();
    } finally {
      mediaTestHooks.beforeBackgroundJob = null;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
