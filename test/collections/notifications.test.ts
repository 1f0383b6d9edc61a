import { describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';
import { count } from '../suggestions/helpers.js';

interface Notification {
  id: string;
  type: string;
  group_key: string;
  account: { id: string };
  collection?: { id: string; name: string; account_id: string };
}

// Mastodon 4.6: a local account featured in someone's collection gets an `added_to_collection`
// notification from the curator, carrying the Collection.
describe('added_to_collection notifications', () => {
  const env = useInstance(['alice', 'bob', 'carol']);

  async function collectionNotes(name: 'bob' | 'carol'): Promise<Notification[]> {
    const res = await env().users[name].client.get('/api/v1/notifications?types[]=added_to_collection');
    expect(res.status).toBe(200);
    return res.body as Notification[];
  }

  it('tells an account added to a collection, on creation and when added later', async () => {
    const { users } = env();
    for (const n of ['bob', 'carol'] as const) {
      expect((await users[n].client.patch('/api/v1/accounts/update_credentials', { discoverable: true })).status).toBe(200);
    }
    const created = await users.alice.client.post('/api/v1/collections', { name: 'Good people', account_ids: [users.bob.accountId] });
    expect(created.status, created.text).toBe(200);
    const collectionId = created.body.collection.id as string;

    const [first, ...rest] = await collectionNotes('bob');
    expect(rest).toEqual([]);
    expect(first).toMatchObject({
      type: 'added_to_collection',
      group_key: `ungrouped-${first?.id}`,
      account: { id: users.alice.accountId },
      collection: { id: collectionId, name: 'Good people', account_id: users.alice.accountId },
    });
    expect(await collectionNotes('carol')).toEqual([]);

    const added = await users.alice.client.post(`/api/v1/collections/${collectionId}/items`, { account_id: users.carol.accountId });
    expect(added.status, added.text).toBe(200);
    const carols = await collectionNotes('carol');
    expect(carols).toHaveLength(1);
    expect(carols[0]).toMatchObject({ type: 'added_to_collection', account: { id: users.alice.accountId }, collection: { id: collectionId } });
    // One notification, also shown singly, and the curator hears nothing of their own action.
    const one = await users.carol.client.get(`/api/v1/notifications/${carols[0]?.id}`);
    expect(one.body.collection.id).toBe(collectionId);
    expect((await users.alice.client.get('/api/v1/notifications?types[]=added_to_collection')).body).toEqual([]);

    // The grouped API lists it too (ungrouped).
    const grouped = await users.carol.client.get('/api/v2/notifications?types[]=added_to_collection');
    expect(grouped.body.notification_groups).toMatchObject([{ type: 'added_to_collection', sample_account_ids: [users.alice.accountId] }]);
  });

  it('tells again an account added to a second collection by the same curator; deleting a collection takes its notification', async () => {
    const { users } = env();
    const second = await users.alice.client.post('/api/v1/collections', { name: 'More good people', account_ids: [users.bob.accountId] });
    expect(second.status).toBe(200);
    const notes = await collectionNotes('bob');
    expect(notes.map((n) => n.collection?.name)).toEqual(['More good people', 'Good people']);

    expect((await users.alice.client.delete(`/api/v1/collections/${second.body.collection.id}`)).status).toBe(200);
    expect((await collectionNotes('bob')).map((n) => n.collection?.name)).toEqual(['Good people']);
  });

  it('sends nothing when the featured account blocks the curator (it cannot be featured)', async () => {
    const { inst, users } = env();
    const stored = (): number => count(inst, 'notifications', `account_id = ${users.carol.accountId} AND type = 'added_to_collection'`);
    expect((await users.carol.client.post(`/api/v1/accounts/${users.alice.accountId}/block`)).status).toBe(200);
    // (A block takes away the blocked account's earlier notifications, as Mastodon does.)
    const before = stored();
    const blocked = await users.alice.client.post('/api/v1/collections', { name: 'Nope', account_ids: [users.carol.accountId] });
    expect(blocked.status).toBe(403);
    expect(stored()).toBe(before);
  });
});
