import { createRestAPIClient } from 'masto';
import { describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';
import { count, countFilterEvents, createFilter } from './helpers.js';

describe('filters v1', () => {
  const env = useInstance(['alice', 'bob']);

  it('POST /api/v1/filters makes a v2 filter titled after the phrase with that one keyword; irreversible is the hide action', async () => {
    const { users: { alice } } = env();
    const res = await alice.client.post('/api/v1/filters', { phrase: 'eurovision', context: ['home', 'public'], irreversible: true, whole_word: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: expect.any(String), phrase: 'eurovision', context: ['home', 'public'], whole_word: true, expires_at: null, irreversible: true });

    const v2 = (await alice.client.get('/api/v2/filters')).body as any[];
    const filter = v2.find((f) => f.keywords.some((k: { id: string }) => k.id === res.body.id));
    expect(filter).toMatchObject({ title: 'eurovision', filter_action: 'hide', context: ['home', 'public'], keywords: [{ id: res.body.id, keyword: 'eurovision', whole_word: true }] });
  });

  it('irreversible and whole_word are always present and default to false', async () => {
    const { users: { alice } } = env();
    const res = await alice.client.post('/api/v1/filters', undefined, { form: { phrase: 'plain', 'context[]': ['thread'] } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ phrase: 'plain', irreversible: false, whole_word: false, expires_at: null });
    expect((await alice.client.get(`/api/v1/filters/${res.body.id}`)).body).toEqual(res.body);
  });

  it('expires_in sets expires_at', async () => {
    const { users: { alice } } = env();
    const res = await alice.client.post('/api/v1/filters', { phrase: 'brief', context: ['home'], expires_in: 600 });
    expect(Date.parse(res.body.expires_at)).toBeGreaterThan(Date.now() + 590_000);
    expect((await alice.client.post('/api/v1/filters', { phrase: 'x', context: ['home'], expires_in: -1 })).status).toBe(422);
  });

  it('GET /api/v1/filters lists every keyword of every filter as a v1 filter', async () => {
    const { users: { alice, bob } } = env();
    const v2 = await createFilter(alice.client, { title: 'group', context: ['notifications'], keywords_attributes: [{ keyword: 'k1' }, { keyword: 'k2', whole_word: false }] });
    const res = await alice.client.get('/api/v1/filters');
    expect(res.status).toBe(200);
    const mine = (res.body as any[]).filter((f) => v2.keywords.some((k: { id: string }) => k.id === f.id));
    expect(mine).toEqual([
      { id: v2.keywords[0].id, phrase: 'k1', context: ['notifications'], whole_word: true, expires_at: null, irreversible: false },
      { id: v2.keywords[1].id, phrase: 'k2', context: ['notifications'], whole_word: false, expires_at: null, irreversible: false },
    ]);
    expect((await bob.client.get('/api/v1/filters')).body).toEqual([]);
  });

  it('PUT always changes phrase and whole_word; context, irreversible or expiry of a filter with several keywords are 422', async () => {
    const { users: { alice } } = env();
    const single = (await alice.client.post('/api/v1/filters', { phrase: 'old', context: ['home'] })).body;
    const changed = await alice.client.put(`/api/v1/filters/${single.id}`, { phrase: 'new', context: ['home', 'account'], irreversible: true, whole_word: true });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ ...single, phrase: 'new', context: ['home', 'account'], irreversible: true, whole_word: true });

    const group = await createFilter(alice.client, { title: 'shared', context: ['public'], keywords_attributes: [{ keyword: 'x1' }, { keyword: 'x2' }] });
    const id = group.keywords[0].id as string;
    const phrase = await alice.client.put(`/api/v1/filters/${id}`, { phrase: 'y1', whole_word: false, context: ['public'] });
    expect(phrase.status).toBe(200);
    expect(phrase.body).toMatchObject({ phrase: 'y1', whole_word: false, context: ['public'] });
    const refused = await alice.client.put(`/api/v1/filters/${id}`, { phrase: 'z1', context: ['home'] });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatch(/cannot be changed from this application because they apply to more than one filter keyword/);
    expect((await alice.client.put(`/api/v1/filters/${id}`, { irreversible: true })).status).toBe(422);
    expect((await alice.client.put(`/api/v1/filters/${id}`, { expires_in: 60 })).status).toBe(422);
    const after = (await alice.client.get(`/api/v2/filters/${group.id}`)).body;
    expect(after).toMatchObject({ title: 'shared', context: ['public'], filter_action: 'warn', expires_at: null });
    expect(after.keywords.map((k: { keyword: string }) => k.keyword)).toEqual(['y1', 'x2']);
  });

  it('a missing phrase or a bad context is 422 and writes nothing', async () => {
    const { inst, users: { alice } } = env();
    const filters = count(inst, 'filters');
    const keywords = count(inst, 'filter_keywords');
    const noPhrase = await alice.client.post('/api/v1/filters', { context: ['home'] });
    expect(noPhrase.status).toBe(422);
    expect(noPhrase.body.error).toBe("Validation failed: Phrase can't be blank");
    const unknown = await alice.client.post('/api/v1/filters', { phrase: 'p', context: ['home', 'everywhere'] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toBe('Validation failed: Context None or invalid context supplied');
    const empty = await alice.client.post('/api/v1/filters', { phrase: 'p' });
    expect(empty.status).toBe(422);
    expect(empty.body.error).toBe("Validation failed: Context can't be blank, Context None or invalid context supplied");
    expect(count(inst, 'filters')).toBe(filters);
    expect(count(inst, 'filter_keywords')).toBe(keywords);
  });

  it('DELETE /api/v1/filters/:id removes only the keyword', async () => {
    const { users: { alice } } = env();
    const group = await createFilter(alice.client, { title: 'two', keywords_attributes: [{ keyword: 'first' }, { keyword: 'second' }] });
    const res = await alice.client.delete(`/api/v1/filters/${group.keywords[0].id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await alice.client.get(`/api/v1/filters/${group.keywords[0].id}`)).status).toBe(404);
    expect((await alice.client.get(`/api/v2/filters/${group.id}`)).body.keywords.map((k: { keyword: string }) => k.keyword)).toEqual(['second']);
  });

  it('someone else’s v1 filter is 404 and stays as it was', async () => {
    const { inst, users: { alice, bob } } = env();
    const mine = (await alice.client.post('/api/v1/filters', { phrase: 'mine', context: ['home'] })).body;
    const events = countFilterEvents(inst, alice.accountId);
    expect((await bob.client.get(`/api/v1/filters/${mine.id}`)).status).toBe(404);
    expect((await bob.client.put(`/api/v1/filters/${mine.id}`, { phrase: 'theirs' })).status).toBe(404);
    expect((await bob.client.delete(`/api/v1/filters/${mine.id}`)).status).toBe(404);
    expect((await alice.client.get('/api/v1/filters/999999999')).status).toBe(404);
    events.stop();
    expect(events.count).toBe(0);
    expect((await alice.client.get(`/api/v1/filters/${mine.id}`)).body).toEqual(mine);
  });

  it('reading needs read:filters and changing needs write:filters', async () => {
    const { inst, users: { alice } } = env();
    const readOnly = alice.client.withToken(inst.tokenFor(alice, 'read:filters'));
    const writeOnly = alice.client.withToken(inst.tokenFor(alice, 'write:filters'));
    expect((await readOnly.get('/api/v1/filters')).status).toBe(200);
    expect((await readOnly.post('/api/v1/filters', { phrase: 'p', context: ['home'] })).status).toBe(403);
    expect((await writeOnly.get('/api/v1/filters')).status).toBe(403);
    expect((await writeOnly.post('/api/v1/filters', { phrase: 'p', context: ['home'] })).status).toBe(200);
    expect((await inst.anon.get('/api/v1/filters')).status).toBe(401);
  });

  it('works with the masto client (masto.v1.filters)', async () => {
    const { inst, users: { alice } } = env();
    const masto = createRestAPIClient({ url: inst.url, accessToken: alice.token });
    const filter = await masto.v1.filters.create({ phrase: 'via masto', context: ['home'], irreversible: true, wholeWord: false });
    expect(filter).toMatchObject({ phrase: 'via masto', irreversible: true, wholeWord: false });
    const updated = await masto.v1.filters.$select(filter.id).update({ phrase: 'via masto 2', context: ['home'] });
    expect(updated.phrase).toBe('via masto 2');
    expect((await masto.v1.filters.list()).map((f) => f.id)).toContain(filter.id);
    await masto.v1.filters.$select(filter.id).remove();
    await expect(masto.v1.filters.$select(filter.id).fetch()).rejects.toThrow(/Record not found/);
  });
});
