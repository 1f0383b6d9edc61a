import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { download, importAndWait } from './helpers.js';

interface Account { id: string; acct: string }
interface Status { id: string; uri: string }

/**
 * Overwrite mode, as Mastodon's: what the file does not name is removed; merge mode only adds. On
 * a local-only instance, where `user@<the host the client used>` names a local account.
 */
describe('imports: overwrite and merge', () => {
  let inst: TestInstance;
  let me: TestUser;
  let host: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    inst = await startInstance();
    host = new URL(inst.url).host;
    me = await inst.createUser('me');
    for (const name of ['x1', 'x2', 'x3', 'x4', 'b1', 'b2', 'b3', 'm1', 'm2']) ids[name] = (await inst.createUser(name)).accountId;
  });
  afterAll(async () => {
    await inst.close();
  });

  const acctsOf = async (path: string) => ((await me.client.get(path)).body as Account[]).map((a) => a.acct).sort();

  it('follows: removes the follows the file does not name, keeps and adds the others', async () => {
    for (const name of ['x1', 'x2']) expect((await me.client.post(`/api/v1/accounts/${ids[name]}/follow`)).status).toBe(200);
    const done = await importAndWait(me.client, 'following', `Account address,Show boosts,Notify on new posts,Languages\nx2@${host},false,,\n@x3,,,\n`, 'overwrite');
    expect(done).toMatchObject({ mode: 'overwrite', total: 2, imported: 2, failed: 0 });
    expect(await acctsOf(`/api/v1/accounts/${me.accountId}/following`)).toEqual(['x2', 'x3']);
    // The kept follow took the file's options.
    expect(((await me.client.get(`/api/v1/accounts/relationships?id[]=${ids.x2}`)).body as { showing_reblogs: boolean }[])[0]?.showing_reblogs).toBe(false);
    // Merge only adds. A local-only instance is every name it answers at (here the HTTPS listener's).
    expect(await importAndWait(me.client, 'following', 'x4@hearth.localhost:7471\n')).toMatchObject({ imported: 1, failed: 0 });
    expect(await acctsOf(`/api/v1/accounts/${me.accountId}/following`)).toEqual(['x2', 'x3', 'x4']);
  });

  it('blocks, mutes and domain blocks', async () => {
    for (const name of ['b1', 'b2']) await me.client.post(`/api/v1/accounts/${ids[name]}/block`);
    for (const name of ['m1', 'm2']) await me.client.post(`/api/v1/accounts/${ids[name]}/mute`);
    for (const domain of ['d1.example', 'd2.example']) await me.client.post('/api/v1/domain_blocks', { domain });
    await importAndWait(me.client, 'blocks', `b2@${host}\nb3\n`, 'overwrite');
    await importAndWait(me.client, 'mutes', 'Account address,Hide notifications\nm2,false\n', 'overwrite');
    await importAndWait(me.client, 'domain_blocks', 'd2.example\nD3.Example\n', 'overwrite');
    expect(await acctsOf('/api/v1/blocks')).toEqual(['b2', 'b3']);
    expect(await acctsOf('/api/v1/mutes')).toEqual(['m2']);
    expect(((await me.client.get('/api/v1/domain_blocks')).body as string[]).sort()).toEqual(['d2.example', 'd3.example']);
    expect(await download(me.client, 'muted_accounts')).toBe(`Account address,Hide notifications\nm2@${host},false\n`);
  });

  it('bookmarks: by the post’s ActivityPub id or its web address', async () => {
    const author = await inst.createUser('author');
    const posts: Status[] = [];
    for (const text of ['one', 'two', 'three']) posts.push((await author.client.post('/api/v1/statuses', { status: text, visibility: 'public' })).body as Status);
    const [one, two, three] = posts as [Status, Status, Status];
    for (const post of [one, two]) await me.client.post(`/api/v1/statuses/${post.id}/bookmark`);
    await importAndWait(me.client, 'bookmarks', `${two.uri}\n${inst.url}/@author/${three.id}\n`, 'overwrite');
    expect(((await me.client.get('/api/v1/bookmarks')).body as Status[]).map((s) => s.id).sort()).toEqual([two.id, three.id].sort());
  });

  it('lists: deletes the lists the file does not name, refills the others', async () => {
    const make = async (title: string, members: string[]) => {
      const list = (await me.client.post('/api/v1/lists', { title })).body as { id: string };
      expect((await me.client.post(`/api/v1/lists/${list.id}/accounts`, { account_ids: members.map((m) => ids[m]) })).status).toBe(200);
      return list.id;
    };
    await make('old', ['x2']);
    const keep = await make('keep', ['x2', 'x3']);
    const done = await importAndWait(me.client, 'lists', `keep,x3@${host}\nnew,x4\nnew,x1\n`, 'overwrite');
    expect(done).toMatchObject({ total: 3, imported: 3, failed: 0 });
    const lists = (await me.client.get('/api/v1/lists')).body as { id: string; title: string }[];
    expect(lists.map((l) => l.title).sort()).toEqual(['keep', 'new']);
    expect(lists.find((l) => l.title === 'keep')?.id).toBe(keep);
    expect(await acctsOf(`/api/v1/lists/${keep}/accounts`)).toEqual(['x3']);
    // A list member must be followed: x1 was not, and is now (as Mastodon's importer does).
    expect(await acctsOf(`/api/v1/lists/${lists.find((l) => l.title === 'new')?.id}/accounts`)).toEqual(['x1', 'x4']);
    expect(await acctsOf(`/api/v1/accounts/${me.accountId}/following`)).toEqual(['x1', 'x2', 'x3', 'x4']);
  });
});
