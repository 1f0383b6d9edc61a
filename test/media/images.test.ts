import { existsSync } from 'node:fs';
import { crc32, deflateSync } from 'node:zlib';
import { decode } from 'blurhash';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blurhashComponents, isAcceptableBlurhash } from '../../api/media/blurhash.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { animatedGif, download, exifTags, fileOnDisk, jpegWithExif, picture, upload } from './helpers.js';

describe('image uploads', () => {
  let inst: TestInstance;
  let alice: TestUser;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
  });
  afterAll(() => inst.close());

  it('PNG: stored as PNG with a small preview within 640×360 pixels of area, meta and a 4×4 blurhash', async () => {
    const png = await picture(1200, 800, 'png');
    const res = await upload(alice.client, png, { type: 'image/png', name: 'a.png', fields: { description: 'a gradient', focus: '-0.5,0.25' } });
    expect(res.status, res.text).toBe(200);
    const m = res.body;
    expect(m).toMatchObject({ type: 'image', description: 'a gradient', remote_url: null });
    expect(m.url).toMatch(new RegExp(`^${inst.url}/system/media_attachments/files/(\\d{3}/)+original/[0-9a-f]{16}\\.png$`));
    expect(m.preview_url).toMatch(/\/small\/[0-9a-f]{16}\.png$/);
    expect(m.meta.original).toEqual({ width: 1200, height: 800, size: '1200x800', aspect: 1.5 });
    // 640×360 = 230,400 pixels, the aspect kept: 587×391.
    expect(m.meta.small.width * m.meta.small.height).toBeLessThanOrEqual(230_400);
    expect(m.meta.small.width / m.meta.small.height).toBeCloseTo(1.5, 2);
    expect(m.meta.focus).toEqual({ x: -0.5, y: 0.25 });
    expect(blurhashComponents(m.blurhash)).toEqual({ x: 4, y: 4 });
    expect(decode(m.blurhash, 8, 8)).toHaveLength(8 * 8 * 4);

    const original = await sharp(await download(m.url)).metadata();
    expect(original).toMatchObject({ format: 'png', width: 1200, height: 800 });
    const small = await sharp(await download(m.preview_url)).metadata();
    expect({ width: small.width, height: small.height }).toEqual({ width: m.meta.small.width, height: m.meta.small.height });
  });

  it('JPEG with EXIF orientation 6 and GPS: turned upright, every piece of metadata gone', async () => {
    const jpeg = await jpegWithExif(600, 400);
    const before = await sharp(jpeg).metadata();
    expect(before.orientation).toBe(6);
    expect(exifTags(before.exif)).toContain(0x8825); // the GPS IFD pointer

    const res = await upload(alice.client, jpeg, { type: 'image/jpeg', name: 'photo.jpg' });
    expect(res.status, res.text).toBe(200);
    // Orientation 6 is a quarter turn: 600×400 stored pixels display as 400×600.
    expect(res.body.meta.original).toMatchObject({ width: 400, height: 600 });
    for (const url of [res.body.url, res.body.preview_url]) {
      const bytes = await download(url);
      const meta = await sharp(bytes).metadata();
      expect(meta.format).toBe('jpeg');
      expect(meta.exif).toBeUndefined();
      expect(meta.xmp).toBeUndefined();
      expect(meta.iptc).toBeUndefined();
      expect(meta.orientation).toBeUndefined();
      expect(bytes.includes('secret owner')).toBe(false);
      expect(bytes.includes('TestCam')).toBe(false);
    }
    const stored = await sharp(await download(res.body.url)).metadata();
    expect({ width: stored.width, height: stored.height }).toEqual({ width: 400, height: 600 });
  });

  it('animated GIF: becomes a looping video (gifv, H.264 MP4), with a still PNG preview', async () => {
    const gif = await animatedGif(120, 80);
    const res = await upload(alice.client, gif, { type: 'image/gif', name: 'anim.gif' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.type).toBe('gifv');
    expect(res.body.url).toMatch(/\.mp4$/);
    expect(res.body.meta.original).toMatchObject({ width: 120, height: 80 });
    const small = await sharp(await download(res.body.preview_url)).metadata();
    expect(small.format).toBe('png');
    expect(small.pages ?? 1).toBe(1);
  });

  it('a still GIF becomes PNG, as Mastodon stores it', async () => {
    const gif = await sharp({ create: { width: 50, height: 50, channels: 3, background: { r: 10, g: 200, b: 30 } } }).gif().toBuffer();
    const res = await upload(alice.client, gif, { type: 'image/gif' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.url).toMatch(/\.png$/);
  });

  it('WebP through v2: processed at once (200), stored as WebP', async () => {
    const webp = await picture(300, 300, 'webp');
    const res = await upload(alice.client, webp, { version: 2, type: 'image/webp', name: 'x.webp' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.url).toMatch(/\.webp$/);
    expect((await sharp(await download(res.body.url)).metadata()).format).toBe('webp');
    const again = await alice.client.get(`/api/v1/media/${res.body.id}`);
    expect(again.status).toBe(200);
    expect(again.body.url).toBe(res.body.url);
  });

  it('scales pictures above image_matrix_limit down to it, and refuses absurd sizes before decoding', async () => {
    const big = await sharp({ create: { width: 8000, height: 4200, channels: 3, background: '#808080' } }).jpeg().toBuffer();
    const res = await upload(alice.client, big, { type: 'image/jpeg' });
    expect(res.status, res.text).toBe(200);
    const { width, height, aspect } = res.body.meta.original;
    expect(width * height).toBeLessThanOrEqual(33_177_600);
    expect(width * height).toBeGreaterThan(33_000_000);
    expect(aspect).toBeCloseTo(8000 / 4200, 2);

    // A PNG header claiming 12000×12000 (144 megapixels): refused from the header alone.
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(12000, 0);
    ihdr.writeUInt32BE(12000, 4);
    ihdr[8] = 8;
    ihdr[9] = 2;
    const chunk = (type: string, data: Buffer) => {
      const len = Buffer.alloc(4);
      len.writeUInt32BE(data.length);
      const body = Buffer.concat([Buffer.from(type), data]);
      const crc = Buffer.alloc(4);
      crc.writeUInt32BE(crc32(body));
      return Buffer.concat([len, body, crc]);
    };
    const bomb = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.alloc(1000))), chunk('IEND', Buffer.alloc(0))]);
    const refused = await upload(alice.client, bomb, { type: 'image/png' });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toBe('Validation failed: 12000x12000 images are not supported');
  });

  it('the type comes from the bytes, not the name or the claimed type', async () => {
    const png = await picture(40, 40, 'png');
    const res = await upload(alice.client, png, { type: 'video/mp4', name: 'movie.mp4' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.type).toBe('image');
    expect(res.body.url).toMatch(/\.png$/);
  });

  it('serves files with their type, ranges, immutable caching, and nothing else', async () => {
    const png = await picture(64, 64, 'png');
    const { body } = await upload(alice.client, png, { type: 'image/png' });
    const whole = await fetch(body.url);
    const bytes = Buffer.from(await whole.arrayBuffer());
    expect(whole.headers.get('content-type')).toBe('image/png');
    expect(whole.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(whole.headers.get('x-content-type-options')).toBe('nosniff');
    expect(whole.headers.get('access-control-allow-origin')).toBe('*');

    const part = await fetch(body.url, { headers: { range: 'bytes=0-9' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 0-9/${bytes.length}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(bytes.subarray(0, 10));
    const suffix = await fetch(body.url, { headers: { range: 'bytes=-4' } });
    expect(Buffer.from(await suffix.arrayBuffer())).toEqual(bytes.subarray(bytes.length - 4));
    const beyond = await fetch(body.url, { headers: { range: `bytes=${bytes.length + 10}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
    const etag = whole.headers.get('etag') ?? '';
    expect((await fetch(body.url, { headers: { 'if-none-match': etag } })).status).toBe(304);
    const head = await fetch(body.url, { method: 'HEAD' });
    expect(head.headers.get('content-length')).toBe(String(bytes.length));

    const key = new URL(body.url).pathname;
    const dir = key.slice(0, key.lastIndexOf('/'));
    for (const path of [dir, `${dir}/`, '/system/', '/system/media_attachments', '/system/../hearth.sqlite3', '/system/%2e%2e/hearth.sqlite3', '/system/media_attachments/%2e%2e/%2e%2e/hearth.sqlite3', '/system/..%2fhearth.sqlite3', '/system/.hidden', `${key}x`]) {
      const res = await fetch(`${inst.url}${path}`);
      expect(res.status, path).toBe(404);
    }
    expect(existsSync(fileOnDisk(inst, body.url))).toBe(true);
  });

  it('accepts received blurhashes up to 5×5 components', async () => {
    const own = (await upload(alice.client, await picture(32, 32, 'png'), { type: 'image/png' })).body.blurhash;
    expect(isAcceptableBlurhash(own)).toBe(true);
    // 5×5 and 9×9 hashes made from the same pixels.
    const { encode } = await import('blurhash');
    const pixels = new Uint8ClampedArray(16 * 16 * 4).map((_, i) => (i * 37) % 256);
    expect(isAcceptableBlurhash(encode(pixels, 16, 16, 5, 5))).toBe(true);
    expect(isAcceptableBlurhash(encode(pixels, 16, 16, 6, 5))).toBe(false);
    expect(isAcceptableBlurhash(encode(pixels, 16, 16, 9, 9))).toBe(false);
    expect(isAcceptableBlurhash('not a blurhash')).toBe(false);
    expect(isAcceptableBlurhash(own.slice(0, -2))).toBe(false);
    expect(isAcceptableBlurhash(42)).toBe(false);
  });

  it('needs a token with write:media', async () => {
    const png = await picture(16, 16, 'png');
    const anon = await upload(inst.anon, png, { type: 'image/png' });
    expect(anon.status).toBe(401);
    const readOnly = alice.client.withToken(inst.tokenFor(alice, 'read'));
    const res = await upload(readOnly, png, { type: 'image/png' });
    expect(res.status).toBe(403);
    const scoped = alice.client.withToken(inst.tokenFor(alice, 'write:media'));
    expect((await upload(scoped, png, { type: 'image/png' })).status).toBe(200);
  });
});
