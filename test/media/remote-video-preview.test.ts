import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { upsertRemoteAccount } from '../../api/core/federation/remote-accounts.js';
import type { AccountRow } from '../../api/db/repos/accounts.js';
import { remoteCacheTestHooks } from '../../api/core/media/remote-cache.js';
import { videoFrameTestHooks } from '../../api/media/video-frame.js';
import { eventually } from '../federation/helpers.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { ffmpeg, mp4 } from './helpers.js';
import { fetchRange } from './range-helpers.js';
import { attachment, copyState, download, FileServer, remoteActor, remoteStatus, type Attachment } from './remote-helpers.js';

/**
 * Remote videos under `remoteMedia: 'cache'`: a video or GIFV that came without a preview gets
 * its first frame as one once copied (with a blurhash unless the remote sent one), and the copy is
 * served from `/system` with byte ranges. A real instance; a file server on loopback plays the
 * remote server.
 */

interface Meta { small?: { width: number; height: number; size: string; aspect: number }; original?: { width: number; height: number } }
type Media = Attachment & { meta: Meta | null };

const server = new FileServer();
let clip: Buffer;
let inst: TestInstance;
let author: AccountRow;

/** Stores a remote status with one video attachment and waits until its copy is served from here. */
async function copied(path: string, mediaType: string, blurhash: string | null = null): Promise<Media> {
  const statusId = remoteStatus(inst.deps, server, author, [attachment(server.url(path), mediaType, blurhash)]);
  return eventually(async () => {
    const m = (await inst.anon.get<{ media_attachments: Media[] }>(`/api/v1/statuses/${statusId}`)).body.media_attachments[0];
    return m?.url.startsWith(`${inst.url}/system/`) ? m : null;
  }, 20_000);
}

