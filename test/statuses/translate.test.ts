import { describe, expect, it } from 'vitest';
import { postStatus as post, useInstance } from '../helpers/fixtures.js';

describe('POST /api/v1/statuses/:id/translate without a translation service', () => {
  const env = useInstance(['alice', 'bob']);

  it('says so: the instance offers no translation, and a status that may be seen is refused with 403', async () => {
    const { inst, users } = env();
    const instance = await inst.anon.get('/api/v2/instance');
    expect(instance.body.configuration.translation.enabled).toBe(false);
    expect((await inst.anon.get('/api/v1/instance/translation_languages')).body).toEqual({});
    const s = await post(users.alice.client, { status: 'Hola mundo', language: 'es' });
    const res = await users.bob.client.post(`/api/v1/statuses/${s.id}/translate`, { lang: 'en' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'This action is not allowed' });
  });

  it('answers 404 for a status the viewer may not see, or none', async () => {
    const { users } = env();
    const hidden = await post(users.alice.client, { status: 'Only for @alice', visibility: 'direct' });
    for (const id of [hidden.id, '123456', 'abc']) {
      const res = await users.bob.client.post(`/api/v1/statuses/${id}/translate`);
      expect(res.status, id).toBe(404);
      expect(res.body).toEqual({ error: 'Record not found' });
    }
  });

  it('takes any token with read:statuses, app tokens included', async () => {
    const { inst, users } = env();
    const s = await post(users.alice.client, { status: 'Bonjour' });
    expect((await inst.anon.post(`/api/v1/statuses/${s.id}/translate`)).status).toBe(401);
    expect((await inst.anon.post(`/api/v1/statuses/${s.id}/translate`, undefined, { token: inst.tokenFor(users.bob, 'write') })).status).toBe(403);
    const app = await inst.anon.post('/api/v1/apps', { client_name: 'translator', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read' });
    const token = await inst.anon.post('/oauth/token', undefined, {
      form: { grant_type: 'client_credentials', client_id: app.body.client_id, client_secret: app.body.client_secret, scope: 'read' },
    });
    const res = await inst.anon.post(`/api/v1/statuses/${s.id}/translate`, undefined, { token: token.body.access_token });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('This action is not allowed');
  });
});
