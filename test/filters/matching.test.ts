import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { filterResultsFor, filterResultsForIds, hiddenStatusIds, loadActiveFilters, matchFilters } from '../../api/core/filters/active.js';
import { loadStatusViews } from '../../api/core/statuses/views.js';
import { newId } from '../../api/util/ids.js';
import { resetClock, setClockTo } from '../../api/util/clock.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { createFilter, post } from './helpers.js';

/**
 * Applying filters (what the `filtered` attribute and server-side dropping are built on): each
 * test gives the viewer fresh filters over real statuses posted through the API.
 */
describe('filter matching', () => {
  let inst: TestInstance;
  let bob: TestUser;
  let n = 0;
  let viewer: TestUser;

  beforeAll(async () => {
    inst = await startInstance();
    bob = await inst.createUser('bob');
  });
  afterEach(() => resetClock());
  afterAll(async () => {
    await inst.close();
  });

  // A fresh viewer per test, so each starts without filters.
  async function freshViewer(): Promise<TestUser> {
    viewer = await inst.createUser(`viewer${++n}`);
    return viewer;
  }

  function matchesOf(statusId: string, context: Parameters<typeof filterResultsForIds>[2] = null) {
    return filterResultsForIds(inst.deps, viewer.accountId, context, [statusId]).get(statusId) ?? [];
  }

  it('whole_word keywords match whole words only; others match anywhere; both ignore case', async () => {
    await freshViewer();
    const whole = await createFilter(viewer.client, { title: 'whole', keywords_attributes: [{ keyword: 'cat', whole_word: true }] });
    const part = await createFilter(viewer.client, { title: 'part', keywords_attributes: [{ keyword: 'dog', whole_word: false }] });
    const catWord = await post(bob.client, { status: 'My CAT sleeps' });
    const catInside = await post(bob.client, { status: 'concatenate strings' });
    const dogInside = await post(bob.client, { status: 'HOTDOGS for lunch' });
    const catAccent = await post(bob.client, { status: 'catégorie' });

    expect(matchesOf(catWord.id)).toEqual([{ filter: { id: whole.id, title: 'whole', context: ['home'], expires_at: null, filter_action: 'warn' }, keyword_matches: ['CAT'], status_matches: null }]);
    expect(matchesOf(catInside.id)).toEqual([]);
    // Word characters are Unicode letters, as Ruby's [[:word:]]: "catégorie" is one word.
    expect(matchesOf(catAccent.id)).toEqual([]);
    expect(matchesOf(dogInside.id).map((r) => [r.filter.id, r.keyword_matches])).toEqual([[part.id, ['DOG']]]);
  });

  it('a whole-word keyword needs a boundary only at an end that is a word character', async () => {
    await freshViewer();
    await createFilter(viewer.client, { title: 'symbols', keywords_attributes: [{ keyword: 'c++', whole_word: true }, { keyword: '@home', whole_word: true }] });
    const glued = await post(bob.client, { status: 'I write c++code daily' });
    const inside = await post(bob.client, { status: 'abc++ is not it' });
    const mention = await post(bob.client, { status: 'back at@home now' });
    const mentionInside = await post(bob.client, { status: 'at @homework' });
    expect(matchesOf(glued.id)[0]?.keyword_matches).toEqual(['c++']);
    expect(matchesOf(inside.id)).toEqual([]);
    expect(matchesOf(mention.id)[0]?.keyword_matches).toEqual(['@home']);
    expect(matchesOf(mentionInside.id)).toEqual([]);
    expect(matchFilters(loadActiveFilters(inst.deps, viewer.accountId), null, 'C++ rocks', 'none')[0]?.keyword_matches).toEqual(['C++']);
  });

  it('keywords match the content warning, poll options, media descriptions and remote HTML as plain text', async () => {
    await freshViewer();
    await createFilter(viewer.client, { title: 'anywhere', context: ['public'], keywords_attributes: [{ keyword: 'needle' }] });
    const cw = await post(bob.client, { status: 'harmless', spoiler_text: 'needle inside' });
    const poll = await post(bob.client, { status: 'vote', poll: { options: ['hay', 'needle'], expires_in: 600 } });
    const media = await post(bob.client, { status: 'look' });
    inst.deps.db
      .query(
        `INSERT INTO media_attachments (id, account_id, status_id, type, description, created_at, updated_at)
         VALUES (@id, @account_id, @status_id, 'image', 'a needle in a picture', 0, 0)`,
      )
      .run({ id: newId(), account_id: bob.accountId, status_id: media.id });
    const plain = await post(bob.client, { status: 'nothing here' });
    expect(matchesOf(cw.id)[0]?.keyword_matches).toEqual(['needle']);
    expect(matchesOf(poll.id)[0]?.keyword_matches).toEqual(['needle']);
    expect(matchesOf(media.id)[0]?.keyword_matches).toEqual(['needle']);
    expect(matchesOf(plain.id)).toEqual([]);
    // The same answer from loaded StatusViews (what the status serializer has in hand).
    const views = loadStatusViews(inst.deps, [cw.id, poll.id, media.id, plain.id], viewer.accountId);
    const fromViews = filterResultsFor(inst.deps, viewer.accountId, null, [...views.values()]);
    expect([...fromViews.keys()].sort()).toEqual([cw.id, poll.id, media.id].sort());
  });

  it('a filter applies only in its contexts', async () => {
    await freshViewer();
    await createFilter(viewer.client, { title: 'threads only', context: ['thread', 'account'], keywords_attributes: [{ keyword: 'ctx' }] });
    const status = await post(bob.client, { status: 'ctx words' });
    expect(matchesOf(status.id, 'thread')).toHaveLength(1);
    expect(matchesOf(status.id, 'account')).toHaveLength(1);
    expect(matchesOf(status.id, 'home')).toEqual([]);
    expect(matchesOf(status.id, 'public')).toEqual([]);
    // Without a context (the REST `filtered` attribute), every matching filter is reported.
    expect(matchesOf(status.id, null)).toHaveLength(1);
  });

  it('an expired filter is not applied', async () => {
    await freshViewer();
    await createFilter(viewer.client, { title: 'brief', expires_in: 60, keywords_attributes: [{ keyword: 'fleeting' }] });
    const status = await post(bob.client, { status: 'fleeting thought' });
    expect(matchesOf(status.id)).toHaveLength(1);
    setClockTo(Date.now() + 61_000);
    expect(loadActiveFilters(inst.deps, viewer.accountId)).toEqual([]);
    expect(matchesOf(status.id)).toEqual([]);
    // Expired filters are kept (the user may extend them) and still listed.
    expect((await viewer.client.get('/api/v2/filters')).body).toHaveLength(1);
  });

  it('filters targeting a post match it and reblogs of it; reblogs carry the reblogged post’s matches', async () => {
    await freshViewer();
    const target = await post(bob.client, { status: 'targeted post' });
    const filter = await createFilter(viewer.client, { title: 'this post', keywords_attributes: [{ keyword: 'boosted words' }] });
    expect((await viewer.client.post(`/api/v2/filters/${filter.id}/statuses`, { status_id: target.id })).status).toBe(200);
    expect(matchesOf(target.id)).toEqual([{ filter: expect.objectContaining({ id: filter.id }), keyword_matches: null, status_matches: [target.id] }]);

    const carol = await inst.createUser(`carol${n}`);
    const original = await post(bob.client, { status: 'some boosted words here' });
    const reblog = await carol.client.post(`/api/v1/statuses/${original.id}/reblog`);
    expect(reblog.status).toBe(200);
    const results = filterResultsForIds(inst.deps, viewer.accountId, null, [reblog.body.id]);
    expect(results.get(reblog.body.id)?.[0]?.keyword_matches).toEqual(['boosted words']);
    expect(results.get(original.id)).toEqual(results.get(reblog.body.id));
    const boostOfTarget = await carol.client.post(`/api/v1/statuses/${target.id}/reblog`);
    expect(matchesOf(boostOfTarget.body.id)[0]?.status_matches).toEqual([target.id]);
  });

  it('the viewer’s own posts are never filtered for them', async () => {
    await freshViewer();
    await createFilter(viewer.client, { title: 'self', keywords_attributes: [{ keyword: 'myself' }] });
    const own = await post(viewer.client, { status: 'about myself' });
    expect(matchesOf(own.id)).toEqual([]);
    expect(filterResultsForIds(inst.deps, null, null, [own.id]).size).toBe(0);
  });

  it('hide filters (irreversible v1 filters) drop matching posts in their contexts', async () => {
    await freshViewer();
    expect((await viewer.client.post('/api/v1/filters', { phrase: 'drop me', context: ['home', 'notifications'], irreversible: true })).status).toBe(200);
    await createFilter(viewer.client, { title: 'warn only', context: ['home'], keywords_attributes: [{ keyword: 'warned' }] });
    const dropped = await post(bob.client, { status: 'please drop me now' });
    const warned = await post(bob.client, { status: 'just warned' });
    const clean = await post(bob.client, { status: 'clean' });
    const ids = [dropped.id, warned.id, clean.id];
    expect([...hiddenStatusIds(inst.deps, viewer.accountId, 'home', ids)]).toEqual([dropped.id]);
    expect([...hiddenStatusIds(inst.deps, viewer.accountId, 'notifications', ids)]).toEqual([dropped.id]);
    expect([...hiddenStatusIds(inst.deps, viewer.accountId, 'public', ids)]).toEqual([]);
  });

  it('compiled filters are cached per account and the cache is dropped on every change', async () => {
    await freshViewer();
    const filter = await createFilter(viewer.client, { title: 'cached', keywords_attributes: [{ keyword: 'first' }] });
    const a = loadActiveFilters(inst.deps, viewer.accountId);
    const b = loadActiveFilters(inst.deps, viewer.accountId);
    expect(b[0]).toBe(a[0]);
    const status = await post(bob.client, { status: 'second word' });
    expect(matchesOf(status.id)).toEqual([]);
    await viewer.client.post(`/api/v2/filters/${filter.id}/keywords`, { keyword: 'second' });
    const c = loadActiveFilters(inst.deps, viewer.accountId);
    expect(c[0]).not.toBe(a[0]);
    expect(matchesOf(status.id)[0]?.keyword_matches).toEqual(['second']);
  });
});
