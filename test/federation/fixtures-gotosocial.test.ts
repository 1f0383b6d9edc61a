import { signRequest } from '@fedify/fedify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { kvSet } from '../../api/db/repos/federation.js';
import { resetClock } from '../../api/util/clock.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { adoptUri, deliver, drain, fixture, replay, seedDocument, seedServer, type Captured } from './replay.js';

interface Status { poll?: { votes_count: number; voters_count: number | null } | null; id: string; content: string; visibility: string; uri: string; favourites_count: number; reblogs_count: number; edited_at: string | null; media_attachments: { description: string | null; blurhash: string | null; remote_url: string | null }[]; account: { acct: string } }
interface Account { id: string; acct: string; display_name: string; note: string; fields: { name: string; value: string }[]; moved?: { acct: string } | null }
interface Rel { id: string; following: boolean; followed_by: boolean; requested: boolean; blocked_by: boolean }

const DORA = 'https://c.test/users/dora';

/** A request signed (draft-cavage) with a key the test made, as an impostor would send it. */
async function forged(keyId: string, owner: string, body: Record<string, unknown>, inst: TestInstance): Promise<Captured> {
  const pair = await crypto.subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign', 'verify']);
  const spki = Buffer.from(await crypto.subtle.exportKey('spki', pair.publicKey)).toString('base64');
  const pem = `-----BEGIN PUBLIC KEY-----\n${spki.replace(/(.{64})/g, '$1\n').trimEnd()}\n-----END PUBLIC KEY-----\n`;
  kvSet(inst.deps.db, JSON.stringify(['_fedify', 'publicKey', keyId]), JSON.stringify({ '@context': 'https://w3id.org/security/v1', id: keyId, type: 'CryptographicKey', owner, publicKeyPem: pem }), null);
  const raw = JSON.stringify(body);
  const req = new Request('https://b.test/inbox', { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body: raw });
  const signed = await signRequest(req, pair.privateKey, new URL(keyId));
  const headers: Record<string, string> = { Host: 'b.test' };
  signed.headers.forEach((v, k) => {
    headers[k] = v;
  });
  return { captured_at: new Date().toISOString(), method: 'POST', url: 'https://b.test/inbox', headers, raw_body: raw };
}

