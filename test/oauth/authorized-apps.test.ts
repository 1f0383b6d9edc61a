import { describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';
import { registerApp, userToken } from './flow.js';

describe('authorized applications: GET and DELETE /api/hearth/authorized_apps', () => {
  const env = useInstance(['alice', 'bob']);

  it('lists the apps holding live tokens of the user, and revoking one ends all its tokens of that user only', async () => {
    const { inst, users } = env();
    const { alice, bob } = users;
    const reader = await registerApp(inst.anon, { name: 'Reader', scopes: 'read write' });
    const poster = await registerApp(inst.anon, { name: 'Poster', scopes: 'read write' });
    const first = await userToken(inst, reader, alice, 'read');
    const second = await userToken(inst, reader, alice, 'read write');
    const other = await userToken(inst, poster, alice, 'read write');
    const bobs = await userToken(inst, reader, bob, 'read');
    const asPoster = alice.client.withToken(other.access_token);

    const listed = await asPoster.get('/api/hearth/authorized_apps');
    expect(listed.status, listed.text).toBe(200);
    // Newest first; the rig's own token has no application and is not listed.
    expect(listed.body.map((a: { name: string }) => a.name)).toEqual(['Poster', 'Reader']);
    expect(listed.body[1]).toMatchObject({ id: reader.id, name: 'Reader', website: 'https://client.example', scopes: ['read', 'write'], tokens: 2, current: false, last_used_at: null });
    expect(listed.body[0]).toMatchObject({ id: poster.id, current: true, tokens: 1 });
    expect(Date.parse(listed.body[1].created_at)).toBeGreaterThan(0);

    const gone = await asPoster.delete(`/api/hearth/authorized_apps/${reader.id}`);
    expect(gone.status, gone.text).toBe(200);
    for (const token of [first.access_token, second.access_token]) {
      expect((await inst.anon.get('/api/v1/accounts/verify_credentials', { token })).status).toBe(401);
    }
    // Bob's token of the same app, and alice's other app, still work.
    expect((await inst.anon.get('/api/v1/accounts/verify_credentials', { token: bobs.access_token })).status).toBe(200);
    expect((await asPoster.get('/api/hearth/authorized_apps')).body.map((a: { name: string }) => a.name)).toEqual(['Poster']);
    // Nothing left to revoke: 404, as for an app that does not exist.
    expect((await asPoster.delete(`/api/hearth/authorized_apps/${reader.id}`)).status).toBe(404);
    expect((await asPoster.delete('/api/hearth/authorized_apps/123456')).status).toBe(404);
    expect((await asPoster.delete('/api/hearth/authorized_apps/not-an-id')).status).toBe(404);
  });

  it('needs a user token with read to list and write to revoke', async () => {
    const { inst, users } = env();
    expect((await inst.anon.get('/api/hearth/authorized_apps')).status).toBe(401);
    const readOnly = users.alice.client.withToken(inst.tokenFor(users.alice, 'read'));
    expect((await readOnly.get('/api/hearth/authorized_apps')).status).toBe(200);
    expect((await readOnly.delete('/api/hearth/authorized_apps/1')).status).toBe(403);
    const writeOnly = users.alice.client.withToken(inst.tokenFor(users.alice, 'write'));
    expect((await writeOnly.get('/api/hearth/authorized_apps')).status).toBe(403);
  });
});
