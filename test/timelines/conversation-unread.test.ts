import { describe, expect, it } from 'vitest';
import { createRestAPIClient } from 'masto';
import { postStatus as post, useInstance } from '../helpers/fixtures.js';

describe('POST /api/v1/conversations/:id/unread', () => {
  const env = useInstance(['alice', 'bob', 'carol']);

  it('marks a read conversation unread again, for its owner only', async () => {
    const { users } = env();
    await post(users.alice.client, { status: '@bob a secret', visibility: 'direct' });
    const [conversation] = (await users.bob.client.get('/api/v1/conversations')).body;
    expect(conversation.unread).toBe(true);
    expect((await users.bob.client.post(`/api/v1/conversations/${conversation.id}/read`)).body.unread).toBe(false);

    const res = await users.bob.client.post(`/api/v1/conversations/${conversation.id}/unread`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: conversation.id, unread: true });
    expect((await users.bob.client.get('/api/v1/conversations')).body[0].unread).toBe(true);
    // Again: still unread, nothing else changes.
    expect((await users.bob.client.post(`/api/v1/conversations/${conversation.id}/unread`)).body.unread).toBe(true);

    for (const [client, id] of [[users.carol.client, conversation.id], [users.bob.client, '123456']] as const) {
      const other = await client.post(`/api/v1/conversations/${id}/unread`);
      expect(other.status).toBe(404);
      expect(other.body).toEqual({ error: 'Record not found' });
    }
  });

  it('needs write:conversations, and masto.js calls it', async () => {
    const { inst, users } = env();
    const [conversation] = (await users.bob.client.get('/api/v1/conversations')).body;
    expect((await inst.anon.post(`/api/v1/conversations/${conversation.id}/unread`)).status).toBe(401);
    expect((await inst.anon.post(`/api/v1/conversations/${conversation.id}/unread`, undefined, { token: inst.tokenFor(users.bob, 'read') })).status).toBe(403);
    const masto = createRestAPIClient({ url: inst.url, accessToken: users.bob.token });
    expect((await masto.v1.conversations.$select(conversation.id).read()).unread).toBe(false);
    expect((await masto.v1.conversations.$select(conversation.id).unread()).unread).toBe(true);
  });
});