describe('inbox: literal signed requests from GoToSocial 0.19.2', () => {
  let inst: TestInstance;
  let bob: TestUser;
  let carol: TestUser;
  let doraId = '';
  let post: Status;
  beforeAll(async () => {
    inst = await startInstance({ origin: 'https://b.test', allowedHosts: ['b.test'] });
    bob = await inst.createUser('bob');
    carol = await inst.createUser('carol');
    seedServer(inst, 'gotosocial');
  });
  afterEach(() => resetClock());
  afterAll(async () => {
    await inst.close();
  });

  async function rel(id: string, user = bob): Promise<Rel> {
    return ((await user.client.get(`/api/v1/accounts/relationships?id[]=${id}`)).body as Rel[])[0] as Rel;
  }
  async function doraStatuses(): Promise<Status[]> {
    return (await bob.client.get(`/api/v1/accounts/${doraId}/statuses`)).body as Status[];
  }

  it('follows: dora (keyId a separate main-key URL) follows bob; her Accept (re-serialised Follow) completes bob’s request', async () => {
    await deliver(inst, 'gotosocial/08-follow.json');
    const followers = (await bob.client.get(`/api/v1/accounts/${bob.accountId}/followers`)).body as Account[];
    expect(followers.map((a) => a.acct)).toEqual(['dora@c.test']);
    doraId = followers[0]?.id ?? '';
    expect(((await bob.client.post(`/api/v1/accounts/${doraId}/follow`)).body as Rel).requested).toBe(true);
    await deliver(inst, 'gotosocial/07-accept-follow.json');
    expect(await rel(doraId)).toMatchObject({ following: true, followed_by: true });
  });

  it('every visibility with string to/cc: public, unlisted, followers-only, direct', async () => {
    await deliver(inst, 'gotosocial/09-create-note-public.json', 'gotosocial/10-create-note-unlisted.json', 'gotosocial/11-create-note-followers-only.json', 'gotosocial/12-create-note-direct.json');
    const home = (await bob.client.get('/api/v1/timelines/home')).body as Status[];
    expect(home.map((s) => s.visibility).sort()).toEqual(['direct', 'private', 'public', 'unlisted']);
    const pub = (await carol.client.get('/api/v1/timelines/public')).body as Status[];
    expect(pub.map((s) => s.visibility)).toEqual(['public']);
  });

  it('a reply, a like and a boost of bob’s post, and their Undo', async () => {
    post = (await bob.client.post('/api/v1/statuses', { status: 'bob post', visibility: 'public' })).body as Status;
    adoptUri(inst, post.id, 'https://b.test/objects/552c3ba1-c65f-4949-8807-94cefb400df4');
    await deliver(inst, 'gotosocial/13-create-note-reply.json', 'gotosocial/14-like.json', 'gotosocial/16-announce.json');
    const context = (await bob.client.get(`/api/v1/statuses/${post.id}/context`)).body as { descendants: Status[] };
    expect(context.descendants.map((s) => s.account.acct)).toEqual(['dora@c.test']);
    const mid = (await bob.client.get(`/api/v1/statuses/${post.id}`)).body as Status;
    expect([mid.favourites_count, mid.reblogs_count]).toEqual([1, 1]);
    await deliver(inst, 'gotosocial/15-undo-like.json', 'gotosocial/17-undo-announce.json');
    const after = (await bob.client.get(`/api/v1/statuses/${post.id}`)).body as Status;
    expect([after.favourites_count, after.reblogs_count]).toEqual([0, 0]);
  });

  it('edits (same Update id for each) keep a history; a Delete with a bare URI removes the status', async () => {
    await deliver(inst, 'gotosocial/18-create-question-poll.json', 'gotosocial/19-update-question-tally-after-vote.json', 'gotosocial/20-update-note-edit.json', 'gotosocial/30-update-question-poll-closed.json');
    const edited = (await doraStatuses()).find((s) => s.edited_at !== null);
    expect(edited).toBeDefined();
    // The tallies (sent with the same Update id as the edit) landed on the poll, not as edits.
    const poll = (await doraStatuses()).find((s) => s.poll)?.poll;
    expect(poll?.votes_count).toBe(1);
    expect(poll?.voters_count).toBe(1);
    expect((await doraStatuses()).filter((s) => s.edited_at !== null)).toHaveLength(1);
    const before = (await doraStatuses()).length;
    await deliver(inst, 'gotosocial/21-delete-note.json');
    expect((await doraStatuses()).length).toBe(before - 1);
  });

  it('attachments keep alt text and blurhash (read from the raw JSON)', async () => {
    await deliver(inst, 'gotosocial/22-create-note-image-attachment.json');
    const image = (await doraStatuses()).find((s) => s.media_attachments.length > 0);
    expect(image?.media_attachments[0]).toMatchObject({ description: 'A test pattern: colour bars (alt text)', blurhash: 'L,J*;pIdv%GLtRVzOYS@r?n3s9j0' });
  });

  it('profile Update: display name, bio and PropertyValue fields', async () => {
    await deliver(inst, 'gotosocial/23-update-person-profile.json');
    const sent = JSON.parse(fixture('gotosocial/23-update-person-profile.json').raw_body) as { object: { name: string } };
    const acct = (await bob.client.get(`/api/v1/accounts/${doraId}`)).body as Account;
    expect(acct.display_name).toBe(sent.object.name);
    expect(acct.fields).toHaveLength(2);
  });

  it('Undo(Follow) then Block, Undo(Block), and the re-follow', async () => {
    await deliver(inst, 'gotosocial/24-undo-follow-sent-by-block.json', 'gotosocial/25-block.json');
    expect(await rel(doraId)).toMatchObject({ following: false, followed_by: false, blocked_by: true });
    await deliver(inst, 'gotosocial/26-undo-block.json');
    expect((await rel(doraId)).blocked_by).toBe(false);
    await deliver(inst, 'gotosocial/29-follow-again.json');
    expect((await rel(doraId)).followed_by).toBe(true);
  });

  it('Flag from the instance actor files a report on bob and his post', async () => {
    await deliver(inst, 'gotosocial/27-flag-report.json');
    const reports = inst.deps.db.query<{ target_account_id: string; comment: string; status_ids: string }>('SELECT target_account_id, comment, status_ids FROM reports').all();
    expect(reports).toEqual([{ target_account_id: bob.accountId, comment: 'Test report from dora (capture)', status_ids: JSON.stringify([post.id]) }]);
  });

  it('Move to bob: bob lists dora as an alias; local followers follow bob', async () => {
    expect((await carol.client.post(`/api/v1/accounts/${doraId}/follow`)).status).toBe(200);
    inst.deps.db.query('UPDATE accounts SET also_known_as = @aka WHERE id = @id').run({ aka: JSON.stringify([DORA]), id: bob.accountId });
    await deliver(inst, 'gotosocial/34-move.json');
    expect(((await carol.client.get(`/api/v1/accounts/${doraId}`)).body as Account).moved?.acct).toBe('bob');
    expect((await rel(bob.accountId, carol)).following).toBe(true);
  });

  it('forged: a key owned by someone else and an actor on another host change nothing', async () => {
    const note = (id: string, actor: string) => ({ '@context': 'https://www.w3.org/ns/activitystreams', id: `${actor}/forged/${id}`, type: 'Create', actor, object: { id: `${actor}/statuses/${id}`, type: 'Note', attributedTo: actor, content: 'forged', to: 'https://www.w3.org/ns/activitystreams#Public' } });
    seedDocument(inst, 'https://c.test/users/eve', { '@context': 'https://www.w3.org/ns/activitystreams', id: 'https://c.test/users/eve', type: 'Person', preferredUsername: 'eve', inbox: 'https://c.test/users/eve/inbox' });
    const before = (await doraStatuses()).length;
    // Same host, wrong owner: eve's key signing an activity whose actor is dora.
    expect(await replay(inst, await forged('https://c.test/users/eve#main-key', 'https://c.test/users/eve', note('1', DORA), inst))).toBe(401);
    // Another host: mallory on evil.test signing as dora.
    expect(await replay(inst, await forged('https://evil.test/users/mallory#main-key', 'https://evil.test/users/mallory', note('2', DORA), inst))).toBe(401);
    await drain(inst);
    expect((await doraStatuses()).length).toBe(before);
  });
});

describe('inbox: a user-level domain block refuses what the blocked domain sends', () => {
  let inst: TestInstance;
  let bob: TestUser;
  beforeAll(async () => {
    inst = await startInstance({ origin: 'https://b.test', allowedHosts: ['b.test'] });
    bob = await inst.createUser('bob');
    seedServer(inst, 'gotosocial');
  });
  afterAll(async () => {
    await inst.close();
  });

  it('a Follow and a Like from c.test, validly signed, change nothing for bob', async () => {
    expect((await bob.client.post('/api/v1/domain_blocks', { domain: 'c.test' })).status).toBe(200);
    const post = (await bob.client.post('/api/v1/statuses', { status: 'bob post', visibility: 'public' })).body as Status;
    adoptUri(inst, post.id, 'https://b.test/objects/552c3ba1-c65f-4949-8807-94cefb400df4');
    await deliver(inst, 'gotosocial/08-follow.json', 'gotosocial/14-like.json');
    expect((await bob.client.get(`/api/v1/accounts/${bob.accountId}/followers`)).body).toEqual([]);
    expect(((await bob.client.get(`/api/v1/statuses/${post.id}`)).body as Status).favourites_count).toBe(0);
  });
});
