import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addInstanceDomain } from '../../api/core/federation/instance-domains.js';
import type { TestUser } from '../helpers/instance.js';
import { FakeRemote, MASTODON_CONTEXT, MISSKEY_CONTEXT, PUBLIC, mastodonPerson, misskeyPerson, type FakeActor } from './fake-remote.js';
import { eventually, startFederated } from './helpers.js';
import { drain } from './replay.js';
import { closeSockets, openSocket } from '../streaming/helpers.js';

type Inst = Awaited<ReturnType<typeof startFederated>>;
interface Media { type: string; description: string | null; blurhash: string | null; remote_url: string | null; meta: { focus?: { x: number; y: number } } | null }
interface Poll { votes_count: number; voters_count: number | null; options: { title: string; votes_count: number | null }[] }
interface Status {
  id: string;
  uri: string;
  url: string | null;
  content: string;
  visibility: string;
  sensitive: boolean;
  language: string | null;
  edited_at: string | null;
  favourites_count: number;
  reblogs_count: number;
  replies_count: number;
  in_reply_to_id: string | null;
  media_attachments: Media[];
  mentions: { acct: string }[];
  tags: { name: string }[];
  emojis: { shortcode: string; url: string }[];
  poll: Poll | null;
  account: { acct: string; id: string };
}
interface Account { emojis: { shortcode: string; url: string }[]; id: string; acct: string; display_name: string; note: string; url: string; bot: boolean; locked: boolean; discoverable: boolean | null; fields: { name: string; value: string }[]; followers_count: number; following_count: number; statuses_count: number; moved?: { acct: string } | null }
interface Notification { type: string; account: { acct: string }; status?: { id: string } | null }
interface Rel { following: boolean; followed_by: boolean; requested: boolean }

const MASTO_ID = 1_100_000_000_000;

