import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mediaTestHooks } from '../../api/core/media/storage.js';
import { conversionDeadline, parseStreamReport, planConversion, transcodeTestHooks, type StreamReport } from '../../api/media/transcode.js';
import { videoFrameTestHooks } from '../../api/media/video-frame.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { animatedGif, count, download, eventually, ffmpeg, ffmpegReport, mp4Box, mp4Boxes, mp4Codecs, storedFiles, upload } from './helpers.js';

/**
 * Uploaded videos and animated GIFs become H.264 MP4s as Mastodon makes them: yuv420p, even sides,
 * AAC sound, the index first (faststart), no metadata; animated GIFs become gifv. An MP4 that
 * already is H.264/AAC keeps its streams. Every video here is made by ffmpeg in the test.
 */

const INVALID = 'Validation failed: File content type is invalid, File is invalid';

/** What a stored MP4 must be: the index before the media data, and H.264 in yuv420p. */
function expectPlayableMp4(bytes: Buffer, options: { sound: boolean; size?: string }): void {
  const order = mp4Boxes(bytes).map((b) => b.type);
  expect(order[0]).toBe('ftyp');
  // faststart: the index (moov) comes before the media data, so playback starts while loading.
  expect(order.indexOf('moov')).toBeGreaterThan(0);
  expect(order.indexOf('moov')).toBeLessThan(order.indexOf('mdat'));
  expect(mp4Codecs(bytes).sort()).toEqual(options.sound ? ['avc1', 'mp4a'] : ['avc1']);
  const report = ffmpegReport(bytes, 'mp4');
  const video = /Stream #0:\d+.*Video: (.*)/.exec(report)?.[1] ?? '';
  expect(video).toMatch(/^h264 /);
  expect(video).toMatch(/, yuv420p[,(]/);
  if (options.size) expect(video).toContain(`, ${options.size}`);
  if (options.sound) expect(report).toMatch(/Audio: aac/);
  else expect(report).not.toMatch(/Audio:/);
}

describe('video and animated GIF conversion', () => {
  let inst: TestInstance;
  let alice: TestUser;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
  });
  afterAll(() => inst.close());
  afterEach(() => {
    transcodeTestHooks.timeoutMs = null;
    transcodeTestHooks.onSpawn = null;
    mediaTestHooks.beforeBackgroundJob = null;
  });

  const spooled = () => (existsSync(join(inst.dataDir, 'uploads')) ? readdirSync(join(inst.dataDir, 'uploads')) : []);
  const rows = () => count(inst, 'media_attachments');

  it('an animated GIF becomes a gifv: an H.264 MP4 without sound, sides made even, a PNG preview, Mastodon\'s meta', async () => {
    // 121×81: odd sides, which H.264 cannot have.
    const gif = ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=121x81:rate=10', '-t', '1'], 'gif');
    const res = await upload(alice.client, gif, { type: 'image/gif', name: 'loop.gif' });
    expect(res.status, res.text).toBe(200);
    const m = res.body;
    expect(m.type).toBe('gifv');
    expect(m.url).toMatch(/\/media_attachments\/files\/.*\/original\/[0-9a-f]{16}\.mp4$/);
    expect(m.preview_url).toMatch(/\/small\/[0-9a-f]{16}\.png$/);
    expect(m.meta.original).toMatchObject({ width: 120, height: 80, frame_rate: '10/1' });
    expect(m.meta.original.duration).toBeCloseTo(1, 1);
    expect(m.meta.original.bitrate).toBeGreaterThan(0);
    expect(m.meta).toMatchObject({ width: 120, height: 80, size: '120x80', fps: 10 });
    expect(m.meta.audio_encode).toBeUndefined();
    expect(m.meta.small).toMatchObject({ width: 120, height: 80 });
    const served = await fetch(m.url);
    expect(served.headers.get('content-type')).toBe('video/mp4');
    expectPlayableMp4(Buffer.from(await served.arrayBuffer()), { sound: false, size: '120x80' });
    expect((await sharp(await download(m.preview_url)).metadata()).format).toBe('png');
    expect(spooled()).toEqual([]);
  });

  it('v2 converts an animated GIF at once too (200, as Mastodon processes GIFs as images)', async () => {
    const gif = ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=5', '-t', '1'], 'gif');
    const res = await upload(alice.client, gif, { version: 2, type: 'image/gif' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ type: 'gifv', meta: { original: { width: 64, height: 48 } } });
    expect(res.body.url).toMatch(/\.mp4$/);
  });

  it('a WebM (VP9 and Opus) becomes an H.264 and AAC MP4', async () => {
    const webm = ffmpeg(
      ['-f', 'lavfi', '-i', 'testsrc=size=256x144:rate=24', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000', '-t', '1', '-c:v', 'libvpx-vp9', '-b:v', '200k', '-c:a', 'libopus', '-shortest'],
      'webm',
    );
    expect(ffmpegReport(webm, 'webm')).toMatch(/Video: vp9/);
    const res = await upload(alice.client, webm, { type: 'video/webm', name: 'clip.webm' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ type: 'video', meta: { width: 256, height: 144, fps: 24, audio_encode: 'aac', original: { width: 256, height: 144, frame_rate: '24/1' } } });
    expect(res.body.url).toMatch(/\.mp4$/);
    expectPlayableMp4(await download(res.body.url), { sound: true, size: '256x144' });
  });

  it('v2: an MPEG-4 part 2 video becomes H.264 in the background (a silent one is a gifv)', async () => {
    const part2 = ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=176x144:rate=15', '-t', '1', '-c:v', 'mpeg4'], 'mp4');
    expect(mp4Codecs(part2)).toEqual(['mp4v']);
    const res = await upload(alice.client, part2, { version: 2, type: 'video/mp4' });
    expect(res.status, res.text).toBe(202);
    const done = await eventually(async () => {
      const r = await alice.client.get(`/api/v1/media/${res.body.id}`);
      return r.status === 200 ? r : undefined;
    }, 30_000);
    expect(done.body).toMatchObject({ type: 'gifv', meta: { width: 176, height: 144, original: { frame_rate: '15/1' } } });
    expectPlayableMp4(await download(done.body.url), { sound: false, size: '176x144' });
    expect(storedFiles(inst).filter((f) => f.includes('media-staging'))).toEqual([]);
  });

  it('an MP4 already H.264 and AAC keeps its streams (copied, not re-encoded); its metadata goes and its index moves first', async () => {
    // The index at the end (no faststart), a title and a GPS position in the metadata.
    const original = ffmpeg(
      [
        '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=25', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100', '-t', '1',
        '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest',
        '-metadata', 'title=Secret meeting', '-metadata', 'location=+48.8584+002.2945/',
      ],
      'mp4',
    );
    const order = mp4Boxes(original).map((b) => b.type);
    expect(order.indexOf('moov')).toBeGreaterThan(order.indexOf('mdat'));
    expect(original.includes('Secret meeting')).toBe(true);
    const res = await upload(alice.client, original, { type: 'video/mp4' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ type: 'video', meta: { width: 320, height: 240, audio_encode: 'aac' } });
    const stored = await download(res.body.url);
    expectPlayableMp4(stored, { sound: true, size: '320x240' });
    // The same coded pictures and sound, byte for byte: nothing was re-encoded.
    expect(mp4Box(stored, 'mdat').equals(mp4Box(original, 'mdat'))).toBe(true);
    expect(stored.includes('Secret meeting')).toBe(false);
    expect(stored.includes('+48.8584')).toBe(false);
  });

  it('a video above the frame-rate limit is refused before conversion, leaving nothing', async () => {
    const fast = ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=150', '-t', '0.2', '-c:v', 'libx264', '-pix_fmt', 'yuv420p'], 'mp4');
    const files = storedFiles(inst);
    const before = rows();
    const res = await upload(alice.client, fast, { type: 'video/mp4' });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('Validation failed: Videos with a frame rate above 120 are not supported');
    expect(storedFiles(inst)).toEqual(files);
    expect(rows()).toBe(before);
  });

  it('an animated GIF with a picture above the video limit is refused from its header', async () => {
    // A small two-frame GIF whose screen and frames are then said to be 4000×2100 (8.4 megapixels,
    // above 3840×2160): the header is all that is read before the refusal.
    const frames = Buffer.concat(await Promise.all(['#f00', '#00f'].map((background) => sharp({ create: { width: 8, height: 4, channels: 3, background } }).raw().toBuffer())));
    const gif = await sharp(frames, { raw: { width: 8, height: 8, channels: 3, pageHeight: 4 } }).gif({ loop: 0 }).toBuffer();
    gif.writeUInt16LE(4000, 6);
    gif.writeUInt16LE(2100, 8);
    for (let i = 13; i + 9 < gif.length; i++) {
      // Image descriptors: 0x2c, left, top, width, height.
      if (gif[i] === 0x2c && gif.readUInt16LE(i + 5) === 8 && gif.readUInt16LE(i + 7) === 4) {
        gif.writeUInt16LE(4000, i + 5);
        gif.writeUInt16LE(2100, i + 7);
      }
    }
    const files = storedFiles(inst);
    const res = await upload(alice.client, gif, { type: 'image/gif' });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('Validation failed: 4000x2100 videos are not supported');
    expect(storedFiles(inst)).toEqual(files);
  });

  describe('a video ffmpeg cannot convert', () => {
    /** An MPEG-4 part 2 video whose coded pictures are noise: the container reads, nothing decodes. */
    function undecodable(): Buffer {
      const video = ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=176x144:rate=15', '-t', '1', '-c:v', 'mpeg4'], 'mp4');
      const mdat = mp4Boxes(video).find((b) => b.type === 'mdat');
      if (!mdat) throw new Error('no mdat');
      let seed = 7;
      for (let i = mdat.start + 8; i < mdat.start + mdat.size; i++) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        video[i] = seed & 0xff;
      }
      return video;
    }

    it('v1: 422 with Mastodon\'s words, and nothing on disk (no stored file, no staged output, no spooled upload, no row)', async () => {
      const files = storedFiles(inst);
      const before = rows();
      const res = await upload(alice.client, undecodable(), { type: 'video/mp4' });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe(INVALID);
      expect(storedFiles(inst)).toEqual(files);
      expect(spooled()).toEqual([]);
      expect(rows()).toBe(before);
    });

    it('v2: the upload ends failed (GET 422) and nothing is left on disk', async () => {
      const files = storedFiles(inst);
      const res = await upload(alice.client, undecodable(), { version: 2, type: 'video/mp4' });
      expect(res.status, res.text).toBe(202);
      const failed = await eventually(async () => {
        const r = await alice.client.get(`/api/v1/media/${res.body.id}`);
        return r.status === 422 ? r : undefined;
      }, 30_000);
      expect(failed.body.error).toBe('Error processing thumbnail for uploaded media');
      expect(storedFiles(inst)).toEqual(files);
    });
  });

  it('without an ffmpeg for the platform, a GIF stays an animated GIF and a WebM a WebM', async () => {
    videoFrameTestHooks.ffmpegPath = '';
    try {
      const gif = await upload(alice.client, await animatedGif(40, 30), { type: 'image/gif' });
      expect(gif.status, gif.text).toBe(200);
      expect(gif.body.type).toBe('image');
      expect((await sharp(await download(gif.body.url), { animated: true }).metadata()).pages).toBe(3);
      const webm = ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=10', '-t', '1', '-c:v', 'libvpx', '-b:v', '100k'], 'webm');
      const video = await upload(alice.client, webm, { type: 'video/webm' });
      expect(video.status, video.text).toBe(200);
      expect(video.body.url).toMatch(/\.webm$/);
      expect((await download(video.body.url)).equals(webm)).toBe(true);
    } finally {
      videoFrameTestHooks.ffmpegPath = null;
    }
  });

  it('runs in a child process: while ffmpeg is held stopped, the instance answers other requests', async () => {
    let started!: (pid: number) => void;
    const spawned = new Promise<number>((resolve) => (started = resolve));
    transcodeTestHooks.onSpawn = (pid) => {
      process.kill(pid, 'SIGSTOP');
      started(pid);
    };
    const webm = ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=128x96:rate=10', '-t', '1', '-c:v', 'libvpx', '-b:v', '100k'], 'webm');
    let answered = false;
    const pending = upload(alice.client, webm, { type: 'video/webm' }).finally(() => {
      answered = true;
    });
    const pid = await spawned;
    try {
      for (let i = 0; i < 5; i++) {
        expect((await inst.anon.get('/health', { skipSchema: true })).status).toBe(200);
        expect((await alice.client.get('/api/v1/accounts/verify_credentials')).status).toBe(200);
      }
      expect(answered).toBe(false);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const res = await pending;
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ type: 'gifv' });
    expect(res.body.url).toMatch(/\.mp4$/);
  });

  it('a conversion that runs out of time is stopped: 422, and nothing is left', async () => {
    transcodeTestHooks.timeoutMs = 300;
    // ffmpeg is held stopped: only the deadline can end it.
    transcodeTestHooks.onSpawn = (pid) => process.kill(pid, 'SIGSTOP');
    const webm = ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=128x96:rate=10', '-t', '1', '-c:v', 'libvpx', '-b:v', '100k'], 'webm');
    const files = storedFiles(inst);
    const before = rows();
    const res = await upload(alice.client, webm, { type: 'video/webm' });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe(INVALID);
    expect(storedFiles(inst)).toEqual(files);
    expect(spooled()).toEqual([]);
    expect(rows()).toBe(before);
  });
});

