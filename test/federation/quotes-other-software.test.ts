import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestUser } from '../helpers/instance.js';
import { FakeRemote, MASTODON_CONTEXT, MISSKEY_CONTEXT, PUBLIC, mastodonPerson, misskeyPerson, type FakeActor } from './fake-remote.js';
import { eventually, startFederated } from './helpers.js';
import { drain } from './replay.js';

type Inst = Awaited<ReturnType<typeof startFederated>>;
interface Status {
  id: string;
  uri: string;
  content: string;
  quotes_count: number;
  quote: { state: string; quoted_status: Status | null } | null;
  quote_approval: { automatic: string[]; manual: string[]; current_user: string };
}
interface Notification { type: string; account: { acct: string }; status?: { uri: string } | null }

/** Mastodon 4.5's context extensions for quotes and interaction policies, as it sends them. */
const QUOTE_TERMS = {
  quote: { '@id': 'https://w3id.org/fep/044f#quote', '@type': '@id' },
  quoteUri: 'http://fedibird.com/ns#quoteUri',
  _misskey_quote: 'https://misskey-hub.net/ns#_misskey_quote',
  quoteAuthorization: { '@id': 'https://w3id.org/fep/044f#quoteAuthorization', '@type': '@id' },
  QuoteRequest: 'https://w3id.org/fep/044f#QuoteRequest',
  QuoteAuthorization: 'https://w3id.org/fep/044f#QuoteAuthorization',
  gts: 'https://gotosocial.org/ns#',
  interactionPolicy: { '@id': 'gts:interactionPolicy', '@type': '@id' },
  canQuote: { '@id': 'gts:canQuote', '@type': '@id' },
  automaticApproval: { '@id': 'gts:automaticApproval', '@type': '@id' },
  manualApproval: { '@id': 'gts:manualApproval', '@type': '@id' },
  interactingObject: { '@id': 'gts:interactingObject', '@type': '@id' },
  interactionTarget: { '@id': 'gts:interactionTarget', '@type': '@id' },
};
const CONTEXT = [...MASTODON_CONTEXT, QUOTE_TERMS];

/**
 * Quotes from and to other software, from live fake servers: Mastodon 4.5 (FEP-044f: QuoteRequest,
 * Accept with a QuoteAuthorization, Delete of it, interaction policies) and Misskey (quotes named by
 * `_misskey_quote` and `quoteUrl` alone, shown as far as they can be).
 */
