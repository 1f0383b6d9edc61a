import { createRestAPIClient, type mastodon } from 'masto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mediaTestHooks } from '../../api/core/media/storage.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { eventually, mp4, picture } from './helpers.js';

describe('media with the masto client library', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let masto: mastodon.rest.Client;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    masto = createRestAPIClient({ url: inst.url, accessToken: alice.token });
  });
  afterAll(() => inst.close());
  afterEach(() => {
    mediaTestHooks.beforeBackgroundJob = null;
  });

  it('uploads a picture (v2), describes it, posts it, and changes the avatar', async () => {
    const png = await picture(320, 200, 'png');
    const media = await masto.v2.media.create({ file: new Blob([new Uint8Array(png)], { type: 'image/png' }), description: 'a gradient', focus: '0.2,0.4' });
    expect(media.type).toBe('image');
    expect(media.url).toMatch(/\.png$/);
    expect(media.meta?.focus).toEqual({ x: 0.2, y: 0.4 });
    const updated = await masto.v1.media.$select(media.id).update({ description: 'a better description' });
    expect(updated.description).toBe('a better description');
    const status = await masto.v1.statuses.create({ status: 'with a picture', mediaIds: [media.id] });
    expect(status.mediaAttachments.map((m) => m.id)).toEqual([media.id]);
    expect(status.mediaAttachments[0]?.blurhash).toBe(media.blurhash);

    const me = await masto.v1.accounts.updateCredentials({ avatar: new Blob([new Uint8Array(png)], { type: 'image/png' }) });
    expect(me.avatar).toMatch(/\/system\/accounts\/avatars\//);
    const back = await masto.v1.profile.avatar.remove();
    expect(back.avatar).toMatch(/\/avatars\/original\/missing\.png$/);
  });

  it('waits for a video processed in the background (masto polls while GET answers 206)', async () => {
    let held = 0;
    mediaTestHooks.beforeBackgroundJob = () => {
      held++;
      return new Promise<void>((resolve) => setTimeout(resolve, 400));
    };
    const media = await masto.v2.media.create({ file: new Blob([new Uint8Array(mp4())], { type: 'video/mp4' }) });
    expect(held).toBe(1);
    const done = await eventually(async () => {
      const m = await masto.v1.media.$select(media.id).fetch();
      return m.url ? m : undefined;
    });
    expect(done.type).toBe('video');
    expect(done.meta?.original?.width).toBe(320);
    // masto 8 has no typed call for DELETE /api/v1/media/:id (Mastodon 4.4): the plain client does it.
    expect((await alice.client.delete(`/api/v1/media/${media.id}`)).status).toBe(200);
  });
});
