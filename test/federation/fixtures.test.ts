import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetClock, setClockTo } from '../../api/util/clock.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { adoptUri, deliver, drain, fixture, headerName, replay, seedServer } from './replay.js';

interface Poll { options: { title: string; votes_count: number | null }[]; votes_count: number; voters_count: number | null; expired: boolean }
interface Status { poll?: Poll | null; id: string; content: string; visibility: string; uri: string; favourites_count: number; reblogs_count: number; edited_at: string | null; media_attachments: { description: string | null; blurhash: string | null; remote_url: string | null; meta: unknown }[]; account: { acct: string; id: string } }
interface Account { id: string; acct: string; display_name: string; note: string; fields: { name: string; value: string }[]; moved?: { acct: string } | null }

describe('inbox: literal signed requests from snac 2.94', () => {
  let inst: TestInstance;
  let bob: TestUser;
  let carol: TestUser;
  let aliceId = '';
  const alice = 'https://a.test/alice';
  beforeAll(async () => {
    inst = await startInstance({ origin: 'https://b.test', allowedHosts: ['b.test'] });
    bob = await inst.createUser('bob');
    carol = await inst.createUser('carol');
    seedServer(inst, 'snac');
  });
  afterEach(() => resetClock());
  afterAll(async () => {
    await inst.close();
  });

  async function aliceStatuses(): Promise<Status[]> {
    return (await bob.client.get(`/api/v1/accounts/${aliceId}/statuses`)).body as Status[];
  }

  it('follows: Follow makes alice a follower (verified against her real signature); Accept completes bob’s request', async () => {
    await deliver(inst, 'snac/07-follow.json');
    const followers = (await bob.client.get(`/api/v1/accounts/${bob.accountId}/followers`)).body as Account[];
    expect(followers.map((a) => a.acct)).toEqual(['alice@a.test']);
    aliceId = followers[0]?.id ?? '';
    const req = await bob.client.post(`/api/v1/accounts/${aliceId}/follow`);
    expect((req.body as { requested: boolean }).requested).toBe(true);
    await deliver(inst, 'snac/05-accept-follow.json');
    const rel = ((await bob.client.get(`/api/v1/accounts/relationships?id[]=${aliceId}`)).body as { following: boolean; followed_by: boolean }[])[0];
    expect(rel).toMatchObject({ following: true, followed_by: true });
  });

  it('every visibility: public, unlisted, followers-only and direct land with the right visibility', async () => {
    await deliver(inst, 'snac/10-create-note-public.json', 'snac/11-create-note-unlisted.json', 'snac/12-create-note-followers-only.json', 'snac/13-create-note-direct.json');
    const home = (await bob.client.get('/api/v1/timelines/home')).body as Status[];
    expect(home.map((s) => s.visibility).sort()).toEqual(['direct', 'private', 'public', 'unlisted']);
    for (const s of home) expect(s.account.acct).toBe('alice@a.test');
    const pub = (await carol.client.get('/api/v1/timelines/public')).body as Status[];
    expect(pub.map((s) => s.visibility)).toEqual(['public']);
  });

  it('replies, likes and boosts of bob’s post, and their undoing', async () => {
    const post = (await bob.client.post('/api/v1/statuses', { status: 'bob post', visibility: 'public' })).body as Status;
    adoptUri(inst, post.id, 'https://b.test/objects/9f02ddbf-fbbf-49f6-a91d-864feb8daa83');
    await deliver(inst, 'snac/17-create-note-reply.json');
    const context = (await bob.client.get(`/api/v1/statuses/${post.id}/context`)).body as { descendants: Status[] };
    expect(context.descendants.map((s) => s.uri)).toEqual(['https://a.test/alice/p/1795318547.230496']);
    await deliver(inst, 'snac/19-like.json');
    expect(((await bob.client.get(`/api/v1/statuses/${post.id}`)).body as Status).favourites_count).toBe(1);
    await deliver(inst, 'snac/20-undo-like.json', 'snac/21-announce.json');
    const mid = (await bob.client.get(`/api/v1/statuses/${post.id}`)).body as Status;
    expect([mid.favourites_count, mid.reblogs_count]).toEqual([0, 1]);
    await deliver(inst, 'snac/22-undo-announce.json');
    expect(((await bob.client.get(`/api/v1/statuses/${post.id}`)).body as Status).reblogs_count).toBe(0);
  });

  it('edits keep a history; deletes remove the status', async () => {
    await deliver(inst, 'snac/25-update-note-edit.json');
    const edited = (await aliceStatuses()).find((s) => s.edited_at !== null);
    expect(edited).toBeDefined();
    const history = (await bob.client.get(`/api/v1/statuses/${edited?.id}/history`)).body as unknown[];
    expect(history.length).toBeGreaterThanOrEqual(2);
    const before = (await aliceStatuses()).length;
    await deliver(inst, 'snac/26-delete-note.json');
    expect((await aliceStatuses()).length).toBe(before - 1);
  });

  it('polls: the Question becomes a poll, tallies update it (no edit); attachments keep their alt text', async () => {
    await deliver(inst, 'snac/23-create-question-poll.json');
    const poll = () => aliceStatuses().then((all) => all.find((s) => s.poll)?.poll);
    const created = await poll();
    expect(created?.options.map((o) => o.votes_count)).toEqual(created?.options.map(() => 0));
    expect(created?.options.length).toBeGreaterThanOrEqual(2);
    await deliver(inst, 'snac/24-update-question-tally-after-vote.json');
    const tallied = await poll();
    expect(tallied?.votes_count).toBe(1);
    expect(tallied?.voters_count).toBe(1);
    expect((await aliceStatuses()).find((s) => s.poll)?.edited_at).toBeNull();
    await deliver(inst, 'snac/34-update-question-poll-closed.json', 'snac/27-create-note-image-attachment.json');
    expect((await poll())?.expired).toBe(true);
    const image = (await aliceStatuses()).find((s) => s.media_attachments.length > 0);
    expect(image?.media_attachments[0]?.description).toBeTruthy();
  });

  it('profile updates and the alias Update change the account', async () => {
    await deliver(inst, 'snac/28-update-person-profile.json');
    const acct = (await bob.client.get(`/api/v1/accounts/${aliceId}`)).body as Account;
    const body = fixture('snac/28-update-person-profile.json');
    const sent = JSON.parse(body.raw_body) as { object: { name: string } };
    expect(acct.display_name).toBe(sent.object.name);
    expect(acct.fields.length).toBeGreaterThan(0);
    await deliver(inst, 'snac/31-update-person-alias-alsoKnownAs.json');
    const row = inst.deps.db.query<{ also_known_as: string }>('SELECT also_known_as FROM accounts WHERE uri = @uri').get({ uri: alice });
    expect(JSON.parse(row?.also_known_as ?? '[]')).toContain('https://b.test/users/bob');
  });

  it('Move: local followers of alice follow bob, who lists her as an alias; Undo(Follow) ends her follow', async () => {
    expect((await carol.client.post(`/api/v1/accounts/${aliceId}/follow`)).status).toBe(200);
    inst.deps.db.query('UPDATE accounts SET also_known_as = @aka WHERE id = @id').run({ aka: JSON.stringify([alice]), id: bob.accountId });
    await deliver(inst, 'snac/32-move.json');
    const moved = (await carol.client.get(`/api/v1/accounts/${aliceId}`)).body as Account;
    expect(moved.moved?.acct).toBe('bob');
    const rels = (await carol.client.get(`/api/v1/accounts/relationships?id[]=${bob.accountId}&id[]=${aliceId}`)).body as { id: string; following: boolean; requested: boolean }[];
    expect(rels.find((r) => r.id === bob.accountId)?.following).toBe(true);
    expect(rels.find((r) => r.id === aliceId)?.following || rels.find((r) => r.id === aliceId)?.requested).toBe(false);
    await deliver(inst, 'snac/33-undo-follow.json');
    expect((await bob.client.get(`/api/v1/accounts/${bob.accountId}/followers`)).body).toEqual([expect.objectContaining({ acct: 'carol' })]);
  });
  it('rejects a replay outside the time window (real clock), a tampered body and a bad signature, changing nothing', async () => {
    // Last: a failed verification makes Fedify refetch the key, which the offline host cannot serve.
    const before = inst.deps.db.query('SELECT count(*) AS n FROM statuses WHERE local = 0').get();
    const followersBefore = ((await bob.client.get(`/api/v1/accounts/${bob.accountId}/followers`)).body as unknown[]).length;
    const f = fixture('snac/29-get-webfinger-by-actor-url.json').method === 'GET' ? fixture('snac/10-create-note-public.json') : fixture('snac/07-follow.json');
    expect(await replay(inst, f)).toBe(401);
    const post = fixture('snac/10-create-note-public.json');
    setClockTo(Date.parse(post.captured_at));
    expect(await replay(inst, post, post.raw_body.replace('Hello public', 'Tampered public'))).toBeGreaterThanOrEqual(400);
    const sig = headerName(post, 'signature');
    expect(await replay(inst, post, post.raw_body, { [sig]: (post.headers[sig] ?? '').replace(/signature="[A-Za-z0-9+/]{8}/, 'signature="AAAAAAAA') })).toBe(401);
    resetClock();
    await drain(inst);
    expect((await bob.client.get(`/api/v1/accounts/${bob.accountId}/followers`)).body).toHaveLength(followersBefore);
    expect(inst.deps.db.query('SELECT count(*) AS n FROM statuses WHERE local = 0').get()).toEqual(before);
  });

});