beforeAll(async () => {
  clip = mp4({ seconds: 1 });
  server.files.set('/clip.mp4', { body: clip, type: 'video/mp4' });
  server.files.set('/clip2.mp4', { body: mp4({ seconds: 1, size: '640x480' }), type: 'video/mp4' });
  server.files.set('/loop.mp4', { body: mp4({ silent: true, size: '200x100' }), type: 'video/mp4' });
  server.files.set('/clip.webm', { body: ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10', '-t', '1', '-c:v', 'libvpx', '-b:v', '200k'], 'webm'), type: 'video/webm' });
  server.files.set('/clip3.mp4', { body: mp4({ seconds: 1, size: '96x64' }), type: 'video/mp4' });
  await server.start();
  remoteCacheTestHooks.scanIntervalMs = 100;
  inst = await startInstance({ federationAllowLoopback: true, remoteMedia: 'cache' });
  author = upsertRemoteAccount(inst.deps, remoteActor(server, 'filmmaker'));
});

afterAll(async () => {
  await inst?.close();
  remoteCacheTestHooks.scanIntervalMs = null;
  await server.stop();
});

afterEach(() => {
  videoFrameTestHooks.ffmpegPath = null;
});

describe("remote videos under 'cache'", () => {
  it('gives a remote video without a preview its first frame as preview, with meta.small and a blurhash', async () => {
    const media = await copied('/clip.mp4', 'video/mp4');
    expect(media.type).toBe('video');
    expect(media.preview_url).toMatch(new RegExp(`^${inst.url}/system/media_attachments/files/.+/small/[0-9a-f]+\\.png$`));
    expect(media.blurhash).toMatch(/^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]{6,}$/);
    expect(media.meta?.small).toEqual({ width: 320, height: 240, size: '320x240', aspect: 320 / 240 });
    expect(media.meta?.original?.width).toBe(320);
    const preview = await download(media.preview_url ?? '');
    expect(preview.status).toBe(200);
    expect(preview.type).toBe('image/png');
    const info = await sharp(preview.body).metadata();
    expect([info.width, info.height]).toEqual([320, 240]);
    // A frame of the test pattern, not a blank picture.
    const stats = await sharp(preview.body).stats();
    expect(stats.channels.some((c) => c.stdev > 20)).toBe(true);
  });

  it("keeps the remote blurhash, and scales a large frame down to the small preview's area", async () => {
    const media = await copied('/clip2.mp4', 'video/mp4', 'LEHV6nWB2yk8pyo0adR*.7kCMdnj');
    expect(media.blurhash).toBe('LEHV6nWB2yk8pyo0adR*.7kCMdnj');
    expect(media.preview_url).toMatch(/\/small\//);
    const small = media.meta?.small;
    expect(small && small.width * small.height).toBeLessThanOrEqual(230_400);
    expect(small?.aspect).toBeCloseTo(640 / 480, 2);
    const info = await sharp((await download(media.preview_url ?? '')).body).metadata();
    expect([info.width, info.height]).toEqual([small?.width, small?.height]);
  });

  it('gives a silent video (gifv) and a WebM video a preview too', async () => {
    const gifv = await copied('/loop.mp4', 'video/mp4');
    expect(gifv.type).toBe('gifv');
    expect(gifv.meta?.small).toMatchObject({ width: 200, height: 100 });
    expect((await download(gifv.preview_url ?? '')).status).toBe(200);
    const webm = await copied('/clip.webm', 'video/webm');
    expect(webm.type).toBe('gifv');
    expect(webm.meta?.small).toMatchObject({ width: 160, height: 120 });
  });

  it('without ffmpeg, copies the video all the same, without a preview', async () => {
    videoFrameTestHooks.ffmpegPath = '';
    const media = await copied('/clip3.mp4', 'video/mp4');
    expect(media.preview_url).toBeNull();
    expect(media.meta?.small).toBeUndefined();
    expect(copyState(inst.deps, 'attachment', media.id)?.state).toBe('done');
  });

  it('serves the copied video from /system with byte ranges', async () => {
    const media = await copied('/clip.mp4', 'video/mp4');
    const whole = await fetchRange(media.url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(whole.body.equals(clip)).toBe(true);
    const part = await fetchRange(media.url, { range: 'bytes=16-527' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 16-527/${clip.length}`);
    expect(part.headers.get('content-length')).toBe('512');
    expect(part.body.equals(clip.subarray(16, 528))).toBe(true);
    const beyond = await fetchRange(media.url, { range: `bytes=${clip.length}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${clip.length}`);
  });
});

describe("remote videos under 'cache' across a restart", () => {
  it('makes the preview of a video stored before a restart and copied after it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hearth-remote-video-'));
    try {
      remoteCacheTestHooks.paused = true;
      let other = await startInstance({ dataDir, federationAllowLoopback: true, remoteMedia: 'cache' });
      const filmmaker = upsertRemoteAccount(other.deps, remoteActor(server, 'restarted'));
      const statusId = remoteStatus(other.deps, server, filmmaker, [attachment(server.url('/loop.mp4'), 'video/mp4')]);
      await new Promise((r) => setTimeout(r, 300));
      const before = (await other.anon.get<{ media_attachments: Media[] }>(`/api/v1/statuses/${statusId}`)).body.media_attachments[0];
      expect(before?.url).toBe(server.url('/loop.mp4'));
      expect(before?.preview_url).toBeNull();
      await other.close();

      remoteCacheTestHooks.paused = false;
      other = await startInstance({ dataDir, federationAllowLoopback: true, remoteMedia: 'cache' });
      try {
        const media = await eventually(async () => {
          const m = (await other.anon.get<{ media_attachments: Media[] }>(`/api/v1/statuses/${statusId}`)).body.media_attachments[0];
          return m?.url.startsWith(`${other.url}/system/`) ? m : null;
        }, 20_000);
        expect(media.preview_url).toMatch(new RegExp(`^${other.url}/system/media_attachments/files/.+/small/`));
        expect(media.meta?.small).toMatchObject({ width: 200, height: 100 });
        expect((await download(media.preview_url ?? '')).status).toBe(200);
      } finally {
        await other.close();
      }
    } finally {
      remoteCacheTestHooks.paused = false;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
