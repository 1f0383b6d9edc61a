import { createRestAPIClient, type mastodon } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installSuggestions } from '../../api/core/suggestions/install.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';

describe('tags, suggestions, reports, search and directory with the masto client', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let asAlice: mastodon.rest.Client;
  let asBob: mastodon.rest.Client;

  beforeAll(async () => {
    inst = await startInstance();
    installSuggestions(inst.deps);
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    asAlice = createRestAPIClient({ url: inst.url, accessToken: alice.token });
    asBob = createRestAPIClient({ url: inst.url, accessToken: bob.token });
  });
  afterAll(async () => {
    await inst.close();
  });

  it('featured and followed tags', async () => {
    await asAlice.v1.statuses.create({ status: 'knitting again #Knitting' });
    const featured = await asAlice.v1.featuredTags.create({ name: 'knitting' });
    expect(featured).toMatchObject({ name: 'knitting', statusesCount: '1' });
    expect((await asAlice.v1.featuredTags.list()).map((t) => t.id)).toEqual([featured.id]);
    expect((await asBob.v1.accounts.$select(alice.accountId).featuredTags.list()).map((t) => t.name)).toEqual(['knitting']);
    await asAlice.v1.featuredTags.$select(featured.id).remove();
    expect(await asAlice.v1.featuredTags.list()).toEqual([]);
    expect((await asAlice.v1.featuredTags.suggestions.list()).map((t) => t.name)).toEqual(['Knitting']);

    const tag = await asBob.v1.tags.$select('knitting').follow();
    expect(tag).toMatchObject({ name: 'Knitting', following: true });
    expect((await asBob.v1.tags.$select('KNITTING').fetch()).following).toBe(true);
    expect((await asBob.v1.followedTags.list()).map((t) => t.name)).toEqual(['Knitting']);
    expect((await asBob.v1.tags.$select('knitting').unfollow()).following).toBe(false);
  });

  it('suggestions (v1 and v2), dismissing one, reports, account search and the directory', async () => {
    const status = await asBob.v1.statuses.create({ status: 'boost me' });
    await asAlice.v1.statuses.$select(status.id).reblog();
    expect((await asAlice.v1.suggestions.list()).map((a) => a.id)).toEqual([bob.accountId]);
    const v2 = await asAlice.v2.suggestions.list();
    expect(v2.map((s) => [s.account.id, s.source])).toEqual([[bob.accountId, 'past_interactions']]);
    // masto types this method's (unused) parameter as a required string.
    await asAlice.v1.suggestions.$select(bob.accountId).remove(undefined as unknown as string);
    expect(await asAlice.v1.suggestions.list()).toEqual([]);

    const report = await asAlice.v1.reports.create({ accountId: bob.accountId, statusIds: [status.id], comment: 'boosting too much', category: 'spam' });
    expect(report).toMatchObject({ category: 'spam', comment: 'boosting too much', statusIds: [status.id], forwarded: false });
    expect(report.targetAccount.id).toBe(bob.accountId);

    expect((await asAlice.v1.accounts.search.list({ q: 'bo' })).map((a) => a.id)).toEqual([bob.accountId]);
    await asBob.v1.accounts.updateCredentials({ discoverable: true });
    expect((await asAlice.v1.directory.list({ order: 'new', local: true })).map((a) => a.id)).toEqual([bob.accountId]);
  });
});
