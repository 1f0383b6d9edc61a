import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishDueScheduledStatuses } from '../../api/core/scheduled/publish.js';
import { resetClock, setClockTo } from '../../api/util/clock.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { closeSockets, openSocket, type StreamEvent } from '../streaming/helpers.js';
import { count, follow, post } from './helpers.js';

interface Quote {
  state: string;
  quoted_status?: Status | null;
  quoted_status_id?: string | null;
}
interface Status {
  id: string;
  content: string;
  visibility: string;
  quotes_count: number;
  quote: Quote | null;
  quote_approval: { automatic: string[]; manual: string[]; current_user: string };
  account: { id: string };
}

const NOT_FOUND = 'The post you are trying to quote does not appear to exist.';

describe('quote posts: posting, reading, revoking and who may quote (Mastodon 4.5)', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    carol = await inst.createUser('carol');
  });
  afterAll(async () => {
    await inst.close();
  });

  const get = async (user: TestUser | null, id: string): Promise<Status> => {
    const res = await (user ? user.client : inst.anon).get(`/api/v1/statuses/${id}`);
    expect(res.status, res.text).toBe(200);
    return res.body as Status;
  };

  it('quotes a public status: accepted at once, shown with the quoted status, counted and notified', async () => {
    const original: Status = await post(alice.client, { status: 'quote me' });
    expect(original.quote).toBeNull();
    expect(original.quotes_count).toBe(0);
    // Mastodon's default policy is public: anyone may quote, automatically.
    expect(original.quote_approval).toEqual({ automatic: ['public'], manual: [], current_user: 'automatic' });

    const quote: Status = await post(bob.client, { status: 'so true', quoted_status_id: original.id });
    expect(quote.quote?.state).toBe('accepted');
    expect(quote.quote?.quoted_status?.id).toBe(original.id);
    expect(quote.quote?.quoted_status?.quotes_count).toBe(1);
    // The link for software that does not show quotes comes first, then the text.
    expect(quote.content).toMatch(new RegExp(`^<p class="quote-inline">RE: <a href="${inst.url}/@alice/${original.id}"[^>]*>.*</a></p><p>so true</p>$`));

    expect((await get(carol, original.id)).quotes_count).toBe(1);
    const notifications = (await alice.client.get('/api/v1/notifications?types[]=quote')).body as { type: string; account: { id: string }; status: { id: string } }[];
    expect(notifications.map((n) => [n.type, n.account.id, n.status.id])).toEqual([['quote', bob.accountId, quote.id]]);
  });

  it('leaves the link out when the text links the quoted status already', async () => {
    const original: Status = await post(alice.client, { status: 'linked' });
    const quote: Status = await post(bob.client, { status: `see ${inst.url}/@alice/${original.id}`, quoted_status_id: original.id });
    expect(quote.content).not.toContain('quote-inline');
    expect(quote.quote?.state).toBe('accepted');
  });

  it('shows a quoted status that quotes another as a ShallowQuote, one level deep', async () => {
    const first: Status = await post(alice.client, { status: 'first' });
    const second: Status = await post(bob.client, { status: 'second', quoted_status_id: first.id });
    const third: Status = await post(carol.client, { status: 'third', quoted_status_id: second.id });
    expect(third.quote?.quoted_status?.id).toBe(second.id);
    expect(third.quote?.quoted_status?.quote).toEqual({ state: 'accepted', quoted_status_id: first.id });
  });

  it('applies the quote policy: public, followers, nobody; private statuses only by their author', async () => {
    const followers: Status = await post(alice.client, { status: 'followers may quote', quote_approval_policy: 'followers' });
    expect(followers.quote_approval).toEqual({ automatic: ['followers'], manual: [], current_user: 'automatic' });
    expect((await get(carol, followers.id)).quote_approval.current_user).toBe('denied');
    expect((await get(null, followers.id)).quote_approval.current_user).toBe('denied');
    const refused = await carol.client.post('/api/v1/statuses', { status: 'nope', quoted_status_id: followers.id });
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ error: NOT_FOUND });
    await follow(carol.client, alice.accountId);
    expect((await get(carol, followers.id)).quote_approval.current_user).toBe('automatic');
    expect((await post(carol.client, { status: 'now yes', quoted_status_id: followers.id })).quote.state).toBe('accepted');

    const nobody: Status = await post(alice.client, { status: 'nobody', quote_approval_policy: 'nobody' });
    expect(nobody.quote_approval).toEqual({ automatic: [], manual: [], current_user: 'automatic' });
    expect((await get(bob, nobody.id)).quote_approval.current_user).toBe('denied');
    expect((await bob.client.post('/api/v1/statuses', { status: 'x', quoted_status_id: nobody.id })).status).toBe(404);
    // The author may always quote their own status.
    expect((await post(alice.client, { status: 'me again', quoted_status_id: nobody.id })).quote.state).toBe('accepted');

    // A private status is quotable by its author only, whatever policy was asked; quoting it makes
    // a public quote followers-only.
    const secret: Status = await post(alice.client, { status: 'secret', visibility: 'private', quote_approval_policy: 'public' });
    expect(secret.quote_approval).toEqual({ automatic: [], manual: [], current_user: 'automatic' });
    expect((await get(carol, secret.id)).quote_approval.current_user).toBe('denied');
    const own: Status = await post(alice.client, { status: 'quoting my secret', visibility: 'public', quoted_status_id: secret.id });
    expect(own.visibility).toBe('private');
    expect(own.quote?.state).toBe('accepted');
  });

  it('uses the account default (source[quote_policy]) when no policy is given', async () => {
    const dave = await inst.createUser('dave');
    const res = await dave.client.patch('/api/v1/accounts/update_credentials', { source: { quote_policy: 'nobody' } });
    expect(res.status, res.text).toBe(200);
    const status: Status = await post(dave.client, { status: 'by default nobody' });
    expect(status.quote_approval.automatic).toEqual([]);
    expect((await get(bob, status.id)).quote_approval.current_user).toBe('denied');
  });

  it('refuses what cannot be quoted with 404, a bad policy and an unmentioned direct quote with 422, writing nothing', async () => {
    const direct: Status = await post(alice.client, { status: '@bob psst', visibility: 'direct' });
    const reblog = await bob.client.post(`/api/v1/statuses/${(await post(carol.client, { status: 'boost' })).id}/reblog`);
    const invisible: Status = await post(carol.client, { status: 'followers only', visibility: 'private' });
    const before = count(inst, 'statuses');
    for (const target of ['999999999999', 'not-an-id', direct.id, reblog.body.id, invisible.id]) {
      const res = await bob.client.post('/api/v1/statuses', { status: 'q', quoted_status_id: target });
      expect(res.status, `${target}: ${res.text}`).toBe(404);
      expect(res.body).toEqual({ error: NOT_FOUND });
    }
    const original: Status = await post(alice.client, { status: 'public one' });
    const after = count(inst, 'statuses');
    const badPolicy = await bob.client.post('/api/v1/statuses', { status: 'q', quote_approval_policy: 'everyone' });
    expect(badPolicy.status).toBe(422);
    const unmentioned = await bob.client.post('/api/v1/statuses', { status: 'just us', visibility: 'direct', quoted_status_id: original.id });
    expect(unmentioned.status).toBe(422);
    expect(unmentioned.body.error).toBe('Validation failed: Cannot quote a non-mentioned user in a Private Mention post.');
    expect(count(inst, 'statuses')).toBe(after);
    expect(after).toBe(before + 1);
    expect(count(inst, 'quotes', 'status_id NOT IN (SELECT id FROM statuses)')).toBe(0);
    const mentioned: Status = await post(bob.client, { status: '@alice just us', visibility: 'direct', quoted_status_id: original.id });
    expect(mentioned.quote?.state).toBe('accepted');
  });

  it('GET /api/v1/statuses/:id/quotes lists accepted quotes newest first, paged by Link, without hidden ones', async () => {
    const original: Status = await post(alice.client, { status: 'popular' });
    const quotes: Status[] = [];
    for (const [user, text] of [[bob, 'one'], [carol, 'two'], [bob, 'three']] as const) quotes.push(await post(user.client, { status: text, quoted_status_id: original.id }));
    const first = await alice.client.get(`/api/v1/statuses/${original.id}/quotes?limit=2`);
    expect(first.status).toBe(200);
    expect((first.body as Status[]).map((s) => s.id)).toEqual([quotes[2]?.id, quotes[1]?.id]);
    const link = first.headers.get('link') ?? '';
    expect(link).toMatch(/rel="next"/);
    expect(link).toMatch(/since_id=\d+>; rel="prev"/);
    const next = /<([^>]+)>; rel="next"/.exec(link)?.[1] ?? '';
    const second = await alice.client.get(new URL(next).pathname + new URL(next).search);
    expect((second.body as Status[]).map((s) => s.id)).toEqual([quotes[0]?.id]);
    expect(second.headers.get('link') ?? '').not.toMatch(/rel="next"/);

    // Someone who blocks a quoter does not see their quotes; the author sees them all.
    expect((await carol.client.post(`/api/v1/accounts/${bob.accountId}/block`)).status).toBe(200);
    expect(((await carol.client.get(`/api/v1/statuses/${original.id}/quotes`)).body as Status[]).map((s) => s.id)).toEqual([quotes[1]?.id]);
    expect(((await alice.client.get(`/api/v1/statuses/${original.id}/quotes`)).body as Status[]).length).toBe(3);
    expect((await carol.client.post(`/api/v1/accounts/${bob.accountId}/unblock`)).status).toBe(200);

    // 404 for what the viewer cannot see; a user token with read:statuses is needed.
    const hidden: Status = await post(carol.client, { status: 'mine only', visibility: 'direct' });
    expect((await alice.client.get(`/api/v1/statuses/${hidden.id}/quotes`)).status).toBe(404);
    expect((await alice.client.get('/api/v1/statuses/12345/quotes')).status).toBe(404);
    expect((await inst.anon.get(`/api/v1/statuses/${original.id}/quotes`)).status).toBe(401);
    const writeOnly = alice.client.withToken(inst.tokenFor(alice, 'write'));
    expect((await writeOnly.get(`/api/v1/statuses/${original.id}/quotes`)).status).toBe(403);
  });

  it('revokes a quote: only the quoted author may, and the quote shows as revoked and stops counting', async () => {
    const original: Status = await post(alice.client, { status: 'regret' });
    const quote: Status = await post(bob.client, { status: 'haha', quoted_status_id: original.id });
    const other: Status = await post(carol.client, { status: 'unrelated' });
    const path = `/api/v1/statuses/${original.id}/quotes/${quote.id}/revoke`;
    expect((await bob.client.post(path)).status).toBe(403);
    expect((await bob.client.post(path)).body).toEqual({ error: 'This action is not allowed' });
    expect((await alice.client.post(`/api/v1/statuses/${original.id}/quotes/${other.id}/revoke`)).status).toBe(404);
    expect((await alice.client.post(`/api/v1/statuses/${original.id}/quotes/nope/revoke`)).status).toBe(404);
    const readOnly = alice.client.withToken(inst.tokenFor(alice, 'read'));
    expect((await readOnly.post(path)).status).toBe(403);
    expect((await get(carol, quote.id)).quote?.state).toBe('accepted');

    const revoked = await alice.client.post(path);
    expect(revoked.status, revoked.text).toBe(200);
    expect((revoked.body as Status).id).toBe(quote.id);
    expect((revoked.body as Status).quote).toEqual({ state: 'revoked', quoted_status: null });
    expect((await get(carol, quote.id)).quote).toEqual({ state: 'revoked', quoted_status: null });
    expect((await get(carol, original.id)).quotes_count).toBe(0);
    expect(((await alice.client.get(`/api/v1/statuses/${original.id}/quotes`)).body as Status[]).map((s) => s.id)).toEqual([]);
  });

  it('PUT /api/v1/statuses/:id/interaction_policy changes who may quote, the default when none is given', async () => {
    const status: Status = await post(alice.client, { status: 'policy', quote_approval_policy: 'nobody' });
    const path = `/api/v1/statuses/${status.id}/interaction_policy`;
    const res = await alice.client.put(path, { quote_approval_policy: 'followers' });
    expect(res.status, res.text).toBe(200);
    expect((res.body as Status).quote_approval.automatic).toEqual(['followers']);
    // Without a policy, the account's default (public here).
    expect(((await alice.client.put(path, {})).body as Status).quote_approval.automatic).toEqual(['public']);
    expect((await get(bob, status.id)).quote_approval.current_user).toBe('automatic');

    const bad = await alice.client.put(path, { quote_approval_policy: 'friends' });
    expect(bad.status).toBe(422);
    expect((await get(bob, status.id)).quote_approval.automatic).toEqual(['public']);
    expect((await bob.client.put(path, { quote_approval_policy: 'nobody' })).status).toBe(404);
    expect((await alice.client.put('/api/v1/statuses/123/interaction_policy', { quote_approval_policy: 'nobody' })).status).toBe(404);
    expect((await alice.client.withToken(inst.tokenFor(alice, 'read')).put(path, { quote_approval_policy: 'nobody' })).status).toBe(403);
    expect((await inst.anon.put(path, { quote_approval_policy: 'nobody' })).status).toBe(401);
    // A private status stays quotable by its author only.
    const secret: Status = await post(alice.client, { status: 'private', visibility: 'private' });
    expect(((await alice.client.put(`/api/v1/statuses/${secret.id}/interaction_policy`, { quote_approval_policy: 'public' })).body as Status).quote_approval.automatic).toEqual([]);
  });

  it('edits: the policy can change with an edit, the link to the quoted status stays, and quoters hear of the edit', async () => {
    const original: Status = await post(alice.client, { status: 'version one' });
    const quote: Status = await post(bob.client, { status: 'look', quoted_status_id: original.id });
    const edited = await bob.client.put(`/api/v1/statuses/${quote.id}`, { status: 'look again', quote_approval_policy: 'nobody' });
    expect(edited.status, edited.text).toBe(200);
    expect((edited.body as Status).content).toMatch(/^<p class="quote-inline">RE: .*<p>look again<\/p>$/);
    expect((edited.body as Status).quote_approval.automatic).toEqual([]);
    expect((edited.body as Status).quote?.state).toBe('accepted');
    expect((await bob.client.put(`/api/v1/statuses/${quote.id}`, { status: 'x', quote_approval_policy: 'all' })).status).toBe(422);

    expect((await alice.client.put(`/api/v1/statuses/${original.id}`, { status: 'version two' })).status).toBe(200);
    expect((await alice.client.put(`/api/v1/statuses/${original.id}`, { status: 'version three' })).status).toBe(200);
    const updates = (await bob.client.get('/api/v1/notifications?types[]=quoted_update')).body as { type: string; account: { id: string }; status: { id: string } }[];
    // One notification, the latest edit's, about bob's own quote.
    expect(updates.map((n) => [n.type, n.account.id, n.status.id])).toEqual([['quoted_update', alice.accountId, quote.id]]);
  });

  it('shows quotes of deleted, blocked and muted statuses by state; the deletion answer names what it quoted', async () => {
    const original: Status = await post(carol.client, { status: 'will vanish' });
    const quote: Status = await post(alice.client, { status: 'quoting carol', quoted_status_id: original.id });
    expect((await bob.client.post(`/api/v1/accounts/${carol.accountId}/mute`)).status).toBe(200);
    expect((await get(bob, quote.id)).quote?.state).toBe('muted_account');
    expect((await get(bob, quote.id)).quote?.quoted_status?.id).toBe(original.id);
    expect((await bob.client.post(`/api/v1/accounts/${carol.accountId}/block`)).status).toBe(200);
    expect((await get(bob, quote.id)).quote?.state).toBe('blocked_account');
    // Carol blocks gus: her status is hidden from him, so the quote is unauthorized for him.
    const gus = await inst.createUser('gus');
    expect((await carol.client.post(`/api/v1/accounts/${gus.accountId}/block`)).status).toBe(200);
    expect((await get(gus, quote.id)).quote).toEqual({ state: 'unauthorized', quoted_status: null });
    expect((await get(gus, quote.id)).quote_approval.current_user).toBe('automatic');

    const removed = await alice.client.delete(`/api/v1/statuses/${quote.id}`);
    expect(removed.status).toBe(200);
    expect((removed.body as Status).quote?.quoted_status?.id).toBe(original.id);

    const again: Status = await post(alice.client, { status: 'quoting again', quoted_status_id: original.id });
    expect((await carol.client.delete(`/api/v1/statuses/${original.id}`)).status).toBe(200);
    expect((await get(alice, again.id)).quote).toEqual({ state: 'deleted', quoted_status: null });
  });

  it('timelines (from the rendered-status cache) and streams give each viewer their own permission and fresh quote states', async () => {
    const erin = await inst.createUser('erin');
    const frank = await inst.createUser('frank');
    await follow(frank.client, erin.accountId);
    const open: Status = await post(erin.client, { status: 'erin open' });
    const closed: Status = await post(erin.client, { status: 'erin closed', quote_approval_policy: 'nobody' });
    const home = async (user: TestUser) => (await user.client.get('/api/v1/timelines/home')).body as Status[];
    const find = (list: Status[], id: string) => list.find((s) => s.id === id);
    for (let round = 0; round < 2; round++) {
      // The second round is served from the cache the first one filled.
      expect(find(await home(frank), open.id)?.quote_approval.current_user).toBe('automatic');
      expect(find(await home(frank), closed.id)?.quote_approval.current_user).toBe('denied');
      expect(find(await home(erin), closed.id)?.quote_approval.current_user).toBe('automatic');
      const anonymous = (await inst.anon.get('/api/v1/timelines/public')).body as Status[];
      expect(find(anonymous, open.id)?.quote_approval.current_user).toBe('denied');
    }

    const sockets = await openSocket(inst, frank.token, { query: 'stream=user' });
    const quote: Status = await post(frank.client, { status: 'frank quotes erin', quoted_status_id: open.id });
    const event = await sockets.next((e: StreamEvent) => e.event === 'update' && e.payload?.id === quote.id);
    // Streamed as REST renders it for frank (the quoted status carries his flags).
    expect(event.raw).toBe((await frank.client.get(`/api/v1/statuses/${quote.id}`)).text);
    closeSockets();

    expect(find(await home(frank), open.id)?.quotes_count).toBe(1);
    expect(find(await home(frank), quote.id)?.quote?.state).toBe('accepted');
    expect((await erin.client.post(`/api/v1/statuses/${open.id}/quotes/${quote.id}/revoke`)).status).toBe(200);
    expect(find(await home(frank), quote.id)?.quote).toEqual({ state: 'revoked', quoted_status: null });
    expect(find(await home(frank), open.id)?.quotes_count).toBe(0);
    const again: Status = await post(frank.client, { status: 'frank quotes erin again', quoted_status_id: open.id });
    expect(find(await home(frank), open.id)?.quotes_count).toBe(1);
    expect((await frank.client.delete(`/api/v1/statuses/${again.id}`)).status).toBe(200);
    expect(find(await home(frank), open.id)?.quotes_count).toBe(0);
  });

  it('a scheduled status keeps its quote and policy, and is published quoting', async () => {
    const original: Status = await post(alice.client, { status: 'quote me later' });
    const at = Date.now() + 10 * 60_000;
    const res = await bob.client.post('/api/v1/statuses', { status: 'later quote', quoted_status_id: original.id, quote_approval_policy: 'nobody', scheduled_at: new Date(at).toISOString() });
    expect(res.status, res.text).toBe(200);
    expect(res.body.params).toMatchObject({ quoted_status_id: original.id, quote_approval_policy: 'nobody' });
    const refused = await bob.client.post('/api/v1/statuses', { status: 'x', quoted_status_id: '42', scheduled_at: new Date(at).toISOString() });
    expect(refused.status).toBe(404);
    setClockTo(at + 5_000);
    try {
      publishDueScheduledStatuses(inst.deps);
    } finally {
      resetClock();
    }
    const published = ((await bob.client.get(`/api/v1/accounts/${bob.accountId}/statuses`)).body as Status[]).find((s) => s.content.includes('later quote'));
    expect(published?.quote?.quoted_status?.id).toBe(original.id);
    expect(published?.quote_approval.automatic).toEqual([]);
  });
});
