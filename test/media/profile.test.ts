import { existsSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { animatedGif, count, download, exifTags, fileOnDisk, form, jpegWithExif, picture, storedFiles } from './helpers.js';

describe('avatars and headers', () => {
  let inst: TestInstance;
  let alice: TestUser;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
  });
  afterAll(() => inst.close());

  function patch(files: Record<string, { data: Buffer; type?: string }>, fields: Record<string, string> = {}, client = alice.client) {
    return client.patch('/api/v1/accounts/update_credentials', undefined, { multipart: form(files, fields) });
  }

  it('an avatar is cropped to 400×400 and a header to 1500×500, metadata stripped', async () => {
    const res = await patch({ avatar: { data: await jpegWithExif(900, 600), type: 'image/jpeg' }, header: { data: await picture(2400, 1000, 'jpeg'), type: 'image/jpeg' } }, { display_name: 'Alice' });
    expect(res.status, res.text).toBe(200);
    const a = res.body;
    expect(a.display_name).toBe('Alice');
    expect(a.avatar).toMatch(new RegExp(`^${inst.url}/system/accounts/avatars/(\\d{3}/)+original/[0-9a-f]{16}\\.jpeg$`));
    // Not animated: the static URL is the same picture.
    expect(a.avatar_static).toBe(a.avatar);
    expect(a.header).toMatch(/\/accounts\/headers\/.*\.jpeg$/);
    const avatar = await sharp(await download(a.avatar)).metadata();
    expect(avatar).toMatchObject({ width: 400, height: 400, format: 'jpeg' });
    expect(exifTags(avatar.exif)).toEqual([]);
    const header = await sharp(await download(a.header)).metadata();
    expect(header).toMatchObject({ width: 1500, height: 500, format: 'jpeg' });
    // Other views of the account show the same pictures.
    const seen = await inst.anon.get(`/api/v1/accounts/${alice.accountId}`);
    expect(seen.body.avatar).toBe(a.avatar);
  });

  it('a small avatar is not enlarged', async () => {
    const res = await patch({ avatar: { data: await picture(120, 80, 'png'), type: 'image/png' } });
    expect(res.status, res.text).toBe(200);
    const meta = await sharp(await download(res.body.avatar)).metadata();
    expect(meta).toMatchObject({ width: 80, height: 80 });
  });

  it('an animated avatar stays animated, avatar_static is its first frame; the replaced files go', async () => {
    const before = await alice.client.get('/api/v1/accounts/verify_credentials');
    const oldFile = fileOnDisk(inst, before.body.avatar);
    expect(existsSync(oldFile)).toBe(true);
    const res = await patch({ avatar: { data: await animatedGif(500, 500), type: 'image/gif' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.avatar).toMatch(/\/original\/[0-9a-f]{16}\.gif$/);
    expect(res.body.avatar_static).toMatch(/\/static\/[0-9a-f]{16}\.png$/);
    const animated = await sharp(await download(res.body.avatar), { animated: true }).metadata();
    expect(animated).toMatchObject({ format: 'gif', pages: 3, width: 400, pageHeight: 400 });
    const still = await sharp(await download(res.body.avatar_static)).metadata();
    expect(still).toMatchObject({ format: 'png', width: 400, height: 400 });
    expect(existsSync(oldFile)).toBe(false);
  });

  it('a bad picture is refused with nothing changed or left behind', async () => {
    const before = await alice.client.get('/api/v1/accounts/verify_credentials');
    const files = storedFiles(inst);
    const res = await patch({ avatar: { data: Buffer.from('not an image'), type: 'image/png' } }, { display_name: 'Changed' });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('Validation failed: Avatar content type is invalid, Avatar is invalid');
    // A good header with a field that fails validation: the header's new files are removed.
    const invalid = await patch({ header: { data: await picture(600, 200, 'png'), type: 'image/png' } }, { display_name: 'x'.repeat(31) });
    expect(invalid.status).toBe(422);
    expect(storedFiles(inst)).toEqual(files);
    const after = await alice.client.get('/api/v1/accounts/verify_credentials');
    expect(after.body).toMatchObject({ display_name: before.body.display_name, avatar: before.body.avatar, header: before.body.header });
  });

  it('DELETE /api/v1/profile/avatar and /header bring back the defaults and remove the files', async () => {
    const current = await alice.client.get('/api/v1/accounts/verify_credentials');
    const files = [current.body.avatar, current.body.avatar_static, current.body.header].map((u: string) => fileOnDisk(inst, u));
    const avatar = await alice.client.delete('/api/v1/profile/avatar');
    expect(avatar.status).toBe(200);
    expect(avatar.body.avatar).toBe(`${inst.url}/avatars/original/missing.png`);
    expect(avatar.body.avatar_static).toBe(`${inst.url}/avatars/original/missing.png`);
    expect(avatar.body.header).toBe(current.body.header);
    const header = await alice.client.delete('/api/v1/profile/header');
    expect(header.body.header).toBe(`${inst.url}/headers/original/missing.png`);
    for (const f of files) expect(existsSync(f)).toBe(false);
    // Deleting what is not there succeeds.
    expect((await alice.client.delete('/api/v1/profile/header')).status).toBe(200);
    expect(count(inst, 'accounts', 'id = @id AND avatar_file IS NULL AND header_file IS NULL', { id: alice.accountId })).toBe(1);
  });

  it('scopes: deleting needs write:accounts', async () => {
    expect((await inst.anon.delete('/api/v1/profile/avatar')).status).toBe(401);
    const reader = alice.client.withToken(inst.tokenFor(alice, 'read'));
    expect((await reader.delete('/api/v1/profile/avatar')).status).toBe(403);
    expect((await reader.delete('/api/v1/profile/header')).status).toBe(403);
    const uploadReader = await patch({ avatar: { data: await picture(50, 50, 'png'), type: 'image/png' } }, {}, reader);
    expect(uploadReader.status).toBe(403);
  });
});
