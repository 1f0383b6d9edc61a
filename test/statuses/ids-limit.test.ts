import { describe, expect, it } from 'vitest';
import { postStatus, useInstance } from '../helpers/fixtures.js';

/** GET /api/v1/statuses?id[]= takes at most a page of statuses (20 distinct ids), as Mastodon. */
describe('GET /api/v1/statuses with many ids', () => {
  const env = useInstance(['alice']);

  it('more than 20 distinct ids is 422; 20, or more with repeats, is fine', async () => {
    const { inst, users: { alice } } = env();
    const ids: string[] = [];
    for (let i = 0; i < 21; i++) ids.push((await postStatus(alice.client, { status: `n${i}` })).id);
    const query = (list: string[]) => `/api/v1/statuses?${list.map((id) => `id[]=${id}`).join('&')}`;

    const tooMany = await inst.anon.get(query(ids));
    expect(tooMany.status).toBe(422);
    // A bare Mastodon::ValidationError, whose message is its class name.
    expect(tooMany.body.error).toBe('Mastodon::ValidationError');

    const twenty = await inst.anon.get(query(ids.slice(0, 20)));
    expect(twenty.status).toBe(200);
    expect(twenty.body).toHaveLength(20);
    const repeated = await alice.client.get(query([...ids.slice(0, 20), ids[0] ?? '', ids[1] ?? '']));
    expect(repeated.status).toBe(200);
    expect(repeated.body).toHaveLength(20);
    // Ids that name nothing count too: Mastodon counts what it was given.
    const unknown = await inst.anon.get(query([...ids.slice(0, 20), '999999']));
    expect(unknown.status).toBe(422);
  });
});
