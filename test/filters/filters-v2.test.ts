import { createRestAPIClient } from 'masto';
import { describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';
import { count, countFilterEvents, createFilter, post } from './helpers.js';

describe('filters v2', () => {
  const env = useInstance(['alice', 'bob']);

  it('POST /api/v2/filters creates a filter and its keywords in the same request; filter_action defaults to warn', async () => {
    const { users: { alice } } = env();
    const res = await alice.client.post('/api/v2/filters', {
      title: 'Spoilers',
      context: ['home', 'public'],
      keywords_attributes: [{ keyword: 'finale', whole_word: true }, { keyword: 'twist', whole_word: false }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.any(String),
      title: 'Spoilers',
      context: ['home', 'public'],
      expires_at: null,
      filter_action: 'warn',
      keywords: [
        { id: expect.any(String), keyword: 'finale', whole_word: true },
        { id: expect.any(String), keyword: 'twist', whole_word: false },
      ],
      statuses: [],
    });
    const fetched = await alice.client.get(`/api/v2/filters/${res.body.id}`);
    expect(fetched.body).toEqual(res.body);
    expect((await alice.client.get('/api/v2/filters')).body).toContainEqual(res.body);
  });

  it('form-encoded keywords_attributes[][…] entries are read as Rails reads them', async () => {
    const { users: { alice } } = env();
    const res = await alice.client.post('/api/v2/filters', undefined, {
      raw: {
        type: 'application/x-www-form-urlencoded',
        body:
          'title=test&context[]=public&keywords_attributes[][keyword]=foo&keywords_attributes[][whole_word]=false' +
          '&keywords_attributes[][keyword]=bar&keywords_attributes[][whole_word]=true',
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.keywords.map((k: { keyword: string; whole_word: boolean }) => [k.keyword, k.whole_word])).toEqual([
      ['foo', false],
      ['bar', true],
    ]);
    // Indexed entries (keywords_attributes[0][keyword]) work too.
    const indexed = await alice.client.post('/api/v2/filters', undefined, {
      form: { title: 'indexed', 'context[]': ['thread'], 'keywords_attributes[0][keyword]': 'one', 'keywords_attributes[1][keyword]': 'two' },
    });
    expect(indexed.body.keywords.map((k: { keyword: string }) => k.keyword)).toEqual(['one', 'two']);
  });

  it('PUT edits, deletes and adds keywords in one request, with one filters-changed event', async () => {
    const { inst, users: { alice } } = env();
    const filter = await createFilter(alice.client, {
      title: 'Many',
      keywords_attributes: [{ keyword: 'a' }, { keyword: 'b' }, { keyword: 'c' }],
    });
    const [a, b, c] = filter.keywords as { id: string }[];
    const events = countFilterEvents(inst, alice.accountId);
    const res = await alice.client.put(`/api/v2/filters/${filter.id}`, {
      title: 'Many edited',
      keywords_attributes: [
        { id: a?.id, _destroy: true },
        { id: b?.id, keyword: 'bee', whole_word: false },
        { id: c?.id, _destroy: '0' },
        { keyword: 'dee' },
        { keyword: 'ignored', _destroy: true },
      ],
    });
    events.stop();
    expect(res.status, res.text).toBe(200);
    expect(res.body.title).toBe('Many edited');
    expect(res.body.keywords).toEqual([
      { id: b?.id, keyword: 'bee', whole_word: false },
      { id: c?.id, keyword: 'c', whole_word: true },
      { id: expect.any(String), keyword: 'dee', whole_word: true },
    ]);
    expect(events.count).toBe(1);
  });

  it('the documented query-string edit removes one keyword and replaces another', async () => {
    const { users: { alice } } = env();
    const filter = await createFilter(alice.client, { title: 'docs', context: ['public'], keywords_attributes: [{ keyword: 'foo', whole_word: false }, { keyword: 'bar' }] });
    const [foo, bar] = filter.keywords as { id: string }[];
    const res = await alice.client.put(
      `/api/v2/filters/${filter.id}?keywords_attributes[][id]=${foo?.id}&keywords_attributes[][_destroy]=true&keywords_attributes[][id]=${bar?.id}&keywords_attributes[][keyword]=baz`,
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.keywords).toEqual([{ id: bar?.id, keyword: 'baz', whole_word: true }]);
  });

  it('a keyword id that is not the filter’s is 404 and nothing changes (on create, any id is)', async () => {
    const { inst, users: { alice } } = env();
    const mine = await createFilter(alice.client, { title: 'mine', keywords_attributes: [{ keyword: 'keep' }] });
    const other = await createFilter(alice.client, { title: 'other', keywords_attributes: [{ keyword: 'theirs' }] });
    const res = await alice.client.put(`/api/v2/filters/${mine.id}`, {
      title: 'changed',
      keywords_attributes: [{ keyword: 'new one' }, { id: other.keywords[0].id, keyword: 'hijack' }],
    });
    expect(res.status).toBe(404);
    const after = await alice.client.get(`/api/v2/filters/${mine.id}`);
    expect(after.body).toEqual(mine);
    expect((await alice.client.get(`/api/v2/filters/${other.id}`)).body).toEqual(other);

    const filters = count(inst, 'filters');
    const created = await alice.client.post('/api/v2/filters', { title: 'x', context: ['home'], keywords_attributes: [{ id: mine.keywords[0].id, keyword: 'x' }] });
    expect(created.status).toBe(404);
    expect(count(inst, 'filters')).toBe(filters);
  });

  it('an unknown context, an empty context, a missing title, a blank keyword, a bad action or expiry is 422 and writes nothing', async () => {
    const { inst, users: { alice } } = env();
    const filters = count(inst, 'filters');
    const keywords = count(inst, 'filter_keywords');
    const cases: [Record<string, unknown>, string][] = [
      [{ title: 'x', context: ['home', 'timeline'] }, 'Validation failed: Context None or invalid context supplied'],
      [{ title: 'x', context: [] }, "Validation failed: Context can't be blank, Context None or invalid context supplied"],
      [{ title: 'x' }, "Validation failed: Context can't be blank, Context None or invalid context supplied"],
      [{ context: ['home'] }, "Validation failed: Title can't be blank"],
      [{ title: 'x', context: ['home'], keywords_attributes: [{ keyword: 'ok' }, { keyword: ' ' }] }, "Validation failed: Keywords keyword can't be blank"],
      [{ title: 'x', context: ['home'], filter_action: 'delete' }, 'Validation failed: Filter action is not included in the list'],
      [{ title: 'x', context: ['home'], expires_in: -5 }, 'Validation failed: Expires in must be greater than 0'],
      [{ title: 'x', context: ['home'], expires_in: 0 }, 'Validation failed: Expires in must be greater than 0'],
      [{ title: 'x', context: ['home'], expires_in: 'soon' }, 'Validation failed: Expires in is not a number'],
    ];
    for (const [params, error] of cases) {
      const res = await alice.client.post('/api/v2/filters', params);
      expect(res.status, JSON.stringify(params)).toBe(422);
      expect(res.body.error).toBe(error);
    }
    expect(count(inst, 'filters')).toBe(filters);
    expect(count(inst, 'filter_keywords')).toBe(keywords);

    const filter = await createFilter(alice.client, { title: 'stable', keywords_attributes: [{ keyword: 'k' }] });
    const bad = await alice.client.put(`/api/v2/filters/${filter.id}`, { context: ['nowhere'], keywords_attributes: [{ keyword: 'added' }] });
    expect(bad.status).toBe(422);
    expect(bad.body.details).toEqual({ context: [{ error: 'ERR_INVALID', description: 'None or invalid context supplied' }] });
    expect((await alice.client.get(`/api/v2/filters/${filter.id}`)).body).toEqual(filter);
  });

  it('filter_action takes warn, hide and blur; expires_in sets expires_at', async () => {
    const { users: { alice } } = env();
    for (const action of ['warn', 'hide', 'blur']) {
      expect((await createFilter(alice.client, { title: action, filter_action: action })).filter_action).toBe(action);
    }
    const before = Date.now();
    const expiring = await createFilter(alice.client, { title: 'soon', expires_in: 3600 });
    const at = Date.parse(expiring.expires_at);
    expect(at).toBeGreaterThanOrEqual(before + 3600_000 - 1000);
    expect(at).toBeLessThanOrEqual(Date.now() + 3600_000 + 1000);
    const cleared = await alice.client.put(`/api/v2/filters/${expiring.id}`, { expires_in: null });
    expect(cleared.body.expires_at).toBeNull();
    const kept = await alice.client.put(`/api/v2/filters/${expiring.id}`, { title: 'still never' });
    expect(kept.body.expires_at).toBeNull();
  });

  it('GET and POST /api/v2/filters/:id/keywords; the spec’s POST /api/v2/filters/:filter_id/keywords/:id adds a keyword too', async () => {
    const { users: { alice } } = env();
    const filter = await createFilter(alice.client, { title: 'kw' });
    const added = await alice.client.post(`/api/v2/filters/${filter.id}/keywords`, { keyword: 'alpha', whole_word: false });
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ id: expect.any(String), keyword: 'alpha', whole_word: false });
    const odd = await alice.client.post(`/api/v2/filters/${filter.id}/keywords/1`, undefined, { form: { keyword: 'beta' } });
    expect(odd.status).toBe(200);
    expect(odd.body).toEqual({ id: expect.any(String), keyword: 'beta', whole_word: true });
    const list = await alice.client.get(`/api/v2/filters/${filter.id}/keywords`);
    expect(list.body).toEqual([added.body, odd.body]);
    const blank = await alice.client.post(`/api/v2/filters/${filter.id}/keywords`, {});
    expect(blank.status).toBe(422);
    expect(blank.body.error).toBe("Validation failed: Keyword can't be blank");
    expect((await alice.client.get(`/api/v2/filters/${filter.id}/keywords`)).body).toHaveLength(2);
  });

  it('/api/v1/filters/keywords/:id shows, changes and deletes a keyword (also under /api/v2/filters/keywords/:id)', async () => {
    const { users: { alice } } = env();
    const filter = await createFilter(alice.client, { title: 'kw2', keywords_attributes: [{ keyword: 'one' }, { keyword: 'two' }] });
    const [one, two] = filter.keywords as { id: string }[];
    expect((await alice.client.get(`/api/v1/filters/keywords/${one?.id}`)).body).toEqual({ id: one?.id, keyword: 'one', whole_word: true });
    const changed = await alice.client.put(`/api/v1/filters/keywords/${one?.id}`, { keyword: 'uno', whole_word: false });
    expect(changed.body).toEqual({ id: one?.id, keyword: 'uno', whole_word: false });
    expect((await alice.client.put(`/api/v1/filters/keywords/${one?.id}`, { keyword: '' })).status).toBe(422);
    expect((await alice.client.get(`/api/v2/filters/keywords/${one?.id}`)).body.keyword).toBe('uno');
    const deleted = await alice.client.delete(`/api/v1/filters/keywords/${two?.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({});
    expect((await alice.client.get(`/api/v1/filters/keywords/${two?.id}`)).status).toBe(404);
    expect((await alice.client.get(`/api/v2/filters/${filter.id}`)).body.keywords).toEqual([changed.body]);
  });

  it('a keyword for someone else’s filter is 404 and nothing is written', async () => {
    const { inst, users: { alice, bob } } = env();
    const filter = await createFilter(alice.client, { title: 'private', keywords_attributes: [{ keyword: 'secret' }] });
    const keywordId = filter.keywords[0].id as string;
    const keywords = count(inst, 'filter_keywords');
    expect((await bob.client.post(`/api/v2/filters/${filter.id}/keywords`, { keyword: 'intruder' })).status).toBe(404);
    expect((await bob.client.post(`/api/v2/filters/${filter.id}/keywords/1`, { keyword: 'intruder' })).status).toBe(404);
    expect((await bob.client.get(`/api/v2/filters/${filter.id}/keywords`)).status).toBe(404);
    expect((await bob.client.get(`/api/v1/filters/keywords/${keywordId}`)).status).toBe(404);
    expect((await bob.client.put(`/api/v1/filters/keywords/${keywordId}`, { keyword: 'changed' })).status).toBe(404);
    expect((await bob.client.delete(`/api/v1/filters/keywords/${keywordId}`)).status).toBe(404);
    expect((await bob.client.get(`/api/v2/filters/${filter.id}`)).status).toBe(404);
    expect((await bob.client.put(`/api/v2/filters/${filter.id}`, { title: 'mine now' })).status).toBe(404);
    expect((await bob.client.delete(`/api/v2/filters/${filter.id}`)).status).toBe(404);
    expect((await bob.client.get('/api/v2/filters')).body).toEqual([]);
    expect(count(inst, 'filter_keywords')).toBe(keywords);
    expect((await alice.client.get(`/api/v2/filters/${filter.id}`)).body).toEqual(filter);
  });

  it('filters target individual posts: POST and GET /api/v2/filters/:id/statuses, GET and DELETE /api/v1/filters/statuses/:id', async () => {
    const { inst, users: { alice, bob } } = env();
    const status = await post(bob.client, { status: 'a post to hide' });
    const hidden = await post(bob.client, { status: 'only for me', visibility: 'direct' });
    const filter = await createFilter(alice.client, { title: 'posts' });
    const added = await alice.client.post(`/api/v2/filters/${filter.id}/statuses`, { status_id: status.id });
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ id: expect.any(String), status_id: status.id });
    expect((await alice.client.get(`/api/v2/filters/${filter.id}/statuses`)).body).toEqual([added.body]);
    expect((await alice.client.get(`/api/v2/filters/${filter.id}`)).body.statuses).toEqual([added.body]);
    expect((await alice.client.get(`/api/v1/filters/statuses/${added.body.id}`)).body).toEqual(added.body);
    expect((await alice.client.get(`/api/v2/filters/statuses/${added.body.id}`)).body).toEqual(added.body);

    const rows = count(inst, 'filter_statuses');
    const dupe = await alice.client.post(`/api/v2/filters/${filter.id}/statuses`, { status_id: status.id });
    expect(dupe.status).toBe(422);
    expect(dupe.body.error).toBe('Validation failed: Status has already been taken');
    const unknown = await alice.client.post(`/api/v2/filters/${filter.id}/statuses`, { status_id: '123456789' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toBe('Validation failed: Status must exist');
    const invisible = await alice.client.post(`/api/v2/filters/${filter.id}/statuses`, { status_id: hidden.id });
    expect(invisible.status).toBe(422);
    expect(invisible.body.error).toBe('Validation failed: Status is invalid');
    expect((await bob.client.post(`/api/v2/filters/${filter.id}/statuses`, { status_id: status.id })).status).toBe(404);
    expect((await bob.client.get(`/api/v1/filters/statuses/${added.body.id}`)).status).toBe(404);
    expect((await bob.client.delete(`/api/v1/filters/statuses/${added.body.id}`)).status).toBe(404);
    expect(count(inst, 'filter_statuses')).toBe(rows);

    const removed = await alice.client.delete(`/api/v1/filters/statuses/${added.body.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({});
    expect((await alice.client.get(`/api/v2/filters/${filter.id}/statuses`)).body).toEqual([]);
  });

  it('DELETE /api/v2/filters/:id removes the filter with its keywords', async () => {
    const { users: { alice } } = env();
    const filter = await createFilter(alice.client, { title: 'gone', keywords_attributes: [{ keyword: 'bye' }] });
    const res = await alice.client.delete(`/api/v2/filters/${filter.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await alice.client.get(`/api/v2/filters/${filter.id}`)).status).toBe(404);
    expect((await alice.client.get(`/api/v1/filters/keywords/${filter.keywords[0].id}`)).status).toBe(404);
  });

  it('every change emits exactly one filters-changed event for its owner', async () => {
    const { inst, users: { alice } } = env();
    const events = countFilterEvents(inst, alice.accountId);
    const filter = await createFilter(alice.client, { title: 'ev', keywords_attributes: [{ keyword: '1' }, { keyword: '2' }, { keyword: '3' }] });
    expect(events.count).toBe(1);
    await alice.client.post(`/api/v2/filters/${filter.id}/keywords`, { keyword: '4' });
    expect(events.count).toBe(2);
    await alice.client.delete(`/api/v2/filters/${filter.id}`);
    expect(events.count).toBe(3);
    // Refused requests change nothing and announce nothing.
    await alice.client.post('/api/v2/filters', { title: 'bad', context: ['nowhere'] });
    expect(events.count).toBe(3);
    events.stop();
  });

  it('reading needs read:filters and changing needs write:filters', async () => {
    const { inst, users: { alice } } = env();
    const filter = await createFilter(alice.client, { title: 'scoped', keywords_attributes: [{ keyword: 's' }] });
    const readOnly = alice.client.withToken(inst.tokenFor(alice, 'read:filters'));
    const writeOnly = alice.client.withToken(inst.tokenFor(alice, 'write:filters'));
    const filters = count(inst, 'filters');
    expect((await readOnly.get('/api/v2/filters')).status).toBe(200);
    expect((await readOnly.get(`/api/v2/filters/${filter.id}/keywords`)).status).toBe(200);
    expect((await readOnly.get(`/api/v1/filters/keywords/${filter.keywords[0].id}`)).status).toBe(200);
    const denied = await readOnly.post('/api/v2/filters', { title: 'no', context: ['home'] });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe('This action is outside the authorized scopes');
    expect((await readOnly.put(`/api/v2/filters/${filter.id}`, { title: 'no' })).status).toBe(403);
    expect((await readOnly.delete(`/api/v2/filters/${filter.id}`)).status).toBe(403);
    expect((await readOnly.post(`/api/v2/filters/${filter.id}/keywords`, { keyword: 'no' })).status).toBe(403);
    expect((await readOnly.put(`/api/v1/filters/keywords/${filter.keywords[0].id}`, { keyword: 'no' })).status).toBe(403);
    expect(count(inst, 'filters')).toBe(filters);
    expect((await writeOnly.get('/api/v2/filters')).status).toBe(403);
    expect((await writeOnly.post(`/api/v2/filters/${filter.id}/keywords`, { keyword: 'yes' })).status).toBe(200);
    expect((await inst.anon.get('/api/v2/filters')).status).toBe(401);
    expect((await inst.anon.post('/api/v2/filters', { title: 'x', context: ['home'] })).status).toBe(401);
  });

  it('works with the masto client (masto.v2.filters)', async () => {
    const { inst, users: { alice } } = env();
    const masto = createRestAPIClient({ url: inst.url, accessToken: alice.token });
    const filter = await masto.v2.filters.create({
      title: 'From masto',
      context: ['home', 'notifications'],
      filterAction: 'hide',
      keywordsAttributes: [{ keyword: 'masto', wholeWord: true }, { keyword: 'client', wholeWord: false }],
    });
    expect(filter).toMatchObject({ title: 'From masto', filterAction: 'hide', context: ['home', 'notifications'] });
    expect(filter.keywords?.map((k) => [k.keyword, k.wholeWord])).toEqual([
      ['masto', true],
      ['client', false],
    ]);
    const updated = await masto.v2.filters.$select(filter.id).update({
      keywordsAttributes: [{ id: filter.keywords?.[0]?.id, _destroy: true }, { keyword: 'added' }],
    });
    expect(updated.keywords?.map((k) => k.keyword)).toEqual(['client', 'added']);
    const keyword = await masto.v2.filters.$select(filter.id).keywords.create({ keyword: 'more' });
    expect((await masto.v2.filters.keywords.$select(keyword.id).fetch()).keyword).toBe('more');
    await masto.v2.filters.keywords.$select(keyword.id).remove();
    expect((await masto.v2.filters.list()).map((f) => f.id)).toContain(filter.id);
    await masto.v2.filters.$select(filter.id).remove();
    await expect(masto.v2.filters.$select(filter.id).fetch()).rejects.toThrow(/Record not found/);
  });
});
