import { describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';
import { form, picture } from '../media/helpers.js';

// Mastodon 4.6 adds the avatar's and header's alternative texts and the profile-tab choices to
// every Account, not only to the profile API that edits them.
describe('Account avatar_description, header_description and profile tabs', () => {
  const env = useInstance(['alice', 'bob']);

  it('every rendering of the account carries what the profile API stored', async () => {
    const { users } = env();
    const { alice, bob } = users;
    const fd = form({ avatar: { data: await picture(64, 64, 'png'), type: 'image/png', name: 'a.png' } }, {
      avatar_description: 'A smiling face',
      header_description: 'A field of flowers',
      show_media: 'false',
      show_featured: 'false',
    });
    expect((await alice.client.patch('/api/v1/profile', undefined, { multipart: fd })).status).toBe(200);
    const expected = { avatar_description: 'A smiling face', header_description: 'A field of flowers', show_media: false, show_media_replies: true, show_featured: false };

    expect((await alice.client.get('/api/v1/accounts/verify_credentials')).body).toMatchObject(expected);
    expect((await bob.client.get(`/api/v1/accounts/${alice.accountId}`)).body).toMatchObject(expected);
    expect((await bob.client.get('/api/v1/accounts/lookup?acct=alice')).body).toMatchObject(expected);
    const status = await alice.client.post('/api/v1/statuses', { status: 'hello @bob' });
    expect(status.status).toBe(200);
    expect(status.body.account).toMatchObject(expected);
    expect((await bob.client.get(`/api/v1/statuses/${status.body.id}`)).body.account).toMatchObject(expected);
    const notes = await bob.client.get('/api/v1/notifications?types[]=mention');
    expect(notes.body[0].account).toMatchObject(expected);
    const grouped = await bob.client.get('/api/v2/notifications?types[]=mention');
    const inGroup = grouped.body.accounts.find((a: { id: string }) => a.id === alice.accountId);
    expect(inGroup).toMatchObject(expected);

    // An account that never set them shows Mastodon's defaults.
    expect((await alice.client.get(`/api/v1/accounts/${bob.accountId}`)).body).toMatchObject({
      avatar_description: '',
      header_description: '',
      show_media: true,
      show_media_replies: true,
      show_featured: true,
    });
  });
});
