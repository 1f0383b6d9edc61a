import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mediaTestHooks } from '../../api/core/media/storage.js';
import { blurhashComponents } from '../../api/media/blurhash.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { count, download, eventually, ffmpeg, form, mp4, mp4Box, picture, storedFiles, tone, upload } from './helpers.js';

describe('video and audio uploads', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let video: Buffer;
  let silent: Buffer;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    video = mp4();
    silent = mp4({ silent: true, size: '160x120', rate: 30 });
  });
  afterAll(() => inst.close());
  afterEach(() => {
    mediaTestHooks.beforeBackgroundJob = null;
    mediaTestHooks.beforeBackgroundSave = null;
  });

  it('v1: a video with sound is stored with its metadata; without a thumbnail its first frame is the preview', async () => {
    const res = await upload(alice.client, video, { type: 'video/mp4', name: 'clip.mp4' });
    expect(res.status, res.text).toBe(200);
    const m = res.body;
    expect(m).toMatchObject({ type: 'video', remote_url: null, preview_remote_url: null });
    // As Mastodon makes one: a still of the first frame, with its size and a blurhash.
    expect(m.preview_url).toMatch(/\/media_attachments\/files\/.*\/small\/[0-9a-f]{16}\.png$/);
    expect(m.meta.small).toEqual({ width: 320, height: 240, size: '320x240', aspect: 320 / 240 });
    expect(blurhashComponents(m.blurhash)).not.toBeNull();
    expect(await sharp(await download(m.preview_url)).metadata()).toMatchObject({ format: 'png', width: 320, height: 240 });
    expect(m.url).toMatch(/\/original\/[0-9a-f]{16}\.mp4$/);
    expect(m.meta).toMatchObject({ width: 320, height: 240, size: '320x240', fps: 25, audio_encode: 'aac', audio_bitrate: '44100 Hz', audio_channels: 'mono' });
    expect(m.meta.aspect).toBeCloseTo(4 / 3, 5);
    expect(m.meta.duration).toBeCloseTo(1, 1);
    expect(m.meta.length).toMatch(/^0:00:0[01]\.\d\d$/);
    expect(m.meta.original).toMatchObject({ width: 320, height: 240, frame_rate: '25/1' });
    expect(m.meta.original.bitrate).toBeGreaterThan(0);
    // Already H.264 and AAC: its streams are kept as they are (see video-conversion.test.ts).
    const bytes = await download(m.url);
    expect(mp4Box(bytes, 'mdat').equals(mp4Box(video, 'mdat'))).toBe(true);
    const ranged = await fetch(m.url, { headers: { range: 'bytes=100-199' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-type')).toBe('video/mp4');
    expect(Buffer.from(await ranged.arrayBuffer())).toEqual(bytes.subarray(100, 200));
  });

  it('a video without sound is a gifv, as Mastodon treats silent videos', async () => {
    const res = await upload(alice.client, silent, { type: 'video/mp4' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ type: 'gifv', meta: { width: 160, height: 120, fps: 30 } });
    expect(res.body.meta.audio_encode).toBeUndefined();
  });

  it('WebM video is read from its Matroska header, and stored converted to MP4 (H.264, AAC)', async () => {
    const webm = ffmpeg(
      ['-f', 'lavfi', '-i', 'testsrc=size=256x144:rate=24', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000', '-t', '1', '-c:v', 'libvpx', '-b:v', '200k', '-c:a', 'libvorbis', '-shortest'],
      'webm',
    );
    const res = await upload(alice.client, webm, { type: 'video/webm' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ type: 'video', meta: { width: 256, height: 144, fps: 24, audio_encode: 'aac', audio_bitrate: '48000 Hz' } });
    expect(res.body.meta.duration).toBeCloseTo(1, 0);
    expect(res.body.url).toMatch(/\.mp4$/);
  });

  it('the uploaded thumbnail becomes the preview, with its blurhash and size', async () => {
    const thumb = await picture(640, 480, 'png');
    const res = await upload(alice.client, video, { type: 'video/mp4', thumbnail: thumb });
    expect(res.status, res.text).toBe(200);
    expect(res.body.preview_url).toMatch(/\/media_attachments\/thumbnails\/.*\/original\/[0-9a-f]{16}\.png$/);
    expect(res.body.meta.small).toEqual({ width: 640, height: 480, size: '640x480', aspect: 640 / 480 });
    expect(blurhashComponents(res.body.blurhash)).toEqual({ x: 4, y: 4 });
    expect((await sharp(await download(res.body.preview_url)).metadata()).format).toBe('png');
  });

  it('v2: 202 while processing, GET answers 206, then 200 once done', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    mediaTestHooks.beforeBackgroundJob = () => gate;
    const res = await upload(alice.client, video, { version: 2, type: 'video/mp4' });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ type: 'video', url: null, preview_url: null });
    const pending = await alice.client.get(`/api/v1/media/${res.body.id}`);
    expect(pending.status).toBe(206);
    expect(pending.body.url).toBeNull();
    // Not attachable until processed, as Mastodon refuses.
    const early = await alice.client.post('/api/v1/statuses', { status: 'too soon', media_ids: [res.body.id] });
    expect(early.status).toBe(422);
    // A description can be set while it processes.
    const described = await alice.client.put(`/api/v1/media/${res.body.id}`, { description: 'a test card' });
    expect(described.status).toBe(206);
    expect(described.body.description).toBe('a test card');
    release();
    const done = await eventually(async () => {
      const r = await alice.client.get(`/api/v1/media/${res.body.id}`);
      return r.status === 200 ? r : undefined;
    });
    expect(done.body.url).toMatch(/\.mp4$/);
    expect(done.body).toMatchObject({ type: 'video', description: 'a test card', meta: { width: 320, height: 240 } });
    expect(count(inst, 'media_jobs')).toBe(0);
    const posted = await alice.client.post('/api/v1/statuses', { status: 'now', media_ids: [res.body.id] });
    expect(posted.status, posted.text).toBe(200);
  });

  it('v2: a thumbnail uploaded while the video is processed wins over the generated frame', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let processed!: () => void;
    const framed = new Promise<void>((resolve) => (processed = resolve));
    // The job has made its frame and waits to save: the thumbnail arrives just then.
    mediaTestHooks.beforeBackgroundSave = () => {
      processed();
      return gate;
    };
    const res = await upload(alice.client, video, { version: 2, type: 'video/mp4' });
    expect(res.status, res.text).toBe(202);
    await framed;
    const thumbed = await alice.client.put(`/api/v1/media/${res.body.id}`, undefined, {
      multipart: form({ thumbnail: { data: await picture(200, 100, 'jpeg'), type: 'image/jpeg' } }),
    });
    expect(thumbed.status, thumbed.text).toBe(206);
    const before = storedFiles(inst).length;
    release();
    const done = await eventually(async () => {
      const r = await alice.client.get(`/api/v1/media/${res.body.id}`);
      return r.status === 200 ? r : undefined;
    });
    expect(done.body.preview_url).toBe(thumbed.body.preview_url);
    expect(done.body.meta.small).toMatchObject({ width: 200, height: 100 });
    expect(done.body.meta).toMatchObject({ width: 320, height: 240 });
    // The frame made meanwhile is removed again (just after the row is saved): nothing but the
    // video and the thumbnail is left.
    await eventually(() => (storedFiles(inst).length === before - 1 ? true : undefined), 5_000);
  });

  it('v2: a video that turns out unreadable ends failed (GET 422) and leaves no file', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    mediaTestHooks.beforeBackgroundJob = () => gate;
    // An MP4 header with its movie box cut off: the type is recognised, the contents are not there.
    const broken = Buffer.concat([video.subarray(0, 32), Buffer.alloc(64)]);
    const res = await upload(alice.client, broken, { version: 2, type: 'video/mp4' });
    expect(res.status, res.text).toBe(202);
    release();
    const failed = await eventually(async () => {
      const r = await alice.client.get(`/api/v1/media/${res.body.id}`);
      return r.status === 422 ? r : undefined;
    });
    expect(failed.body.error).toBe('Error processing thumbnail for uploaded media');
    expect(storedFiles(inst).filter((f) => f.includes('media-staging'))).toEqual([]);
  });

  it.each([
    ['wav', 'audio/wav', 'pcm'],
    ['flac', 'audio/flac', 'flac'],
    ['m4a', 'audio/mp4', 'aac'],
    ['ogg', 'audio/ogg', 'vorbis'],
    ['mp3', 'audio/mpeg', 'mp3'],
  ] as const)('audio: %s is stored as %s with its duration', async (ext, mime, codec) => {
    const audio = tone(ext);
    const res = await upload(alice.client, audio, { version: 2, type: 'application/octet-stream', name: `tone.${ext}` });
    expect([200, 202]).toContain(res.status);
    const done = await eventually(async () => {
      const r = await alice.client.get(`/api/v1/media/${res.body.id}`);
      return r.status === 200 ? r : undefined;
    });
    const m = done.body;
    expect(m).toMatchObject({ type: 'audio', preview_url: null, meta: { audio_encode: codec, audio_bitrate: '44100 Hz', audio_channels: 'stereo' } });
    expect(m.meta.duration).toBeGreaterThan(1.9);
    expect(m.meta.duration).toBeLessThan(2.2);
    const served = await fetch(m.url, { method: 'HEAD' });
    expect(served.headers.get('content-type')).toBe(mime);
  });

  it('PUT: a thumbnail added later replaces the preview; the old file goes', async () => {
    const up = await upload(alice.client, tone('mp3'), { type: 'audio/mpeg' });
    expect(up.status, up.text).toBe(200);
    const first = await alice.client.put(`/api/v1/media/${up.body.id}`, undefined, {
      multipart: form({ thumbnail: { data: await picture(200, 200, 'jpeg'), type: 'image/jpeg' } }, { focus: '0.1,-0.2' }),
    });
    expect(first.status, first.text).toBe(200);
    expect(first.body.preview_url).toMatch(/\.jpeg$/);
    expect(first.body.meta.focus).toEqual({ x: 0.1, y: -0.2 });
    expect(first.body.meta.small).toMatchObject({ width: 200, height: 200 });
    const second = await alice.client.put(`/api/v1/media/${up.body.id}`, undefined, {
      multipart: form({ thumbnail: { data: await picture(100, 50, 'png'), type: 'image/png' } }),
    });
    expect(second.body.preview_url).not.toBe(first.body.preview_url);
    expect((await fetch(first.body.preview_url)).status).toBe(404);
    expect((await fetch(second.body.preview_url)).status).toBe(200);
    // The duration read at upload stays.
    expect(second.body.meta.duration).toBeGreaterThan(1.9);
  });
});