describe('the conversion plan', () => {
  const MP4 = { kind: 'video', mime: 'video/mp4', ext: 'mp4', container: 'isobmff' } as const;
  const MOV = { kind: 'video', mime: 'video/quicktime', ext: 'mov', container: 'isobmff' } as const;
  const WEBM = { kind: 'video', mime: 'video/webm', ext: 'webm', container: 'webm' } as const;
  const limits = { sizeLimit: 99 * 1024 * 1024, frameRateLimit: 120 };
  const report = (video: Partial<NonNullable<StreamReport['video']>>, audio: string | null, duration = 10): StreamReport => ({
    video: { codec: 'h264', pixelFormat: 'yuv420p', width: 1920, height: 1080, frameRate: 30, baseRate: 30, ...video },
    audio: audio === null ? null : { codec: audio },
    duration,
  });

  it('reads ffmpeg\'s report on an input', () => {
    const text = [
      "Input #0, mov,mp4,m4a,3gp,3g2,mj2, from 'file:a.mp4':",
      '  Duration: 00:01:02.50, start: 0.000000, bitrate: 144 kb/s',
      '    Stream #0:0(und): Video: h264 (High) (avc1 / 0x31637661), yuv420p(tv, bt709), 1080x1920 [SAR 1:1 DAR 9:16], 58 kb/s, 29.97 fps, 30 tbr, 90k tbn, 60 tbc (default)',
      '    Stream #0:1(und): Audio: aac (LC) (mp4a / 0x6134706D), 44100 Hz, mono, fltp, 69 kb/s (default)',
      'At least one output file must be specified',
    ].join('\n');
    expect(parseStreamReport(text)).toEqual({
      video: { codec: 'h264', pixelFormat: 'yuv420p', width: 1080, height: 1920, frameRate: 29.97, baseRate: 30 },
      audio: { codec: 'aac' },
      duration: 62.5,
    });
    const gif = parseStreamReport('  Duration: N/A, bitrate: N/A\n    Stream #0:0: Video: gif, bgra, 121x81, 10 fps, 10 tbr, 100 tbn, 100 tbc\n');
    expect(gif).toEqual({ video: { codec: 'gif', pixelFormat: 'bgra', width: 121, height: 81, frameRate: 10, baseRate: 10 }, audio: null, duration: null });
  });

  it('copies an MP4 that is H.264 in yuv420p with AAC or no sound, as Mastodon passes it through', () => {
    expect(planConversion(MP4, report({}, 'aac'), limits)).toEqual({ mode: 'copy', audio: true });
    expect(planConversion(MP4, report({}, null), limits)).toEqual({ mode: 'copy', audio: false });
  });

  it('encodes anything else: other codecs, other pixel formats, other sound, other containers', () => {
    expect(planConversion(MP4, report({}, 'mp3'), limits).mode).toBe('encode');
    expect(planConversion(MP4, report({ pixelFormat: 'yuv444p' }, 'aac'), limits).mode).toBe('encode');
    expect(planConversion(MP4, report({ codec: 'hevc' }, 'aac'), limits).mode).toBe('encode');
    expect(planConversion(MOV, report({}, 'aac'), limits).mode).toBe('encode');
    expect(planConversion(WEBM, report({ codec: 'vp9' }, 'opus'), limits)).toMatchObject({ mode: 'encode', audio: true });
  });

  it('asks for Mastodon\'s bit rate: 0.11 bit per pixel at 30 frames, capped so that the file fits the size limit', () => {
    // 1920×1080 for 10 s: 0.11 × 1920 × 1080 × 30 = 6,842,880 bit/s, well within 99 MiB.
    expect(planConversion(WEBM, report({ codec: 'vp9' }, 'opus'), limits)).toEqual({ mode: 'encode', audio: true, bitrate: 6_842_880, variableFrameRate: false });
    // 10 minutes: 99 MiB × 8 / 600 s − 192 kbit/s of sound.
    const long = planConversion(WEBM, report({ codec: 'vp9' }, 'opus', 600), limits);
    expect(long).toMatchObject({ bitrate: Math.floor((99 * 1024 * 1024 * 8) / 600) - 192_000 });
    // A base rate above the frame-rate limit keeps the frame rate variable.
    expect(planConversion(WEBM, report({ codec: 'vp9', baseRate: 240 }, null), limits)).toMatchObject({ variableFrameRate: true, audio: false });
  });

  it('gives a conversion two minutes and ten times the duration, an hour at most', () => {
    expect(conversionDeadline(null)).toBe(120_000);
    expect(conversionDeadline(60)).toBe(720_000);
    expect(conversionDeadline(1e6)).toBe(3_600_000);
  });
});
