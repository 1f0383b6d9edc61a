import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestUser } from '../helpers/instance.js';
import { eventually, startFederated } from './helpers.js';

type Inst = Awaited<ReturnType<typeof startFederated>>;
interface Quote { state: string; quoted_status: Status | null }
interface Status {
  id: string;
  uri: string;
  content: string;
  quotes_count: number;
  quote: Quote | null;
  quote_approval: { automatic: string[]; manual: string[]; current_user: string };
  account: { acct: string };
}
interface Notification { type: string; account: { acct: string }; status?: { id: string; uri: string } | null }

/**
 * Quote posts between two Hearth instances on loopback, as Mastodon 4.5 runs them (FEP-044f): the
 * QuoteRequest of a remote status, its Accept or Reject, the authorization anyone can check, and
 * its Delete when the quoted author revokes the quote.
 */
describe('quote posts federating between two instances', () => {
  let a: Inst;
  let b: Inst;
  let alice: TestUser;
  let dave: TestUser;
  let bob: TestUser;
  let carol: TestUser;

  /** The status with this URI as `user` sees it on `inst`, fetched by search when not known yet. */
  async function resolved(inst: Inst, user: TestUser, uri: string): Promise<Status> {
    return eventually(async () => {
      const res = await user.client.get(`/api/v2/search?q=${encodeURIComponent(uri)}&resolve=true&type=statuses`);
      return (res.body as { statuses: Status[] }).statuses.find((s) => s.uri === uri) ?? null;
    });
  }
  async function status(user: TestUser, id: string): Promise<Status> {
    const res = await user.client.get(`/api/v1/statuses/${id}`);
    expect(res.status, res.text).toBe(200);
    return res.body as Status;
  }

  beforeAll(async () => {
    a = await startFederated('127.0.0.2');
    b = await startFederated('127.0.0.3');
    alice = await a.createUser('alice');
    dave = await a.createUser('dave');
    bob = await b.createUser('bob');
    carol = await b.createUser('carol');
    // alice follows bob (his statuses and their changes reach her); carol follows dave.
    const bobOnA = await a.app.federation?.resolveAccount(`${b.origin}/users/bob`);
    expect((await alice.client.post(`/api/v1/accounts/${bobOnA?.id}/follow`)).status).toBe(200);
    const daveOnB = await b.app.federation?.resolveAccount(`${a.origin}/users/dave`);
    expect((await carol.client.post(`/api/v1/accounts/${daveOnB?.id}/follow`)).status).toBe(200);
    await eventually(async () => ((await alice.client.get(`/api/v1/accounts/relationships?id[]=${bobOnA?.id}`)).body as { following: boolean }[])[0]?.following, 20_000);
    await eventually(async () => ((await carol.client.get(`/api/v1/accounts/relationships?id[]=${daveOnB?.id}`)).body as { following: boolean }[])[0]?.following, 20_000);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  let quoteOnA: Status;
  let bobPost: Status;

  it('a quote of a remote status is requested, approved by its author, and shown on both sides', async () => {
    bobPost = (await bob.client.post('/api/v1/statuses', { status: 'bob says something quotable', quote_approval_policy: 'public' })).body as Status;
    const onA = await resolved(a, alice, bobPost.uri);
    // The policy crossed over with the status (interactionPolicy.canQuote).
    expect(onA.quote_approval).toEqual({ automatic: ['public'], manual: [], current_user: 'automatic' });

    const posted = await alice.client.post('/api/v1/statuses', { status: 'alice quotes bob', quoted_status_id: onA.id });
    expect(posted.status, posted.text).toBe(200);
    quoteOnA = posted.body as Status;
    // Pending until bob's server answers the QuoteRequest.
    expect(quoteOnA.quote).toEqual({ state: 'pending', quoted_status: null });

    const approved = await eventually(async () => {
      const s = await status(alice, quoteOnA.id);
      return s.quote?.state === 'accepted' ? s : null;
    });
    expect(approved.quote?.quoted_status?.uri).toBe(bobPost.uri);
    expect(approved.quote?.quoted_status?.content).toContain('bob says something quotable');

    // Bob's side: notified, counted, listed, and his quoted status approves it.
    const notified = await eventually(async () => ((await bob.client.get('/api/v1/notifications?types[]=quote')).body as Notification[])[0]);
    expect(notified.account.acct).toBe(`alice@${a.domain}`);
    expect(notified.status?.uri).toBe(quoteOnA.uri);
    expect((await status(bob, bobPost.id)).quotes_count).toBe(1);
    const listed = (await bob.client.get(`/api/v1/statuses/${bobPost.id}/quotes`)).body as Status[];
    expect(listed.map((s) => s.uri)).toEqual([quoteOnA.uri]);
    expect(listed[0]?.quote?.state).toBe('accepted');
  });

  it('the authorization is served by the quoted author’s server, where anyone can check it', async () => {
    const quoteOnB = ((await bob.client.get(`/api/v1/statuses/${bobPost.id}/quotes`)).body as Status[])[0];
    const row = b.deps.db.query<{ id: string }>('SELECT id FROM quotes WHERE status_id = @status_id').get({ status_id: quoteOnB?.id ?? '' });
    const url = `${b.origin}/users/bob/quote_authorizations/${row?.id}`;
    const res = await fetch(url, { headers: { accept: 'application/activity+json' } });
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc).toMatchObject({ id: url, type: 'QuoteAuthorization', attributedTo: `${b.origin}/users/bob`, interactingObject: quoteOnA.uri, interactionTarget: bobPost.uri });
    // Alice's Note now names it, for everyone who checks.
    const note = (await (await fetch(quoteOnA.uri, { headers: { accept: 'application/activity+json' } })).json()) as Record<string, unknown>;
    expect(note.quote).toBe(bobPost.uri);
    expect(note.quoteAuthorization).toBe(url);
    expect(note._misskey_quote).toBe(bobPost.uri);
  });

  it('a quote the quoted status’s policy refuses is rejected, and shown as such', async () => {
    // Carol changes her mind after alice's server saw her status: it still thinks anyone may quote.
    const carolPost = (await carol.client.post('/api/v1/statuses', { status: 'carol, quotable for now', quote_approval_policy: 'public' })).body as Status;
    const onA = await resolved(a, alice, carolPost.uri);
    expect(onA.quote_approval.current_user).toBe('automatic');
    expect((await carol.client.put(`/api/v1/statuses/${carolPost.id}/interaction_policy`, { quote_approval_policy: 'nobody' })).status).toBe(200);

    const posted = (await alice.client.post('/api/v1/statuses', { status: 'alice quotes carol', quoted_status_id: onA.id })).body as Status;
    expect(posted.quote?.state).toBe('pending');
    const rejected = await eventually(async () => {
      const s = await status(alice, posted.id);
      return s.quote?.state === 'rejected' ? s : null;
    });
    expect(rejected.quote).toEqual({ state: 'rejected', quoted_status: null });
    expect((await status(carol, carolPost.id)).quotes_count).toBe(0);
    expect(((await carol.client.get('/api/v1/notifications?types[]=quote')).body as Notification[])).toEqual([]);
  });

  it('a revoked quote reaches the other side: the authorization is deleted and the quote shows as revoked', async () => {
    const quoteOnB = ((await bob.client.get(`/api/v1/statuses/${bobPost.id}/quotes`)).body as Status[])[0];
    expect(quoteOnB).toBeDefined();
    const row = b.deps.db.query<{ id: string }>('SELECT id FROM quotes WHERE status_id = @status_id').get({ status_id: quoteOnB?.id ?? '' });
    const revoked = await bob.client.post(`/api/v1/statuses/${bobPost.id}/quotes/${quoteOnB?.id}/revoke`);
    expect(revoked.status, revoked.text).toBe(200);
    expect((revoked.body as Status).quote).toEqual({ state: 'revoked', quoted_status: null });
    expect((await fetch(`${b.origin}/users/bob/quote_authorizations/${row?.id}`, { headers: { accept: 'application/activity+json' } })).status).toBe(404);

    const onA = await eventually(async () => {
      const s = await status(alice, quoteOnA.id);
      return s.quote?.state === 'revoked' ? s : null;
    });
    expect(onA.quote).toEqual({ state: 'revoked', quoted_status: null });
    expect((await status(bob, bobPost.id)).quotes_count).toBe(0);
  });

  it('a local quote of a local status reaches followers elsewhere, who check its authorization', async () => {
    const original = (await alice.client.post('/api/v1/statuses', { status: 'alice, to be quoted at home' })).body as Status;
    const quote = (await dave.client.post('/api/v1/statuses', { status: 'dave quotes alice', quoted_status_id: original.id })).body as Status;
    expect(quote.quote?.state).toBe('accepted');
    // Carol follows dave: his quote reaches her server, which fetches alice's status and checks
    // the authorization alice's server issued.
    const seen = await eventually(async () => {
      const home = (await carol.client.get('/api/v1/timelines/home')).body as Status[];
      const s = home.find((x) => x.uri === quote.uri);
      return s?.quote?.state === 'accepted' ? s : null;
    }, 20_000);
    expect(seen.quote?.quoted_status?.uri).toBe(original.uri);
    expect(seen.quote?.quoted_status?.content).toContain('alice, to be quoted at home');
  });

  it('a new quote policy reaches the followers', async () => {
    const post = (await bob.client.post('/api/v1/statuses', { status: 'bob changes the rules', quote_approval_policy: 'public' })).body as Status;
    const onA = await resolved(a, alice, post.uri);
    expect(onA.quote_approval.automatic).toEqual(['public']);
    expect((await bob.client.put(`/api/v1/statuses/${post.id}/interaction_policy`, { quote_approval_policy: 'followers' })).status).toBe(200);
    // Alice follows bob: his followers may quote, she among them.
    const updated = await eventually(async () => {
      const s = await status(alice, onA.id);
      return s.quote_approval.automatic[0] === 'followers' ? s : null;
    });
    expect(updated.quote_approval.current_user).toBe('automatic');
  });
});
