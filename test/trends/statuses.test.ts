import { describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';
import { discoverable, post } from './helpers.js';

/** Favourites or boosts of a status by each client. */
async function interact(clients: { post: (path: string) => Promise<{ status: number }> }[], statusId: string, kind: 'favourite' | 'reblog' = 'favourite'): Promise<void> {
  for (const c of clients) expect((await c.post(`/api/v1/statuses/${statusId}/${kind}`)).status).toBe(200);
}

describe('trending statuses', () => {
  const env = useInstance(['alice', 'bob', 'carol', 'dave', 'erin']);

  it('answers [] while nothing trends', async () => {
    const { inst, users } = env();
    expect((await inst.anon.get('/api/v1/trends/statuses')).body).toEqual([]);
    await discoverable(users.alice.client);
    const s = await post(users.alice.client, { status: 'A quiet thought' });
    // The author's own favourite and one other account are not enough.
    await interact([users.alice.client, users.bob.client], s.id);
    expect((await users.bob.client.get('/api/v1/trends/statuses')).body).toEqual([]);
  });

  it('trends a status that other accounts favourite and boost, as Status entities', async () => {
    const { inst, users } = env();
    const s = await post(users.alice.client, { status: 'Something worth sharing' });
    await interact([users.bob.client], s.id);
    await interact([users.carol.client], s.id, 'reblog');
    const res = await inst.anon.get('/api/v1/trends/statuses');
    expect(res.status).toBe(200);
    expect(res.body.map((x: { id: string }) => x.id)).toEqual([s.id]);
    expect(res.body[0].account.id).toBe(users.alice.accountId);

    // More interest ranks higher.
    const t = await post(users.alice.client, { status: 'Even better' });
    await interact([users.bob.client, users.carol.client, users.dave.client, users.erin.client], t.id);
    expect((await inst.anon.get('/api/v1/trends/statuses')).body.map((x: { id: string }) => x.id)).toEqual([t.id, s.id]);
    const page = await inst.anon.get('/api/v1/trends/statuses?limit=1&offset=1');
    expect(page.body.map((x: { id: string }) => x.id)).toEqual([s.id]);
    expect(page.headers.get('link')).toContain('rel="prev"');
    // Viewer-specific fields are the viewer's.
    const mine = await users.bob.client.get('/api/v1/trends/statuses');
    expect(mine.body.find((x: { id: string }) => x.id === t.id).favourited).toBe(true);
  });

  it('leaves out replies, content warnings, sensitive posts and accounts that did not opt in', async () => {
    const { inst, users } = env();
    const parent = (await inst.anon.get('/api/v1/trends/statuses')).body[0].id as string;
    const reply = await post(users.alice.client, { status: 'A reply', in_reply_to_id: parent });
    const warned = await post(users.alice.client, { status: 'Behind a warning', spoiler_text: 'food' });
    const sensitive = await post(users.alice.client, { status: 'Sensitive', sensitive: true });
    const shy = await post(users.dave.client, { status: 'Not discoverable' });
    for (const id of [reply.id, warned.id, sensitive.id, shy.id]) await interact([users.bob.client, users.carol.client, users.erin.client], id);
    const ids = (await inst.anon.get('/api/v1/trends/statuses')).body.map((x: { id: string }) => x.id);
    for (const id of [reply.id, warned.id, sensitive.id, shy.id]) expect(ids).not.toContain(id);
    // Opting in makes Dave's status trend.
    await discoverable(users.dave.client);
    expect((await inst.anon.get('/api/v1/trends/statuses')).body.map((x: { id: string }) => x.id)).toContain(shy.id);
  });

  it("hides what the viewer blocks or mutes, and what the author's block hides", async () => {
    const { inst, users } = env();
    const all = (await inst.anon.get('/api/v1/trends/statuses')).body.map((x: { id: string }) => x.id);
    expect(all.length).toBeGreaterThan(1);
    expect((await users.erin.client.post(`/api/v1/accounts/${users.alice.accountId}/mute`)).status).toBe(200);
    const muted = (await users.erin.client.get('/api/v1/trends/statuses')).body.map((x: { account: { id: string } }) => x.account.id);
    expect(muted).not.toContain(users.alice.accountId);
    expect(muted).toContain(users.dave.accountId);
    expect((await users.dave.client.post(`/api/v1/accounts/${users.carol.accountId}/block`)).status).toBe(200);
    const blocked = (await users.carol.client.get('/api/v1/trends/statuses')).body.map((x: { account: { id: string } }) => x.account.id);
    expect(blocked).not.toContain(users.dave.accountId);
    expect(blocked).toContain(users.alice.accountId);
  });

  it('reads a bad limit as Ruby reads it (0), and refuses an unknown token', async () => {
    const { inst } = env();
    expect((await inst.anon.get('/api/v1/trends/statuses?limit=x')).body).toEqual([]);
    expect((await inst.anon.get('/api/v1/trends/statuses?limit=1000')).status).toBe(200);
    expect((await inst.anon.get('/api/v1/trends/statuses', { token: 'nope' })).status).toBe(401);
  });
});