describe('quote posts with Mastodon and Misskey', () => {
  let inst: Inst;
  let masto: FakeRemote;
  let misskey: FakeRemote;
  let mona: FakeActor;
  let dave: FakeActor;
  let miko: FakeActor;
  let alice: TestUser;
  let aliceUri = '';
  let seq = 1_200_000_000_000;

  beforeAll(async () => {
    inst = await startFederated('127.0.0.2');
    masto = await FakeRemote.start('127.0.0.5');
    misskey = await FakeRemote.start('127.0.0.6');
    mona = await masto.actor('/users/mona', (a) => mastodonPerson(masto, a, 'mona'));
    dave = await masto.actor('/users/dave', (a) => mastodonPerson(masto, a, 'dave'));
    miko = await misskey.actor('/users/9f3k2a1b0c', (a) => misskeyPerson(misskey, a, 'miko'));
    alice = await inst.createUser('alice');
    aliceUri = `${inst.origin}/users/alice`;
  });
  afterAll(async () => {
    await inst.close();
    await Promise.all([masto.close(), misskey.close()]);
  });

  async function send(from: FakeActor, activity: Record<string, unknown>): Promise<void> {
    const server = from.id.startsWith(misskey.origin) ? misskey : masto;
    expect(await server.send(inst.origin, from, activity)).toBe(202);
    await drain(inst);
  }
  async function byUri(uri: string): Promise<Status | null> {
    const row = inst.deps.db.query<{ id: string }>('SELECT id FROM statuses WHERE uri = @uri').get({ uri });
    return row ? ((await alice.client.get(`/api/v1/statuses/${row.id}`)).body as Status) : null;
  }
  async function mine(id: string): Promise<Status> {
    return (await alice.client.get(`/api/v1/statuses/${id}`)).body as Status;
  }
  async function post(params: Record<string, unknown>): Promise<Status> {
    const res = await alice.client.post('/api/v1/statuses', params);
    expect(res.status, res.text).toBe(200);
    return res.body as Status;
  }
  /** A Note as Mastodon 4.5 writes it (served at its id too), and its Create. */
  function mastodonNote(actor: FakeActor, extra: Record<string, unknown>): { note: Record<string, unknown>; create: Record<string, unknown> } {
    const n = String(seq++);
    const id = `${actor.id}/statuses/${n}`;
    const note = {
      '@context': CONTEXT,
      id,
      type: 'Note',
      attributedTo: actor.id,
      published: new Date().toISOString(),
      to: [PUBLIC],
      cc: [`${actor.id}/followers`],
      content: '<p>a toot</p>',
      interactionPolicy: { canQuote: { automaticApproval: [PUBLIC] } },
      ...extra,
    };
    masto.serve(new URL(id).pathname, note);
    const { '@context': _context, ...object } = note;
    return { note, create: { '@context': CONTEXT, id: `${id}/activity`, type: 'Create', actor: actor.id, to: note.to, cc: note.cc, object } };
  }

  it('reads who may quote from interactionPolicy.canQuote, as Mastodon maps it', async () => {
    const followers = mastodonNote(mona, { interactionPolicy: { canQuote: { automaticApproval: [`${mona.id}/followers`], manualApproval: ['https://www.w3.org/ns/activitystreams#Public'] } } });
    await send(mona, followers.create);
    expect((await byUri(String(followers.note.id)))?.quote_approval).toEqual({ automatic: ['followers'], manual: ['public'], current_user: 'manual' });
    const odd = mastodonNote(mona, { interactionPolicy: { canQuote: { automaticApproval: [mona.id, masto.url('/users/someone-else')] } } });
    await send(mona, odd.create);
    expect((await byUri(String(odd.note.id)))?.quote_approval).toEqual({ automatic: ['unsupported_policy'], manual: [], current_user: 'unknown' });
    // No policy at all: nobody but the author.
    const none = mastodonNote(mona, { interactionPolicy: undefined });
    await send(mona, none.create);
    expect((await byUri(String(none.note.id)))?.quote_approval).toEqual({ automatic: [], manual: [], current_user: 'denied' });
  });

  it('a QuoteRequest from Mastodon for a local status is accepted, notified, and its authorization served', async () => {
    const original = await post({ status: 'alice for mastodon to quote' });
    const quote = mastodonNote(mona, { content: '<p>mona quotes alice</p>', quote: original.uri, _misskey_quote: original.uri, quoteUri: original.uri });
    const requestId = `${mona.id}/quote_requests/1f7c`;
    const { '@context': _c, ...instrument } = quote.note;
    await send(mona, { '@context': CONTEXT, id: requestId, type: 'QuoteRequest', actor: mona.id, object: original.uri, instrument });
    const accept = await eventually(() => masto.deliveries('Accept').find((a) => (a.object as { id?: string } | undefined)?.id === requestId));
    expect(accept.actor).toBe(aliceUri);
    const result = String(accept.result);
    expect(result).toMatch(new RegExp(`^${aliceUri}/quote_authorizations/\\d+$`));
    expect(accept.object).toMatchObject({ type: 'QuoteRequest', actor: mona.id, object: original.uri, instrument: quote.note.id });

    const shown = await byUri(String(quote.note.id));
    expect(shown?.quote?.state).toBe('accepted');
    expect(shown?.quote?.quoted_status?.id).toBe(original.id);
    expect((await mine(original.id)).quotes_count).toBe(1);
    const notified = ((await alice.client.get('/api/v1/notifications?types[]=quote')).body as Notification[])[0];
    expect([notified?.account.acct, notified?.status?.uri]).toEqual([`mona@${masto.domain}`, quote.note.id]);
    const doc = (await (await fetch(result, { headers: { accept: 'application/activity+json' } })).json()) as Record<string, unknown>;
    expect(doc).toMatchObject({ type: 'QuoteAuthorization', attributedTo: aliceUri, interactingObject: quote.note.id, interactionTarget: original.uri });

    // Alice revokes it: the Delete of the authorization goes to mona's server.
    const revoked = await alice.client.post(`/api/v1/statuses/${original.id}/quotes/${shown?.id}/revoke`);
    expect(revoked.status, revoked.text).toBe(200);
    const del = await eventually(() => masto.deliveries('Delete').find((d) => d.object === result));
    expect(del).toMatchObject({ id: `${result}#delete`, actor: aliceUri });
    expect((await fetch(result, { headers: { accept: 'application/activity+json' } })).status).toBe(404);
  });

  it('a QuoteRequest for a status nobody may quote is rejected', async () => {
    const original = await post({ status: 'not for quoting', quote_approval_policy: 'nobody' });
    const quote = mastodonNote(mona, { content: '<p>try</p>', quote: original.uri });
    const requestId = `${mona.id}/quote_requests/2a9b`;
    const { '@context': _c, ...instrument } = quote.note;
    await send(mona, { '@context': CONTEXT, id: requestId, type: 'QuoteRequest', actor: mona.id, object: original.uri, instrument });
    const reject = await eventually(() => masto.deliveries('Reject').find((r) => (r.object as { id?: string } | undefined)?.id === requestId));
    expect(reject.actor).toBe(aliceUri);
    expect((await byUri(String(quote.note.id)))?.quote?.state).toBe('rejected');
    expect((await mine(original.id)).quotes_count).toBe(0);
  });

  it('a local quote of a Mastodon status: QuoteRequest out, Accept in, Update out; then Mastodon revokes it', async () => {
    const target = mastodonNote(mona, { content: '<p>mona says quote me</p>' });
    await send(mona, target.create);
    const onHere = await byUri(String(target.note.id));
    const quote = await post({ status: 'alice quotes mona', quoted_status_id: onHere?.id });
    expect(quote.quote?.state).toBe('pending');
    const request = await eventually(() => masto.deliveries('QuoteRequest')[0]);
    expect(request).toMatchObject({ actor: aliceUri, object: target.note.id });
    const instrument = request.instrument as Record<string, unknown>;
    expect(instrument).toMatchObject({ id: quote.uri, quote: target.note.id });
    // Mona's server answers as Mastodon does: the request embedded, the authorization as result.
    const authorization = `${mona.id}/quote_authorizations/99`;
    const embedded = { type: 'QuoteRequest', id: request.id, actor: aliceUri, object: target.note.id, instrument: quote.uri };
    await send(mona, { '@context': CONTEXT, id: `${mona.id}#accepts/quote_requests/99`, type: 'Accept', actor: mona.id, to: aliceUri, object: embedded, result: authorization });
    const accepted = await eventually(async () => {
      const s = (await alice.client.get(`/api/v1/statuses/${quote.id}`)).body as Status;
      return s.quote?.state === 'accepted' ? s : null;
    });
    expect(accepted.quote?.quoted_status?.uri).toBe(target.note.id);
    // The quote goes out again with its authorization (mona is silently addressed by it).
    const update = await eventually(() => masto.deliveries('Update').find((u) => (u.object as { id?: string }).id === quote.uri));
    expect((update.object as Record<string, unknown>).quoteAuthorization).toBe(authorization);
    expect(JSON.stringify((update.object as Record<string, unknown>).tag ?? [])).not.toContain(mona.id);

    await send(mona, { '@context': CONTEXT, id: `${authorization}#delete`, type: 'Delete', actor: mona.id, to: [PUBLIC], object: authorization });
    expect(((await alice.client.get(`/api/v1/statuses/${quote.id}`)).body as Status).quote).toEqual({ state: 'revoked', quoted_status: null });
  });

  it('a quote between two Mastodon accounts is checked against the authorization its issuer serves', async () => {
    const original = mastodonNote(dave, { content: '<p>dave original</p>' });
    await send(dave, original.create);
    const authorization = `${dave.id}/quote_authorizations/7`;
    const quoteNote = mastodonNote(mona, { content: '<p>mona quotes dave</p>', quote: original.note.id, quoteAuthorization: authorization });
    masto.serve(new URL(authorization).pathname, {
      '@context': CONTEXT,
      id: authorization,
      type: 'QuoteAuthorization',
      attributedTo: dave.id,
      interactingObject: quoteNote.note.id,
      interactionTarget: original.note.id,
    });
    await send(mona, quoteNote.create);
    const accepted = await eventually(async () => {
      const s = await byUri(String(quoteNote.note.id));
      return s?.quote?.state === 'accepted' ? s : null;
    });
    expect(accepted.quote?.quoted_status?.uri).toBe(original.note.id);

    // A forged authorization (naming another quote) changes nothing; one that is gone rejects.
    const forged = `${dave.id}/quote_authorizations/8`;
    const other = mastodonNote(mona, { content: '<p>forged</p>', quote: original.note.id, quoteAuthorization: forged });
    masto.serve(new URL(forged).pathname, { '@context': CONTEXT, id: forged, type: 'QuoteAuthorization', attributedTo: dave.id, interactingObject: quoteNote.note.id, interactionTarget: original.note.id });
    await send(mona, other.create);
    const gone = mastodonNote(mona, { content: '<p>gone</p>', quote: original.note.id, quoteAuthorization: `${dave.id}/quote_authorizations/9` });
    await send(mona, gone.create);
    await eventually(async () => (await byUri(String(gone.note.id)))?.quote?.state === 'rejected');
    expect((await byUri(String(other.note.id)))?.quote?.state).toBe('pending');

    // Dave revokes the accepted one.
    await send(dave, { '@context': CONTEXT, id: `${authorization}#delete`, type: 'Delete', actor: dave.id, to: [PUBLIC], object: authorization });
    expect((await byUri(String(quoteNote.note.id)))?.quote?.state).toBe('revoked');
  });

  it('an edit (Update) brings a pending quote its authorization, or takes the quote away', async () => {
    const original = mastodonNote(dave, { content: '<p>dave, quoted later</p>' });
    await send(dave, original.create);
    const quote = mastodonNote(mona, { content: '<p>mona asks first</p>', quote: original.note.id });
    await send(mona, quote.create);
    expect((await byUri(String(quote.note.id)))?.quote).toEqual({ state: 'pending', quoted_status: null });
    const authorization = `${dave.id}/quote_authorizations/11`;
    masto.serve(new URL(authorization).pathname, { '@context': CONTEXT, id: authorization, type: 'QuoteAuthorization', attributedTo: dave.id, interactingObject: quote.note.id, interactionTarget: original.note.id });
    const { '@context': _c, ...object } = quote.note;
    const edit = (extra: Record<string, unknown>, n: number) => ({
      '@context': CONTEXT,
      id: `${String(quote.note.id)}#updates/${n}`,
      type: 'Update',
      actor: mona.id,
      to: [PUBLIC],
      object: { ...object, updated: new Date(Date.now() + n).toISOString(), ...extra },
    });
    await send(mona, edit({ quoteAuthorization: authorization }, 1));
    await eventually(async () => (await byUri(String(quote.note.id)))?.quote?.state === 'accepted');
    expect((await byUri(String(quote.note.id)))?.quote?.quoted_status?.uri).toBe(original.note.id);
    // Edited away: no quote any more.
    await send(mona, edit({ quote: undefined, quoteAuthorization: undefined }, 2));
    expect((await byUri(String(quote.note.id)))?.quote).toBeNull();
  });

  it('a Mastodon quote of a status not known here gets it fetched', async () => {
    const unseen = mastodonNote(dave, { content: '<p>never delivered here</p>' });
    const quote = mastodonNote(dave, { content: '<p>dave quotes himself</p>', quote: unseen.note.id });
    await send(dave, quote.create);
    // Quoting oneself needs no authorization.
    const shown = await eventually(async () => {
      const s = await byUri(String(quote.note.id));
      return s?.quote?.state === 'accepted' ? s : null;
    });
    expect(shown.quote?.quoted_status?.content).toContain('never delivered here');
  });

  it('Misskey quotes (_misskey_quote, quoteUrl): shown as quotes when they need no approval, else as a link', async () => {
    const n = (id: string, extra: Record<string, unknown>) => ({ id: misskey.url(`/notes/${id}`), type: 'Note', attributedTo: miko.id, published: new Date().toISOString(), to: [PUBLIC], cc: [`${miko.id}/followers`], sensitive: false, tag: [], attachment: [], ...extra });
    const create = (note: Record<string, unknown>) => ({ '@context': MISSKEY_CONTEXT, id: `${String(note.id)}/activity`, type: 'Create', actor: miko.id, to: note.to, cc: note.cc, object: note });
    const own = n('9q1', { content: '<p>miko first</p>', _misskey_content: 'miko first' });
    await send(miko, create(own));
    const selfQuote = n('9q2', { content: '<p>miko again</p>', _misskey_quote: own.id, quoteUrl: own.id });
    await send(miko, create(selfQuote));
    const self = await byUri(selfQuote.id);
    expect(self?.quote?.state).toBe('accepted');
    expect(self?.quote?.quoted_status?.uri).toBe(own.id);

    // Quoting someone else the old way: no approval can come, so no quote is shown; the text links it.
    const original = await post({ status: 'alice for misskey' });
    const legacy = n('9q3', { content: '<p>miko quotes alice</p>', _misskey_quote: original.uri, quoteUrl: original.uri });
    await send(miko, create(legacy));
    const shown = await byUri(legacy.id);
    expect(shown?.quote).toBeNull();
    expect(shown?.content).toContain(`<a href="${original.uri}"`);
    expect(shown?.content).toContain('miko quotes alice');
    expect((await mine(original.id)).quotes_count).toBe(0);
    // A text that links it already gets no second link.
    const linked = n('9q4', { content: `<p>RE: <a href="${original.uri}">${original.uri}</a></p>`, quoteUrl: original.uri });
    await send(miko, create(linked));
    expect((await byUri(linked.id))?.content.split(original.uri).length).toBe(3);
  });
});
