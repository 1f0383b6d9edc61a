import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mediaTestHooks } from '../../api/core/media/storage.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { count, form, jpegWithExif, mp4, picture, storedFiles, upload } from './helpers.js';

describe('bad uploads leave nothing behind', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
  });
  afterAll(() => inst.close());
  afterEach(() => {
    mediaTestHooks.sizeLimit = null;
  });

  /** Expects a 4xx with an error and no new row or file. */
  async function refused(send: () => Promise<{ status: number; body: { error?: string } }>, status: number, error: string | RegExp): Promise<void> {
    const rows = count(inst, 'media_attachments');
    const files = storedFiles(inst);
    const res = await send();
    expect(res.status).toBe(status);
    if (typeof error === 'string') expect(res.body.error).toBe(error);
    else expect(res.body.error).toMatch(error);
    expect(count(inst, 'media_attachments')).toBe(rows);
    expect(storedFiles(inst)).toEqual(files);
  }

  it('a truncated JPEG', async () => {
    const jpeg = await jpegWithExif(800, 600);
    const cut = jpeg.subarray(0, Math.floor(jpeg.length * 0.6));
    await refused(() => upload(alice.client, cut, { type: 'image/jpeg' }), 422, 'Validation failed: File content type is invalid, File is invalid');
    await refused(() => upload(alice.client, cut, { version: 2, type: 'image/jpeg' }), 422, 'Validation failed: File content type is invalid, File is invalid');
  });

  it('a truncated PNG', async () => {
    const png = await picture(300, 300, 'png');
    await refused(() => upload(alice.client, png.subarray(0, png.length - 200), { type: 'image/png' }), 422, /File is invalid/);
  });

  it('a file lying about its type (text named .png, claimed image/png; an HTML page as video)', async () => {
    await refused(() => upload(alice.client, Buffer.from('hello, this is not a picture at all'), { type: 'image/png', name: 'x.png' }), 422, 'Validation failed: File content type is invalid, File is invalid');
    const html = Buffer.from('<!doctype html><html><script>alert(1)</script></html>');
    await refused(() => upload(alice.client, html, { version: 2, type: 'video/mp4', name: 'x.mp4' }), 422, /File content type is invalid/);
    // A PNG signature on garbage.
    const fake = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200, 7)]);
    await refused(() => upload(alice.client, fake, { type: 'image/png' }), 422, /File is invalid/);
  });

  it('an empty file, and no file at all', async () => {
    await refused(() => upload(alice.client, Buffer.alloc(0), { type: 'image/png' }), 422, /File is invalid/);
    await refused(() => alice.client.post('/api/v1/media', { description: 'no file' }), 422, "Validation failed: File can't be blank");
  });

  it('an oversized image and an oversized video (limits lowered for the test)', async () => {
    mediaTestHooks.sizeLimit = 10_000;
    const png = await picture(200, 200, 'png');
    expect(png.length).toBeGreaterThan(10_000);
    await refused(() => upload(alice.client, png, { type: 'image/png' }), 422, 'Validation failed: File file size must be less than 9.8 KB');
    const video = mp4();
    expect(video.length).toBeGreaterThan(10_000);
    await refused(() => upload(alice.client, video, { version: 2, type: 'video/mp4' }), 422, /File file size must be less than/);
  });

  it('a focal point outside −1..1 or malformed', async () => {
    const png = await picture(20, 20, 'png');
    for (const focus of ['1.5,0', '0,-1.01', 'a,b', '0.5', '0.1,0.2,0.3', 'Infinity,0']) {
      await refused(() => upload(alice.client, png, { type: 'image/png', fields: { focus } }), 422, 'Validation failed: Focus is invalid');
    }
  });

  it('a description over 1500 characters', async () => {
    const png = await picture(20, 20, 'png');
    await refused(
      () => upload(alice.client, png, { type: 'image/png', fields: { description: 'x'.repeat(1501) } }),
      422,
      'Validation failed: Description is too long (maximum is 1500 characters)',
    );
    const ok = await upload(alice.client, png, { type: 'image/png', fields: { description: '🔥'.repeat(1500) } });
    expect(ok.status).toBe(200);
  });

  it('a thumbnail that is not an image', async () => {
    const video = mp4({ silent: true });
    await refused(
      () => alice.client.post('/api/v1/media', undefined, { multipart: form({ file: { data: video, type: 'video/mp4' }, thumbnail: { data: Buffer.from('nope'), type: 'image/png' } }) }),
      422,
      /Thumbnail content type is invalid/,
    );
  });

  describe('PUT and DELETE /api/v1/media/:id', () => {
    it('PUT checks everything before writing', async () => {
      const { body } = await upload(alice.client, await picture(20, 20, 'png'), { type: 'image/png', fields: { description: 'before', focus: '0,0' } });
      const bad = await alice.client.put(`/api/v1/media/${body.id}`, { description: 'after', focus: '2,2' });
      expect(bad.status).toBe(422);
      const long = await alice.client.put(`/api/v1/media/${body.id}`, { description: 'y'.repeat(1501), focus: '0.5,0.5' });
      expect(long.status).toBe(422);
      const still = await alice.client.get(`/api/v1/media/${body.id}`);
      expect(still.body).toMatchObject({ description: 'before', meta: { focus: { x: 0, y: 0 } } });
      const good = await alice.client.put(`/api/v1/media/${body.id}`, { description: '', focus: '0.5,-0.5' }, { skipSchema: false });
      expect(good.status).toBe(200);
      expect(good.body).toMatchObject({ description: null, meta: { focus: { x: 0.5, y: -0.5 } } });
      // A thumbnail is for audio and video.
      const thumb = await alice.client.put(`/api/v1/media/${body.id}`, undefined, { multipart: form({ thumbnail: { data: await picture(10, 10, 'png'), type: 'image/png' } }) });
      expect(thumb.status).toBe(422);
    });

    it("someone else's media is not found; unknown ids neither", async () => {
      const { body } = await upload(alice.client, await picture(20, 20, 'png'), { type: 'image/png' });
      expect((await bob.client.get(`/api/v1/media/${body.id}`)).status).toBe(404);
      expect((await bob.client.put(`/api/v1/media/${body.id}`, { description: 'mine now' })).status).toBe(404);
      expect((await bob.client.delete(`/api/v1/media/${body.id}`)).status).toBe(404);
      expect((await bob.client.get('/api/v1/media/123')).status).toBe(404);
      expect((await bob.client.get('/api/v1/media/not-an-id')).status).toBe(404);
      expect((await alice.client.get(`/api/v1/media/${body.id}`)).status).toBe(200);
    });

    it('DELETE removes an unattached upload and its files; attached media stay (422)', async () => {
      const before = storedFiles(inst);
      const { body } = await upload(alice.client, await picture(30, 30, 'png'), { type: 'image/png' });
      const del = await alice.client.delete(`/api/v1/media/${body.id}`);
      expect(del.status).toBe(200);
      expect(del.body).toEqual({});
      expect(count(inst, 'media_attachments', 'id = @id', { id: body.id })).toBe(0);
      expect(storedFiles(inst)).toEqual(before);
      expect((await fetch(body.url)).status).toBe(404);

      const kept = await upload(alice.client, await picture(30, 30, 'png'), { type: 'image/png' });
      const status = await alice.client.post('/api/v1/statuses', { status: 'with a picture', media_ids: [kept.body.id] });
      expect(status.status).toBe(200);
      const refusedDelete = await alice.client.delete(`/api/v1/media/${kept.body.id}`);
      expect(refusedDelete.status).toBe(422);
      expect(refusedDelete.body.error).toBe('Media attachment is currently used by a status');
      expect((await fetch(kept.body.url)).status).toBe(200);
      // Attached media are no longer reachable through the upload endpoints.
      expect((await alice.client.get(`/api/v1/media/${kept.body.id}`)).status).toBe(404);
      expect((await alice.client.put(`/api/v1/media/${kept.body.id}`, { description: 'x' })).status).toBe(404);
    });

    it('scopes: GET, PUT and DELETE need write:media', async () => {
      const { body } = await upload(alice.client, await picture(20, 20, 'png'), { type: 'image/png' });
      const reader = alice.client.withToken(inst.tokenFor(alice, 'read'));
      expect((await reader.get(`/api/v1/media/${body.id}`)).status).toBe(403);
      expect((await reader.put(`/api/v1/media/${body.id}`, { description: 'x' })).status).toBe(403);
      expect((await reader.delete(`/api/v1/media/${body.id}`)).status).toBe(403);
      expect((await inst.anon.get(`/api/v1/media/${body.id}`)).status).toBe(401);
    });
  });
});
