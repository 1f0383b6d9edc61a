import { createRestAPIClient } from 'masto';
import { describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';
import { form, picture } from '../media/helpers.js';

describe('the profile API (GET and PATCH /api/v1/profile)', () => {
  const env = useInstance(['alice', 'bob', 'carol']);

  it('shows the profile as its owner edits it, with Mastodon defaults', async () => {
    const { users } = env();
    const res = await users.alice.client.get('/api/v1/profile');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: users.alice.accountId,
      display_name: '',
      note: '',
      fields: [],
      avatar: null,
      avatar_static: null,
      avatar_description: '',
      header: null,
      header_static: null,
      header_description: '',
      locked: false,
      bot: false,
      hide_collections: false,
      discoverable: null,
      indexable: false,
      show_media: true,
      show_media_replies: true,
      show_featured: true,
      attribution_domains: [],
      featured_tags: [],
    });
  });

  it('changes the profile, the texts coming back as typed', async () => {
    const { users } = env();
    const res = await users.alice.client.patch('/api/v1/profile', {
      display_name: 'Alice A.',
      note: 'Gardener. #plants @bob',
      locked: true,
      bot: true,
      discoverable: true,
      indexable: true,
      hide_collections: true,
      show_media: false,
      show_media_replies: 'false',
      show_featured: '0',
      attribution_domains: ['blog.example'],
      fields_attributes: [{ name: 'Site', value: 'https://alice.example' }],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      display_name: 'Alice A.',
      note: 'Gardener. #plants @bob',
      fields: [{ name: 'Site', value: 'https://alice.example', verified_at: null }],
      locked: true,
      bot: true,
      discoverable: true,
      indexable: true,
      hide_collections: true,
      show_media: false,
      show_media_replies: false,
      show_featured: false,
      attribution_domains: ['blog.example'],
    });
    // The account others see has the rendered note.
    const account = await users.alice.client.get('/api/v1/accounts/verify_credentials');
    expect(account.body.note).toContain('href=');
    expect(account.body.display_name).toBe('Alice A.');
    // Only what is given changes.
    const again = await users.alice.client.patch('/api/v1/profile', { show_media: true });
    expect(again.body).toMatchObject({ show_media: true, show_featured: false, display_name: 'Alice A.' });
    expect((await users.alice.client.get('/api/v1/profile')).body.show_media).toBe(true);
  });

  it('takes an avatar and a header with their descriptions (multipart), and deleting them empties them', async () => {
    const { users } = env();
    const fd = form({ avatar: { data: await picture(64, 64, 'png'), type: 'image/png', name: 'a.png' }, header: { data: await picture(300, 100, 'png'), type: 'image/png', name: 'h.png' } }, {
      avatar_description: 'A smiling face',
      header_description: 'A field of flowers',
      'fields_attributes[0][name]': 'Pronouns',
      'fields_attributes[0][value]': 'she/her',
    });
    const res = await users.bob.client.patch('/api/v1/profile', undefined, { multipart: fd });
    expect(res.status, res.text).toBe(200);
    expect(res.body.avatar).toMatch(/\/system\/accounts\/avatars\//);
    expect(res.body.header).toMatch(/\/system\/accounts\/headers\//);
    expect(res.body).toMatchObject({ avatar_description: 'A smiling face', header_description: 'A field of flowers', fields: [{ name: 'Pronouns', value: 'she/her' }] });

    const deleted = await users.bob.client.delete('/api/v1/profile/avatar');
    expect(deleted.status).toBe(200);
    expect(deleted.body.avatar).toMatch(/missing\.png$/);
    expect((await users.bob.client.delete('/api/v1/profile/header')).status).toBe(200);
    const after = (await users.bob.client.get('/api/v1/profile')).body;
    expect(after).toMatchObject({ avatar: null, avatar_static: null, header: null, header_static: null });
  });

  it('refuses bad input with Mastodon validation errors and writes nothing', async () => {
    const { users } = env();
    const long = await users.carol.client.patch('/api/v1/profile', { avatar_description: 'x'.repeat(1501), show_featured: false });
    expect(long.status).toBe(422);
    expect(long.body.error).toBe('Validation failed: Avatar description is too long (maximum is 1500 characters)');
    expect(long.body.details.avatar_description[0].error).toBe('ERR_TOO_LONG');
    const name = await users.carol.client.patch('/api/v1/profile', { display_name: 'n'.repeat(31), show_featured: false });
    expect(name.status).toBe(422);
    expect(name.body.details.display_name).toBeDefined();
    expect((await users.carol.client.get('/api/v1/profile')).body.show_featured).toBe(true);
    const notAnImage = await users.carol.client.patch('/api/v1/profile', undefined, { multipart: form({ avatar: { data: Buffer.from('not an image'), type: 'image/png' } }) });
    expect(notAnImage.status).toBe(422);
  });

  it('needs a user token with the right scope', async () => {
    const { inst, users } = env();
    expect((await inst.anon.get('/api/v1/profile')).status).toBe(401);
    expect((await inst.anon.get('/api/v1/profile', { token: inst.tokenFor(users.carol, 'profile') })).status).toBe(200);
    expect((await inst.anon.get('/api/v1/profile', { token: inst.tokenFor(users.carol, 'read:accounts') })).status).toBe(200);
    expect((await inst.anon.get('/api/v1/profile', { token: inst.tokenFor(users.carol, 'read:statuses') })).status).toBe(403);
    expect((await inst.anon.patch('/api/v1/profile', { note: 'x' }, { token: inst.tokenFor(users.carol, 'read') })).status).toBe(403);
    expect((await inst.anon.patch('/api/v1/profile', { note: 'x' }, { token: inst.tokenFor(users.carol, 'write:accounts') })).status).toBe(200);
  });

  it('is driven by the masto client library', async () => {
    const { inst, users } = env();
    const masto = createRestAPIClient({ url: inst.url, accessToken: users.carol.token });
    const profile = await masto.v1.profile.fetch();
    expect(profile.id).toBe(users.carol.accountId);
    const updated = await masto.v1.profile.update({
      displayName: 'Carol',
      note: 'Hello there',
      avatar: new Blob([new Uint8Array(await picture(48, 48, 'png'))], { type: 'image/png' }),
      avatarDescription: 'Carol waving',
      showMedia: false,
      fieldsAttributes: [{ name: 'Home', value: 'https://carol.example' }],
    });
    expect(updated).toMatchObject({ displayName: 'Carol', note: 'Hello there', avatarDescription: 'Carol waving', showMedia: false });
    expect(updated.avatar).not.toBeNull();
    expect(updated.fields.map((f) => f.value)).toEqual(['https://carol.example']);
    const account = await masto.v1.profile.avatar.remove();
    expect(account.avatar).toMatch(/missing\.png$/);
    expect((await masto.v1.profile.fetch()).avatar).toBeNull();
  });
});
