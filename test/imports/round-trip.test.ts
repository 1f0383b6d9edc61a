import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestUser } from '../helpers/instance.js';
import { eventually, freePort, startFederated } from '../federation/helpers.js';
import { download, failuresOf, importAndWait } from './helpers.js';

type Inst = Awaited<ReturnType<typeof startFederated>>;
interface Account { id: string; acct: string }
interface Status { id: string; uri: string; content: string }
interface Relationship { id: string; following: boolean; requested: boolean; showing_reblogs: boolean; notifying: boolean; languages: string[] | null; blocking: boolean; muting: boolean; muting_notifications: boolean }

/**
 * Moving house between two instances: alice on A exports her follows, lists, blocks, mutes, domain
 * blocks and bookmarks, and bob on B imports them. The accounts named live on a third instance R
 * and on A itself (local there, remote for B), all real instances federating on loopback, so the
 * import resolves them over WebFinger and its follows federate.
 */
describe('moving house: export from one instance, import into another', () => {
  let a: Inst;
  let b: Inst;
  let r: Inst;
  let alice: TestUser;
  let bob: TestUser;
  let rita: TestUser;
  let carol: TestUser;
  let ritaPost: Status;
  let carolPost: Status;
  const files: Record<string, string> = {};

  beforeAll(async () => {
    [a, b, r] = await Promise.all([startFederated('127.0.0.2'), startFederated('127.0.0.3'), startFederated('127.0.0.4')]);
    alice = await a.createUser('alice');
    carol = await a.createUser('carol');
    await a.createUser('mo');
    bob = await b.createUser('bob');
    rita = await r.createUser('rita');
    await r.createUser('sam');
    ritaPost = (await rita.client.post('/api/v1/statuses', { status: 'rita says hello', visibility: 'public' })).body as Status;
    carolPost = (await carol.client.post('/api/v1/statuses', { status: 'carol says hello', visibility: 'public' })).body as Status;
  }, 120_000);
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close(), r?.close()]);
  });

  /** The id on A of an account found by handle (resolving remote ones). */
  async function onA(handle: string): Promise<string> {
    const res = await alice.client.get(`/api/v2/search?q=${encodeURIComponent(handle)}&resolve=true&type=accounts`);
    const found = (res.body as { accounts: Account[] }).accounts.find((x) => x.acct === handle.replace(`@${a.domain}`, ''));
    expect(found, handle).toBeDefined();
    return found?.id ?? '';
  }

  it('exports what alice has on A in Mastodon’s formats', async () => {
    const ritaId = await onA(`rita@${r.domain}`);
    const samId = await onA(`sam@${r.domain}`);
    const carolId = carol.accountId;
    const moId = await onA('mo');
    expect((await alice.client.post(`/api/v1/accounts/${ritaId}/follow`, { reblogs: false, notify: true, languages: ['en', 'fr'] })).status).toBe(200);
    await eventually(async () => ((await alice.client.get(`/api/v1/accounts/relationships?id[]=${ritaId}`)).body as Relationship[])[0]?.following, 60_000);
    expect((await alice.client.post(`/api/v1/accounts/${carolId}/follow`)).status).toBe(200);
    const list = (await alice.client.post('/api/v1/lists', { title: 'Friends, "close"' })).body as { id: string };
    expect((await alice.client.post(`/api/v1/lists/${list.id}/accounts`, { account_ids: [ritaId, carolId] })).status).toBe(200);
    expect((await alice.client.post(`/api/v1/accounts/${samId}/block`)).status).toBe(200);
    expect((await alice.client.post(`/api/v1/accounts/${moId}/mute`, { notifications: false })).status).toBe(200);
    expect((await alice.client.post('/api/v1/domain_blocks', { domain: 'spam.example' })).status).toBe(200);
    const found = await alice.client.get(`/api/v2/search?q=${encodeURIComponent(ritaPost.uri)}&resolve=true&type=statuses`);
    const ritaPostOnA = (found.body as { statuses: Status[] }).statuses[0];
    expect((await alice.client.post(`/api/v1/statuses/${ritaPostOnA?.id}/bookmark`)).status).toBe(200);
    expect((await alice.client.post(`/api/v1/statuses/${carolPost.id}/bookmark`)).status).toBe(200);

    for (const file of ['following_accounts', 'lists', 'blocked_accounts', 'muted_accounts', 'blocked_domains', 'bookmarks']) files[file] = await download(alice.client, file);
    expect(files.following_accounts).toBe(
      ['Account address,Show boosts,Notify on new posts,Languages', `carol@${a.domain},true,false,`, `rita@${r.domain},false,true,"en, fr"`, ''].join('\n'),
    );
    expect((files.lists ?? '').split('\n').sort()).toEqual(['', `"Friends, ""close""",carol@${a.domain}`, `"Friends, ""close""",rita@${r.domain}`]);
    expect(files.blocked_accounts).toBe(`sam@${r.domain}\n`);
    expect(files.muted_accounts).toBe(`Account address,Hide notifications\nmo@${a.domain},false\n`);
    expect(files.blocked_domains).toBe('spam.example\n');
    expect(files.bookmarks).toBe(`${carolPost.uri}\n${ritaPost.uri}\n`);
  }, 120_000);

  it('imports the follows into B: remote follows federate, options carry over, unresolvable rows are reported', async () => {
    const dead = `127.0.0.9:${await freePort('127.0.0.9')}`;
    const csv = `${files.following_accounts}ghost@${r.domain},true,false,\nnobody@${dead},true,false,\n`;
    const done = await importAndWait(bob.client, 'following', csv, undefined, 60_000);
    expect(done).toMatchObject({ type: 'following', mode: 'merge', state: 'finished', total: 4, processed: 4, imported: 2, failed: 2 });
    expect(done.finished_at).not.toBeNull();
    expect(await failuresOf(bob.client, done.id)).toEqual([
      { line: 4, value: `ghost@${r.domain}`, reason: 'account_not_found', message: `${r.domain} has no account ghost@${r.domain}` },
      { line: 5, value: `nobody@${dead}`, reason: 'domain_unreachable', message: `Could not reach ${dead}` },
    ]);
    // Follows of remote accounts are requests until the other side accepts: both did.
    await eventually(async () => ((await bob.client.get(`/api/v1/accounts/${bob.accountId}/following`)).body as Account[]).length === 2, 60_000);
    const ritaOnB = (await bob.client.get(`/api/v1/accounts/lookup?acct=${encodeURIComponent(`rita@${r.domain}`)}`)).body as Account;
    const rel = ((await bob.client.get(`/api/v1/accounts/relationships?id[]=${ritaOnB.id}`)).body as Relationship[])[0];
    expect(rel).toMatchObject({ following: true, showing_reblogs: false, notifying: true, languages: ['en', 'fr'] });
    // The follow reached R: bob is rita's follower there.
    const followers = (await rita.client.get(`/api/v1/accounts/${rita.accountId}/followers`)).body as Account[];
    expect(followers.map((x) => x.acct)).toContain(`bob@${b.domain}`);
  }, 120_000);

  it('imports the list with its title and members', async () => {
    const done = await importAndWait(bob.client, 'lists', files.lists ?? '');
    expect(done).toMatchObject({ total: 2, imported: 2, failed: 0 });
    const lists = (await bob.client.get('/api/v1/lists')).body as { id: string; title: string }[];
    expect(lists.map((l) => l.title)).toEqual(['Friends, "close"']);
    const members = (await bob.client.get(`/api/v1/lists/${lists[0]?.id}/accounts`)).body as Account[];
    expect(members.map((m) => m.acct).sort()).toEqual([`carol@${a.domain}`, `rita@${r.domain}`]);
  });

  it('imports blocks, mutes (with their notification setting) and domain blocks', async () => {
    expect(await importAndWait(bob.client, 'blocks', files.blocked_accounts ?? '')).toMatchObject({ total: 1, imported: 1 });
    expect(await importAndWait(bob.client, 'mutes', files.muted_accounts ?? '')).toMatchObject({ total: 1, imported: 1 });
    expect(await importAndWait(bob.client, 'domain_blocks', files.blocked_domains ?? '')).toMatchObject({ total: 1, imported: 1 });
    const sam = (await bob.client.get(`/api/v1/accounts/lookup?acct=${encodeURIComponent(`sam@${r.domain}`)}`)).body as Account;
    const mo = (await bob.client.get(`/api/v1/accounts/lookup?acct=${encodeURIComponent(`mo@${a.domain}`)}`)).body as Account;
    const rels = (await bob.client.get(`/api/v1/accounts/relationships?id[]=${sam.id}&id[]=${mo.id}`)).body as Relationship[];
    expect(rels.find((x) => x.id === sam.id)).toMatchObject({ blocking: true, muting: false });
    expect(rels.find((x) => x.id === mo.id)).toMatchObject({ blocking: false, muting: true, muting_notifications: false });
    expect((await bob.client.get('/api/v1/domain_blocks')).body).toEqual(['spam.example']);
  });

  it('imports bookmarks of posts on other servers by their URL', async () => {
    const done = await importAndWait(bob.client, 'bookmarks', `${files.bookmarks}${r.origin}/users/rita/statuses/1\n`);
    expect(done).toMatchObject({ total: 3, imported: 2, failed: 1 });
    expect((await failuresOf(bob.client, done.id)).map((f) => [f.line, f.reason])).toEqual([[3, 'status_not_found']]);
    const bookmarks = (await bob.client.get('/api/v1/bookmarks')).body as Status[];
    expect(bookmarks.map((s) => s.uri).sort()).toEqual([carolPost.uri, ritaPost.uri].sort());
  });

  it('exports the same files from B (the move out again)', async () => {
    expect(await download(bob.client, 'blocked_accounts')).toBe(files.blocked_accounts);
    expect(await download(bob.client, 'muted_accounts')).toBe(files.muted_accounts);
    expect(await download(bob.client, 'blocked_domains')).toBe(files.blocked_domains);
    const following = (await download(bob.client, 'following_accounts')).split('\n').sort();
    expect(following).toEqual((files.following_accounts ?? '').split('\n').sort());
  });
});
