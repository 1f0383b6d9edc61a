import { describe, expect, it } from 'vitest';
import { postStatus, useInstance } from '../helpers/fixtures.js';

/**
 * A poll answers only to those who may see its status (Mastodon authorizes the status before
 * anything else): 404 for GET and for votes, before the vote's own parameters are looked at.
 */
describe('polls of statuses the viewer cannot see', () => {
  const env = useInstance(['author', 'follower', 'stranger', 'blocked']);

  it('a private poll is 404 to a non-follower, votes included, whatever the choices', async () => {
    const { users: { author, follower, stranger } } = env();
    expect((await follower.client.post(`/api/v1/accounts/${author.accountId}/follow`)).status).toBe(200);
    const status = await postStatus(author.client, { status: 'followers only', visibility: 'private', poll: { options: ['a', 'b'], expires_in: 3600 } });
    const pollId = status.poll.id as string;
    expect((await stranger.client.get(`/api/v1/polls/${pollId}`)).status).toBe(404);
    for (const body of [{ choices: [0] }, {}, { choices: [9] }, { choices: 'x' }]) {
      const res = await stranger.client.post(`/api/v1/polls/${pollId}/votes`, body);
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect(res.body).toEqual({ error: 'Record not found' });
    }
    // The follower sees it and votes; bad choices are theirs to get wrong (422).
    expect((await follower.client.get(`/api/v1/polls/${pollId}`)).status).toBe(200);
    expect((await follower.client.post(`/api/v1/polls/${pollId}/votes`, { choices: [9] })).status).toBe(422);
    expect((await follower.client.post(`/api/v1/polls/${pollId}/votes`, { choices: [1] })).status).toBe(200);
  });

  it('a public poll is 404 to someone its author blocks, and to everyone once the author is suspended', async () => {
    const { inst, users: { author, blocked, stranger } } = env();
    const status = await postStatus(author.client, { status: 'public poll', poll: { options: ['yes', 'no'], expires_in: 3600 } });
    const pollId = status.poll.id as string;
    expect((await author.client.post(`/api/v1/accounts/${blocked.accountId}/block`)).status).toBe(200);
    expect((await blocked.client.get(`/api/v1/polls/${pollId}`)).status).toBe(404);
    expect((await blocked.client.post(`/api/v1/polls/${pollId}/votes`, {})).status).toBe(404);
    expect((await stranger.client.get(`/api/v1/polls/${pollId}`)).status).toBe(200);

    inst.deps.db.query('UPDATE accounts SET suspended_at = @at WHERE id = @id').run({ at: Date.now(), id: author.accountId });
    expect((await inst.anon.get(`/api/v1/polls/${pollId}`)).status).toBe(404);
    expect((await stranger.client.get(`/api/v1/polls/${pollId}`)).status).toBe(404);
    expect((await stranger.client.post(`/api/v1/polls/${pollId}/votes`, { choices: [0] })).status).toBe(404);
  });
});
