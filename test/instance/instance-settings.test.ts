import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { createUserWithRole } from '../helpers/roles.js';

describe("the owner's instance settings: /api/hearth/instance, its rules, /api/hearth/custom_emojis", () => {
  let inst: TestInstance;
  let owner: TestUser;
  let admin: TestUser;

  beforeAll(async () => {
    inst = await startInstance({ registrations: 'closed' });
    owner = await createUserWithRole(inst, 'kim', 'owner');
    admin = await createUserWithRole(inst, 'ada', 'admin');
  });
  afterAll(async () => {
    await inst.close();
  });

  it('changes the name, descriptions and registrations, seen at once in the instance entity and kept in the config file', async () => {
    const res = await owner.client.patch('/api/hearth/instance', { title: 'Kim’s place', short_description: 'A quiet home', registrations: 'approval' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ title: 'Kim’s place', short_description: 'A quiet home', registrations: 'approval' });
    const v2 = (await inst.anon.get('/api/v2/instance')).body;
    expect(v2.title).toBe('Kim’s place');
    expect(v2.description).toBe('A quiet home');
    expect(v2.registrations).toMatchObject({ enabled: true, approval_required: true });
    expect(JSON.parse(readFileSync(inst.deps.config.configFile, 'utf8'))).toMatchObject({ registrations: 'approval' });
    expect((await owner.client.get('/api/hearth/instance')).body).toMatchObject({ title: 'Kim’s place', registrations: 'approval' });
    // Nothing is stored when a part is wrong.
    const bad = await owner.client.patch('/api/hearth/instance', { title: 'Other', registrations: 'sometimes' });
    expect(bad.status).toBe(422);
    expect((await inst.anon.get('/api/v2/instance')).body.title).toBe('Kim’s place');
    expect((await owner.client.patch('/api/hearth/instance', { title: '  ' })).status).toBe(422);
  });

  it('adds, edits and removes rules', async () => {
    const added = await owner.client.post('/api/hearth/instance/rules', { text: 'Be kind', hint: 'Always' });
    expect(added.status, added.text).toBe(200);
    expect((await inst.anon.get('/api/v1/instance/rules')).body).toEqual([{ id: added.body.id, text: 'Be kind', hint: 'Always', translations: {} }]);
    expect((await owner.client.put(`/api/hearth/instance/rules/${added.body.id}`, { text: 'Be very kind' })).body.text).toBe('Be very kind');
    expect((await inst.anon.get('/api/v2/instance')).body.rules.map((r: { text: string }) => r.text)).toEqual(['Be very kind']);
    expect((await owner.client.delete(`/api/hearth/instance/rules/${added.body.id}`)).status).toBe(200);
    expect((await inst.anon.get('/api/v1/instance/rules')).body).toEqual([]);
    expect((await owner.client.delete(`/api/hearth/instance/rules/${added.body.id}`)).status).toBe(404);
  });

  it('uploads and deletes a custom emoji', async () => {
    const png = await sharp({ create: { width: 32, height: 32, channels: 4, background: { r: 200, g: 50, b: 50, alpha: 1 } } }).png().toBuffer();
    const form = new FormData();
    form.append('shortcode', 'blobcat');
    form.append('image', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'blobcat.png');
    const up = await owner.client.request('POST', '/api/hearth/custom_emojis', { multipart: form });
    expect(up.status, up.text).toBe(200);
    expect(up.body.shortcode).toBe('blobcat');
    expect((await inst.anon.get('/api/v1/custom_emojis')).body.map((e: { shortcode: string }) => e.shortcode)).toEqual(['blobcat']);
    expect((await fetch(up.body.url)).status).toBe(200);
    expect((await owner.client.get('/api/hearth/custom_emojis')).body).toMatchObject([{ shortcode: 'blobcat', disabled: false }]);
    const again = new FormData();
    again.append('shortcode', 'blobcat');
    again.append('image', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'blobcat.png');
    expect((await owner.client.request('POST', '/api/hearth/custom_emojis', { multipart: again })).status).toBe(422);
    expect((await owner.client.delete('/api/hearth/custom_emojis/blobcat')).status).toBe(200);
    expect((await inst.anon.get('/api/v1/custom_emojis')).body).toEqual([]);
  });

  it('is for the owner only, with admin scopes', async () => {
    expect((await inst.anon.get('/api/hearth/instance')).status).toBe(401);
    expect((await admin.client.get('/api/hearth/instance')).status).toBe(403);
    expect((await admin.client.patch('/api/hearth/instance', { title: 'Mine' })).status).toBe(403);
    expect((await admin.client.post('/api/hearth/instance/rules', { text: 'x' })).status).toBe(403);
    expect((await admin.client.get('/api/hearth/custom_emojis')).status).toBe(403);
    const plainToken = owner.client.withToken(inst.tokenFor(owner, 'read write'));
    expect((await plainToken.patch('/api/hearth/instance', { title: 'Mine' })).status).toBe(403);
    expect((await inst.anon.get('/api/v2/instance')).body.title).toBe('Kim’s place');
  });
});
