import { createRestAPIClient } from 'masto';
import { describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';

describe('markers', () => {
  const env = useInstance(['alice', 'bob']);

  it('answers {} before anything is saved, and {} without timeline[]', async () => {
    const { users: { alice } } = env();
    expect((await alice.client.get('/api/v1/markers?timeline[]=home&timeline[]=notifications')).body).toEqual({});
    expect((await alice.client.get('/api/v1/markers')).body).toEqual({});
  });

  it('saves positions (form or JSON), starting at version 0 and counting each change', async () => {
    const { users: { alice, bob } } = env();
    const first = await alice.client.post('/api/v1/markers', undefined, { form: { 'home[last_read_id]': '1000' } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ home: { last_read_id: '1000', version: 0, updated_at: expect.stringMatching(/Z$/) } });

    const second = await alice.client.post('/api/v1/markers', { home: { last_read_id: '2000' }, notifications: { last_read_id: '300' } });
    expect(second.body.home).toMatchObject({ last_read_id: '2000', version: 1 });
    expect(second.body.notifications).toMatchObject({ last_read_id: '300', version: 0 });

    // The same position again is no change.
    const same = await alice.client.post('/api/v1/markers', { home: { last_read_id: '2000' } });
    expect(same.body.home.version).toBe(1);

    const both = await alice.client.get('/api/v1/markers?timeline[]=home&timeline[]=notifications');
    expect(both.body).toEqual({ home: second.body.home, notifications: second.body.notifications });
    const one = await alice.client.get('/api/v1/markers?timeline[]=notifications&timeline[]=nonsense');
    expect(Object.keys(one.body)).toEqual(['notifications']);
    // Bob has none of Alice's.
    expect((await bob.client.get('/api/v1/markers?timeline[]=home')).body).toEqual({});
  });

  it('drives markers with masto', async () => {
    const { inst, users: { bob } } = env();
    const masto = createRestAPIClient({ url: inst.url, accessToken: bob.token });
    const saved = await masto.v1.markers.create({ home: { lastReadId: '42' } });
    expect(saved.home.lastReadId).toBe('42');
    expect(saved.home.version).toBe(0);
    const read = await masto.v1.markers.fetch({ timeline: ['home', 'notifications'] });
    expect(read.home.lastReadId).toBe('42');
    expect(read.notifications).toBeUndefined();
  });

  it('refuses a blank or invalid position and writes nothing', async () => {
    const { users: { alice } } = env();
    const blank = await alice.client.post('/api/v1/markers', { home: { last_read_id: '' }, notifications: { last_read_id: '999' } });
    expect(blank.status).toBe(422);
    expect(blank.body.error).toMatch(/Last read/);
    const invalid = await alice.client.post('/api/v1/markers', { notifications: { last_read_id: 'abc' } });
    expect(invalid.status).toBe(422);
    const after = await alice.client.get('/api/v1/markers?timeline[]=notifications');
    expect(after.body.notifications.last_read_id).toBe('300');
    // Nothing to save answers an empty map.
    expect((await alice.client.post('/api/v1/markers', {})).body).toEqual({});
  });

  it('checks tokens and scopes: read:statuses to read, write:statuses to save', async () => {
    const { inst, users: { alice } } = env();
    expect((await inst.anon.get('/api/v1/markers')).status).toBe(401);
    expect((await inst.anon.post('/api/v1/markers', { home: { last_read_id: '1' } })).status).toBe(401);
    const readToken = inst.tokenFor(alice, 'read:statuses');
    const writeToken = inst.tokenFor(alice, 'write:statuses');
    expect((await alice.client.get('/api/v1/markers', { token: writeToken })).status).toBe(403);
    expect((await alice.client.post('/api/v1/markers', { home: { last_read_id: '1' } }, { token: readToken })).status).toBe(403);
    expect((await alice.client.get('/api/v1/markers', { token: readToken })).status).toBe(200);
    expect((await alice.client.post('/api/v1/markers', { home: { last_read_id: '5000' } }, { token: writeToken })).status).toBe(200);
  });
});