describe('inbox: documents written the way Mastodon and Misskey write them, from live fake servers', () => {
  let inst: Inst;
  let masto: FakeRemote;
  let misskey: FakeRemote;
  let blocked: FakeRemote;
  let mona: FakeActor;
  let mona2: FakeActor;
  let dave: FakeActor;
  let miko: FakeActor;
  let eve: FakeActor;
  let alice: TestUser;
  let carol: TestUser;
  let aliceUri = '';
  let alicePost: Status;
  const ids: Record<string, string> = {};
  let seq = MASTO_ID;

  beforeAll(async () => {
    inst = await startFederated('127.0.0.2');
    masto = await FakeRemote.start('127.0.0.5');
    misskey = await FakeRemote.start('127.0.0.6');
    blocked = await FakeRemote.start('127.0.0.7');
    mona = await masto.actor('/users/mona', (a) => mastodonPerson(masto, a, 'mona'));
    mona2 = await masto.actor('/users/mona2', (a) => mastodonPerson(masto, a, 'mona2', { alsoKnownAs: [masto.url('/users/mona')] }));
    dave = await masto.actor('/users/dave', (a) => mastodonPerson(masto, a, 'dave'));
    miko = await misskey.actor('/users/9f3k2a1b0c', (a) => misskeyPerson(misskey, a, 'miko'));
    eve = await blocked.actor('/users/eve', (a) => mastodonPerson(blocked, a, 'eve'));
    alice = await inst.createUser('alice');
    carol = await inst.createUser('carol');
    aliceUri = `${inst.origin}/users/alice`;
    alicePost = (await alice.client.post('/api/v1/statuses', { status: 'alice says hi', visibility: 'public' })).body as Status;
  });
  afterAll(async () => {
    closeSockets();
    await inst.close();
    await Promise.all([masto.close(), misskey.close(), blocked.close()]);
  });

  /** Sends a signed activity and waits until the inbox queue has processed it. */
  async function send(from: FakeActor, activity: Record<string, unknown>, options: Parameters<FakeRemote['send']>[3] = {}): Promise<number> {
    const server = from.id.startsWith(misskey.origin) ? misskey : from.id.startsWith(blocked.origin) ? blocked : masto;
    const status = await server.send(inst.origin, from, activity, options);
    await drain(inst);
    return status;
  }
  async function accountOf(actor: FakeActor, username: string): Promise<Account> {
    const res = await alice.client.get(`/api/v1/accounts/lookup?acct=${encodeURIComponent(`${username}@${new URL(actor.id).host}`)}`);
    expect(res.status).toBe(200);
    return res.body as Account;
  }
  async function statusesOf(accountId: string): Promise<Status[]> {
    return (await alice.client.get(`/api/v1/accounts/${accountId}/statuses`)).body as Status[];
  }
  async function notifications(user = alice): Promise<Notification[]> {
    return (await user.client.get('/api/v1/notifications')).body as Notification[];
  }
  async function aliceStatus(id = alicePost.id): Promise<Status> {
    return (await alice.client.get(`/api/v1/statuses/${id}`)).body as Status;
  }
  /** A Mastodon status (`/users/<name>/statuses/<n>`) wrapped in its Create, addressed publicly. */
  function mastodonCreate(actor: FakeActor, note: Record<string, unknown>): { create: Record<string, unknown>; note: Record<string, unknown> } {
    const n = String(seq++);
    const id = `${actor.id}/statuses/${n}`;
    const username = actor.id.split('/').pop() ?? '';
    const full = {
      id,
      type: 'Note',
      summary: null,
      inReplyTo: null,
      published: new Date().toISOString(),
      url: masto.url(`/@${username}/${n}`),
      attributedTo: actor.id,
      to: [PUBLIC],
      cc: [`${actor.id}/followers`],
      sensitive: false,
      atomUri: id,
      inReplyToAtomUri: null,
      conversation: `tag:${masto.domain},2026-11-22:objectId=${n}:objectType=Conversation`,
      content: '<p>hello</p>',
      contentMap: { en: '<p>hello</p>' },
      attachment: [],
      tag: [],
      replies: { id: `${id}/replies`, type: 'Collection', first: { type: 'CollectionPage', next: `${id}/replies?only_other_accounts=true&page=true`, partOf: `${id}/replies`, items: [] } },
      ...note,
    };
    const create = { '@context': MASTODON_CONTEXT, id: `${id}/activity`, type: 'Create', actor: actor.id, published: full.published, to: full.to, cc: full.cc, object: full };
    return { create, note: full };
  }

  it('Follow of a local user from a Mastodon actor: follower here, Accept delivered to the fake server', async () => {
    const follow = { '@context': 'https://www.w3.org/ns/activitystreams', id: masto.url('/5f1e2d3c-follow-1'), type: 'Follow', actor: mona.id, object: aliceUri };
    expect(await send(mona, follow)).toBe(202);
    const followers = (await alice.client.get(`/api/v1/accounts/${alice.accountId}/followers`)).body as Account[];
    expect(followers.map((a) => a.acct)).toEqual([`mona@${masto.domain}`]);
    const accept = await eventually(() => masto.deliveries('Accept')[0]);
    expect(accept.actor).toBe(aliceUri);
    const object = accept.object as string | { id: string };
    expect(typeof object === 'string' ? object : object.id).toBe(follow.id);
    expect((await notifications()).map((n) => [n.type, n.account.acct])).toContainEqual(['follow', `mona@${masto.domain}`]);
  });

  it('the Mastodon actor: fields, emojis, discoverable, indexable, avatar, header and collections read from its document', async () => {
    const acct = await accountOf(mona, 'mona');
    ids.mona = acct.id;
    expect(acct.display_name).toBe('Mona :blobcat:');
    expect(acct.emojis.map((e) => e.shortcode)).toEqual(['blobcat']);
    expect(acct.emojis[0]?.url).toBeTruthy();
    expect(acct.note).toContain('Painting');
    expect(acct.url).toBe(masto.url('/@mona'));
    expect(acct.fields.map((f) => f.name)).toEqual(['Website', 'Pronouns']);
    expect(acct.fields[0]?.value).toContain('example.org/mona');
    expect(acct.discoverable).toBe(true);
    expect(acct.bot).toBe(false);
    const row = inst.deps.db.query<Record<string, unknown>>('SELECT * FROM accounts WHERE id = @id').get({ id: acct.id });
    expect(row).toMatchObject({
      featured_url: `${mona.id}/collections/featured`,
      featured_tags_url: `${mona.id}/collections/tags`,
      shared_inbox_url: masto.url('/inbox'),
      indexable: 1,
      memorial: 0,
      avatar_remote_url: masto.url('/system/accounts/avatars/mona.png'),
      header_remote_url: masto.url('/system/accounts/headers/mona.jpg'),
    });
  });

  it('Create(Note) from Mastodon: public, with a mention, hashtag and custom emoji, with a focal-pointed attachment', async () => {
    const plain = mastodonCreate(mona, { content: '<p>Just a plain public toot</p>', contentMap: { en: '<p>Just a plain public toot</p>' } });
    expect(await send(mona, plain.create)).toBe(202);
    const tagged = mastodonCreate(mona, {
      content: `<p><span class="h-card" translate="no"><a href="${inst.origin}/@alice" class="u-url mention">@<span>alice</span></a></span> look :blobcat: <a href="${masto.url('/tags/painting')}" class="mention hashtag" rel="tag">#<span>Painting</span></a></p>`,
      cc: [`${mona.id}/followers`, aliceUri],
      sensitive: true,
      summary: 'art cw',
      tag: [
        { type: 'Mention', href: aliceUri, name: `@alice@${inst.domain}` },
        { type: 'Hashtag', href: masto.url('/tags/painting'), name: '#painting' },
        { id: masto.url('/emojis/1'), type: 'Emoji', name: ':blobcat:', updated: '2023-04-01T00:00:00Z', icon: { type: 'Image', mediaType: 'image/png', url: masto.url('/system/custom_emojis/blobcat.png') } },
      ],
      attachment: [
        { type: 'Document', mediaType: 'image/jpeg', url: masto.url('/system/media_attachments/files/1/original/a.jpg'), name: 'A sunflower', blurhash: 'LEHV6nWB2yk8pyo0adR*.7kCMdnj', focalPoint: [0.5, -0.25], width: 1200, height: 800 },
      ],
    });
    expect(await send(mona, tagged.create)).toBe(202);
    const statuses = await statusesOf(ids.mona ?? '');
    expect(statuses.map((s) => s.uri)).toEqual([tagged.note.id, plain.note.id]);
    const s = statuses[0] as Status;
    expect(s).toMatchObject({ visibility: 'public', sensitive: true, language: 'en', url: tagged.note.url });
    expect(s.mentions.map((m) => m.acct)).toEqual(['alice']);
    expect(s.tags.map((t) => t.name)).toEqual(['painting']);
    expect(s.emojis.map((e) => e.shortcode)).toEqual(['blobcat']);
    expect(s.media_attachments).toHaveLength(1);
    expect(s.media_attachments[0]).toMatchObject({ type: 'image', description: 'A sunflower', blurhash: 'LEHV6nWB2yk8pyo0adR*.7kCMdnj' });
    expect(s.media_attachments[0]?.meta?.focus).toEqual({ x: 0.5, y: -0.25 });
    const mention = (await notifications()).find((n) => n.type === 'mention');
    expect(mention?.status?.id).toBe(s.id);
    ids.monaTagged = s.id;
    ids.monaTaggedUri = String(tagged.note.id);
    ids.monaPlainUri = String(plain.note.id);
  });

  it('a Mastodon reply to a local post joins its thread', async () => {
    const reply = mastodonCreate(mona, { inReplyTo: alicePost.uri, content: '<p>nice one</p>', cc: [`${mona.id}/followers`, aliceUri], tag: [{ type: 'Mention', href: aliceUri, name: `@alice@${inst.domain}` }] });
    expect(await send(mona, reply.create)).toBe(202);
    const context = (await alice.client.get(`/api/v1/statuses/${alicePost.id}/context`)).body as { descendants: Status[] };
    expect(context.descendants.map((s) => s.uri)).toEqual([reply.note.id]);
    expect((await aliceStatus()).replies_count).toBe(1);
  });

  it('Misskey: a Note with MFM source and a quote lands; a reaction (Like with _misskey_reaction) is a favourite; EmojiReact changes nothing', async () => {
    const noteId = misskey.url('/notes/9f3k2a1b0d');
    const note = {
      id: noteId,
      type: 'Note',
      attributedTo: miko.id,
      content: '<p><span>hello </span><i>world</i></p>',
      _misskey_content: 'hello $[tada world]',
      source: { content: 'hello $[tada world]', mediaType: 'text/x.misskey.markdown' },
      _misskey_quote: alicePost.uri,
      quoteUrl: alicePost.uri,
      published: new Date().toISOString(),
      to: [PUBLIC],
      cc: [`${miko.id}/followers`],
      inReplyTo: null,
      attachment: [],
      sensitive: false,
      tag: [],
    };
    const create = { '@context': MISSKEY_CONTEXT, id: `${noteId}/activity`, actor: miko.id, type: 'Create', published: note.published, object: note, to: note.to, cc: note.cc };
    expect(await send(miko, create)).toBe(202);
    const mikoAcct = await accountOf(miko, 'miko');
    ids.miko = mikoAcct.id;
    expect(mikoAcct.fields.map((f) => f.name)).toEqual(['Home']);
    const [landed] = await statusesOf(mikoAcct.id);
    expect(landed?.content).toContain('world');
    expect(landed?.uri).toBe(noteId);
    const like = { '@context': MISSKEY_CONTEXT, type: 'Like', id: misskey.url('/likes/9f3k2a1b0e'), actor: miko.id, object: alicePost.uri, content: '👍', _misskey_reaction: '👍' };
    expect(await send(miko, like)).toBe(202);
    expect((await aliceStatus()).favourites_count).toBe(1);
    expect((await notifications()).map((n) => [n.type, n.account.acct])).toContainEqual(['favourite', `miko@${misskey.domain}`]);
    const react = { '@context': ['https://www.w3.org/ns/activitystreams', { litepub: 'http://litepub.social/ns#', EmojiReact: 'litepub:EmojiReact' }], type: 'EmojiReact', id: misskey.url('/reactions/1'), actor: miko.id, object: alicePost.uri, content: '🍮' };
    expect(await send(miko, react)).toBe(202);
    expect((await aliceStatus()).favourites_count).toBe(1);
  });

  it('Announce from Mastodon of a local post is a reblog and a notification', async () => {
    const announce = { '@context': 'https://www.w3.org/ns/activitystreams', id: `${mona.id}/statuses/${seq++}/activity`, type: 'Announce', actor: mona.id, published: new Date().toISOString(), to: [PUBLIC], cc: [aliceUri, `${mona.id}/followers`], object: alicePost.uri };
    expect(await send(mona, announce)).toBe(202);
    expect((await aliceStatus()).reblogs_count).toBe(1);
    expect((await notifications()).map((n) => [n.type, n.account.acct])).toContainEqual(['reblog', `mona@${masto.domain}`]);
  });

  it('Update(Note) from Mastodon edits with history; Delete(Tombstone) removes', async () => {
    const uri = ids.monaPlainUri ?? '';
    const n = uri.split('/').pop() ?? '';
    const edited = { id: uri, type: 'Note', attributedTo: mona.id, to: [PUBLIC], cc: [`${mona.id}/followers`], published: new Date(Date.now() - 60_000).toISOString(), updated: new Date().toISOString(), url: masto.url(`/@mona/${n}`), content: '<p>Just an edited public toot</p>', contentMap: { en: '<p>Just an edited public toot</p>' }, sensitive: false, atomUri: uri, tag: [], attachment: [] };
    const update = { '@context': MASTODON_CONTEXT, id: `${uri}#updates/${Math.floor(Date.now() / 1000)}`, type: 'Update', actor: mona.id, published: edited.updated, to: edited.to, cc: edited.cc, object: edited };
    expect(await send(mona, update)).toBe(202);
    const status = (await statusesOf(ids.mona ?? '')).find((s) => s.uri === uri);
    expect(status?.content).toContain('edited');
    expect(status?.edited_at).not.toBeNull();
    expect(((await alice.client.get(`/api/v1/statuses/${status?.id}/history`)).body as unknown[]).length).toBe(2);
    const del = { '@context': MASTODON_CONTEXT, id: `${uri}#delete`, type: 'Delete', actor: mona.id, to: [PUBLIC], object: { id: uri, type: 'Tombstone', atomUri: uri } };
    expect(await send(mona, del)).toBe(202);
    expect((await statusesOf(ids.mona ?? '')).map((s) => s.uri)).not.toContain(uri);
    expect((await alice.client.get(`/api/v1/statuses/${status?.id}`)).status).toBe(404);
  });

  it('Misskey Question with _misskey_votes becomes a poll; the tally Update moves the counts without an edit', async () => {
    const qid = misskey.url('/notes/9f3k2a1b0f');
    const choice = (name: string, votes: number) => ({ type: 'Note', name, replies: { type: 'Collection', totalItems: votes }, _misskey_votes: votes });
    const question = (votes: [number, number]) => ({
      id: qid,
      type: 'Question',
      attributedTo: miko.id,
      content: '<p>cats or dogs?</p>',
      _misskey_content: 'cats or dogs?',
      source: { content: 'cats or dogs?', mediaType: 'text/x.misskey.markdown' },
      published: new Date(Date.now() - 1000).toISOString(),
      to: [PUBLIC],
      cc: [`${miko.id}/followers`],
      attachment: [],
      sensitive: false,
      tag: [],
      endTime: new Date(Date.now() + 86_400_000).toISOString(),
      oneOf: [choice('cats', votes[0]), choice('dogs', votes[1])],
    });
    expect(await send(miko, { '@context': MISSKEY_CONTEXT, id: `${qid}/activity`, actor: miko.id, type: 'Create', object: question([0, 0]), to: [PUBLIC], cc: [`${miko.id}/followers`] })).toBe(202);
    const poll = async () => (await statusesOf(ids.miko ?? '')).find((s) => s.uri === qid);
    expect((await poll())?.poll?.options.map((o) => [o.title, o.votes_count])).toEqual([['cats', 0], ['dogs', 0]]);
    const update = { '@context': MISSKEY_CONTEXT, id: `${miko.id}#updates/${Date.now()}`, type: 'Update', actor: miko.id, to: [PUBLIC], object: question([3, 1]), published: new Date().toISOString() };
    expect(await send(miko, update)).toBe(202);
    const tallied = await poll();
    expect(tallied?.poll?.options.map((o) => o.votes_count)).toEqual([3, 1]);
    expect(tallied?.poll?.votes_count).toBe(4);
    expect(tallied?.edited_at).toBeNull();
  });

  it('Update(Person) from Mastodon refreshes the profile; Move to an account aliasing it moves local followers', async () => {
    const doc = mastodonPerson(masto, mona, 'mona', { name: 'Mona Renamed', attachment: [{ type: 'PropertyValue', name: 'Studio', value: 'Florence' }] });
    masto.serve('/users/mona', doc);
    const update = { '@context': MASTODON_CONTEXT, id: `${mona.id}#updates/${Date.now()}`, type: 'Update', actor: mona.id, to: [PUBLIC], object: doc };
    expect(await send(mona, update)).toBe(202);
    const renamed = (await alice.client.get(`/api/v1/accounts/${ids.mona}`)).body as Account;
    expect(renamed.display_name).toBe('Mona Renamed');
    expect(renamed.fields.map((f) => [f.name, f.value])).toEqual([['Studio', 'Florence']]);
    // carol follows mona; the fake server accepts her Follow (signed by mona).
    expect(((await carol.client.post(`/api/v1/accounts/${ids.mona}/follow`)).body as Rel).requested).toBe(true);
    const follow = await eventually(() => masto.deliveries('Follow').find((f) => f.actor === `${inst.origin}/users/carol`));
    expect(await send(mona, { '@context': 'https://www.w3.org/ns/activitystreams', id: `${mona.id}#accepts/follows/1`, type: 'Accept', actor: mona.id, object: follow })).toBe(202);
    expect(((await carol.client.get(`/api/v1/accounts/relationships?id[]=${ids.mona}`)).body as Rel[])[0]?.following).toBe(true);
    const move = { '@context': 'https://www.w3.org/ns/activitystreams', id: `${mona.id}#moves/1`, type: 'Move', actor: mona.id, object: mona.id, target: mona2.id };
    expect(await send(mona, move)).toBe(202);
    const moved = (await carol.client.get(`/api/v1/accounts/${ids.mona}`)).body as Account;
    expect(moved.moved?.acct).toBe(`mona2@${masto.domain}`);
    const mona2Acct = await accountOf(mona2, 'mona2');
    const rels = (await carol.client.get(`/api/v1/accounts/relationships?id[]=${mona2Acct.id}&id[]=${ids.mona}`)).body as Rel[];
    expect(rels.map((r) => r.following || r.requested)).toEqual([true, false]);
  });

  it('an RFC 9421 signed delivery (Misskey Note) is verified and processed', async () => {
    const noteId = misskey.url('/notes/9f3k2a1b1a');
    const note = { id: noteId, type: 'Note', attributedTo: miko.id, content: '<p>signed the new way</p>', _misskey_content: 'signed the new way', published: new Date().toISOString(), to: [PUBLIC], cc: [`${miko.id}/followers`], tag: [], attachment: [], sensitive: false };
    expect(await send(miko, { '@context': MISSKEY_CONTEXT, id: `${noteId}/activity`, actor: miko.id, type: 'Create', object: note, to: note.to, cc: note.cc }, { spec: 'rfc9421' })).toBe(202);
    expect((await statusesOf(ids.miko ?? '')).map((s) => s.uri)).toContain(noteId);
  });

  it('forged: a Digest that does not match, a key owned by another actor, a blocked domain: each changes nothing', async () => {
    const countRemote = () => inst.deps.db.query<{ n: number }>('SELECT count(*) AS n FROM statuses WHERE local = 0').get()?.n;
    const before = countRemote();
    const forgedNote = (actor: FakeActor, n: string) => {
      const id = `${actor.id}/statuses/${n}`;
      return { '@context': MASTODON_CONTEXT, id: `${id}/activity`, type: 'Create', actor: actor.id, to: [PUBLIC], object: { id, type: 'Note', attributedTo: actor.id, to: [PUBLIC], content: '<p>forged</p>', published: new Date().toISOString() } };
    };
    // The signature covers the Digest header, which describes other bytes than the body sent.
    expect(await send(miko, { ...forgedNote(miko, '1'), id: misskey.url('/notes/forged-digest/activity') }, { badDigest: true })).toBeGreaterThanOrEqual(400);
    // Validly signed, but with mona2's key for an activity of dave's.
    expect(await send(dave, forgedNote(dave, '2'), { signAs: mona2 })).toBe(401);
    addInstanceDomain(inst.deps, 'block', blocked.domain);
    const follow = { '@context': 'https://www.w3.org/ns/activitystreams', id: blocked.url('/follows/1'), type: 'Follow', actor: eve.id, object: aliceUri };
    expect(await send(eve, follow)).toBe(401);
    expect(await send(eve, forgedNote(eve, '3'))).toBe(401);
    // Refused before any key or actor was fetched from the blocked host.
    expect(blocked.received.filter((r) => r.method === 'GET')).toEqual([]);
    expect(countRemote()).toBe(before);
    expect(((await alice.client.get(`/api/v1/accounts/${alice.accountId}/followers`)).body as Account[]).map((a) => a.acct)).not.toContain(`eve@${blocked.domain}`);
    expect((await alice.client.get(`/api/v1/accounts/lookup?acct=${encodeURIComponent(`eve@${blocked.domain}`)}`)).status).toBe(404);
    expect((await alice.client.get(`/api/v1/accounts/lookup?acct=${encodeURIComponent(`dave@${masto.domain}`)}`)).status).toBe(404);
  });

  describe('Delete of an actor (Mastodon account deletion), verified with the cached key while the actor answers 410', () => {
    let daveId = '';
    let daveStatus: Status;
    let daveReply: Status;
    let poll: Status;
    const counts = async () => {
      const a = (await alice.client.get(`/api/v1/accounts/${alice.accountId}`)).body as Account;
      const c = (await carol.client.get(`/api/v1/accounts/${carol.accountId}`)).body as Account;
      const s = await aliceStatus();
      const p = await aliceStatus(poll.id);
      return { followers: a.followers_count, following: a.following_count, carolStatuses: c.statuses_count, favourites: s.favourites_count, reblogs: s.reblogs_count, replies: s.replies_count, votes: p.poll?.votes_count };
    };

    beforeAll(async () => {
      poll = (await alice.client.post('/api/v1/statuses', { status: 'yes or no?', visibility: 'public', poll: { options: ['yes', 'no'], expires_in: 3600 } })).body as Status;
    });

    it('dave follows alice, is followed back, posts, favourites, reblogs, replies and votes', async () => {
      expect(await send(dave, { '@context': 'https://www.w3.org/ns/activitystreams', id: masto.url('/follows/dave-1'), type: 'Follow', actor: dave.id, object: aliceUri })).toBe(202);
      daveId = (await accountOf(dave, 'dave')).id;
      expect(((await alice.client.post(`/api/v1/accounts/${daveId}/follow`)).body as Rel).requested).toBe(true);
      const follow = await eventually(() => masto.deliveries('Follow').find((f) => f.actor === aliceUri && f.object === dave.id));
      expect(await send(dave, { '@context': 'https://www.w3.org/ns/activitystreams', id: `${dave.id}#accepts/follows/1`, type: 'Accept', actor: dave.id, object: follow })).toBe(202);
      const post = mastodonCreate(dave, { content: `<p>@alice hello from dave</p>`, cc: [`${dave.id}/followers`, aliceUri], tag: [{ type: 'Mention', href: aliceUri, name: `@alice@${inst.domain}` }], attachment: [{ type: 'Document', mediaType: 'image/png', url: masto.url('/system/media/dave.png'), name: null, blurhash: 'LEHV6nWB2yk8pyo0adR*.7kCMdnj' }] });
      expect(await send(dave, post.create)).toBe(202);
      daveStatus = (await statusesOf(daveId))[0] as Status;
      expect((await alice.client.post(`/api/v1/statuses/${daveStatus.id}/favourite`)).status).toBe(200);
      expect((await alice.client.post(`/api/v1/statuses/${daveStatus.id}/bookmark`)).status).toBe(200);
      expect((await carol.client.post(`/api/v1/statuses/${daveStatus.id}/reblog`)).status).toBe(200);
      const before = await counts();
      expect(await send(dave, { '@context': MISSKEY_CONTEXT, type: 'Like', id: masto.url('/users/dave#likes/1'), actor: dave.id, object: alicePost.uri })).toBe(202);
      expect(await send(dave, { '@context': 'https://www.w3.org/ns/activitystreams', id: `${dave.id}/statuses/${seq++}/activity`, type: 'Announce', actor: dave.id, to: [PUBLIC], cc: [aliceUri], object: alicePost.uri })).toBe(202);
      expect(await send(dave, mastodonCreate(dave, { inReplyTo: alicePost.uri, content: '<p>a reply from dave</p>' }).create)).toBe(202);
      daveReply = (await statusesOf(daveId)).find((s) => s.in_reply_to_id === alicePost.id) as Status;
      expect(daveReply.mentions).toEqual([]);
      const vote = { id: `${dave.id}#votes/1`, type: 'Note', name: 'yes', attributedTo: dave.id, to: aliceUri, inReplyTo: poll.uri };
      expect(await send(dave, { '@context': MASTODON_CONTEXT, id: `${dave.id}#votes/1/activity`, type: 'Create', actor: dave.id, to: aliceUri, object: vote })).toBe(202);
      expect(await counts()).toEqual({ ...before, favourites: before.favourites + 1, reblogs: before.reblogs + 1, replies: before.replies + 1, votes: 1 });
      expect((await notifications()).filter((n) => n.account.acct === `dave@${masto.domain}`).map((n) => n.type).sort()).toEqual(['favourite', 'follow', 'mention', 'reblog']);
    });

    it('the Delete removes the account (404), its statuses, follows both ways, interactions, notifications and votes, with counters right', async () => {
      const before = await counts();
      expect(((await alice.client.get('/api/v1/timelines/home')).body as Status[]).map((s) => s.id)).toContain(daveStatus.id);
      const stream = await openSocket(inst, alice.token, { query: 'stream=user' });
      masto.gone('/users/dave');
      const del = { '@context': MASTODON_CONTEXT, id: `${dave.id}#delete`, type: 'Delete', actor: dave.id, to: [PUBLIC], object: dave.id };
      expect(await send(dave, del)).toBe(202);
      expect((await alice.client.get(`/api/v1/accounts/${daveId}`)).status).toBe(404);
      expect((await alice.client.get(`/api/v1/statuses/${daveStatus.id}`)).status).toBe(404);
      // alice followed dave: her stream hears of his statuses going, as for a single Delete (the
      // reply does not mention her: she hears of it as his follower).
      await stream.next((e) => e.event === 'delete' && e.raw === daveStatus.id);
      await stream.next((e) => e.event === 'delete' && e.raw === daveReply.id);
      expect(await counts()).toEqual({ followers: before.followers - 1, following: before.following - 1, carolStatuses: before.carolStatuses - 1, favourites: before.favourites - 1, reblogs: before.reblogs - 1, replies: before.replies - 1, votes: 0 });
      expect((await notifications()).filter((n) => n.account.acct === `dave@${masto.domain}`)).toEqual([]);
      expect((await alice.client.get('/api/v1/bookmarks')).body).toEqual([]);
      expect(((await alice.client.get('/api/v1/favourites')).body as Status[]).map((s) => s.id)).not.toContain(daveStatus.id);
      expect(((await carol.client.get(`/api/v1/accounts/${carol.accountId}/statuses`)).body as Status[]).length).toBe(0);
      expect(((await alice.client.get('/api/v1/timelines/home')).body as Status[]).map((s) => s.account.acct)).not.toContain(`dave@${masto.domain}`);
      const left = inst.deps.db
        .query<{ n: number }>(
          `SELECT (SELECT count(*) FROM statuses WHERE account_id = @id) + (SELECT count(*) FROM media_attachments WHERE account_id = @id)
           + (SELECT count(*) FROM follows WHERE account_id = @id OR target_account_id = @id) + (SELECT count(*) FROM notifications WHERE from_account_id = @id)
           + (SELECT count(*) FROM mentions WHERE account_id = @id) + (SELECT count(*) FROM poll_votes WHERE account_id = @id) + (SELECT count(*) FROM favourites WHERE account_id = @id) AS n`,
        )
        .get({ id: daveId });
      expect(left?.n).toBe(0);
    });

    it('a Delete from an actor whose key was never cached and is gone (410) is refused by the signature check', async () => {
      const ghost = await masto.actor('/users/ghost', (a) => mastodonPerson(masto, a, 'ghost'));
      masto.gone('/users/ghost');
      expect(await send(ghost, { '@context': MASTODON_CONTEXT, id: `${ghost.id}#delete`, type: 'Delete', actor: ghost.id, to: [PUBLIC], object: ghost.id })).toBe(401);
    });

    it('what the deleted actor sends later (signed with the same key) does not bring it back, even if its document is served again', async () => {
      masto.serve('/users/dave', mastodonPerson(masto, dave, 'dave'));
      expect(await send(dave, mastodonCreate(dave, { content: '<p>back from the dead</p>' }).create)).toBe(202);
      expect(await send(dave, { '@context': 'https://www.w3.org/ns/activitystreams', id: masto.url('/follows/dave-2'), type: 'Follow', actor: dave.id, object: aliceUri })).toBe(202);
      expect((await alice.client.get(`/api/v1/accounts/lookup?acct=${encodeURIComponent(`dave@${masto.domain}`)}`)).status).toBe(404);
      expect(inst.deps.db.query<{ n: number }>('SELECT count(*) AS n FROM accounts WHERE uri = @uri').get({ uri: dave.id })?.n).toBe(0);
    });
  });
});
