import { describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';

describe('allowed_mentions on POST /api/v1/statuses', () => {
  const env = useInstance(['alice', 'bob', 'carol']);

  async function count(client: { get: (p: string) => Promise<{ body: unknown[] }> }, accountId: string): Promise<number> {
    return (await client.get(`/api/v1/accounts/${accountId}/statuses`)).body.length;
  }

  it('posts when every mention is expected', async () => {
    const { users } = env();
    const res = await users.alice.client.post('/api/v1/statuses', { status: 'Hi @bob', allowed_mentions: [users.bob.accountId] });
    expect(res.status, res.text).toBe(200);
    expect(res.body.mentions.map((m: { id: string }) => m.id)).toEqual([users.bob.accountId]);
    // Listing more than the text mentions is fine.
    const more = await users.alice.client.post('/api/v1/statuses', { status: 'Hi @bob', allowed_mentions: [users.bob.accountId, users.carol.accountId] });
    expect(more.status).toBe(200);
  });

  it('refuses a status that would reach someone unexpected, naming them, and posts nothing', async () => {
    const { users } = env();
    const before = await count(users.alice.client, users.alice.accountId);
    const res = await users.alice.client.post('/api/v1/statuses', { status: 'Hi @bob and @carol', visibility: 'direct', allowed_mentions: [users.bob.accountId] });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('Post would be sent to unexpected accounts');
    expect(res.body.unexpected_accounts.map((a: { id: string; acct: string }) => [a.id, a.acct])).toEqual([[users.carol.accountId, 'carol']]);
    expect(await count(users.alice.client, users.alice.accountId)).toBe(before);
    // An empty list expects nobody; a status without mentions passes it.
    const empty = await users.alice.client.post('/api/v1/statuses', { status: '@bob psst', allowed_mentions: [] });
    expect(empty.status).toBe(422);
    expect(empty.body.unexpected_accounts.map((a: { id: string }) => a.id)).toEqual([users.bob.accountId]);
    expect((await users.alice.client.post('/api/v1/statuses', { status: 'Nobody named', allowed_mentions: [] })).status).toBe(200);
  });

  it('reads form bodies and content warnings as posting does, and leaves other requests alone', async () => {
    const { users } = env();
    const form = await users.alice.client.post('/api/v1/statuses', undefined, {
      form: { status: 'Hello @carol', 'allowed_mentions[]': [users.bob.accountId] },
    });
    expect(form.status).toBe(422);
    expect(form.body.unexpected_accounts.map((a: { id: string }) => a.id)).toEqual([users.carol.accountId]);
    // A status with only a content warning posts the warning as its text: its mentions count.
    const cw = await users.alice.client.post('/api/v1/statuses', { spoiler_text: 'about @carol', allowed_mentions: [] });
    expect(cw.status).toBe(422);
    // Without allowed_mentions nothing is checked.
    expect((await users.alice.client.post('/api/v1/statuses', { status: 'Hi @carol' })).status).toBe(200);
    // As in Mastodon, a scheduled status is not checked.
    const scheduled = await users.alice.client.post('/api/v1/statuses', {
      status: 'Later @carol',
      allowed_mentions: [],
      scheduled_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(scheduled.status).toBe(200);
    expect(scheduled.body.scheduled_at).toBeDefined();
  });
});
