import { createRestAPIClient, type mastodon } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';

describe('interactions, polls and scheduled statuses with the masto client', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let asAlice: mastodon.rest.Client;
  let asBob: mastodon.rest.Client;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    asAlice = createRestAPIClient({ url: inst.url, accessToken: alice.token });
    asBob = createRestAPIClient({ url: inst.url, accessToken: bob.token });
  });
  afterAll(async () => {
    await inst.close();
  });

  it('favourites, boosts, bookmarks, mutes and pins', async () => {
    const status = await asAlice.v1.statuses.create({ status: 'hello from masto' });
    const target = asBob.v1.statuses.$select(status.id);

    const fav = await target.favourite();
    expect(fav.favourited).toBe(true);
    expect(fav.favouritesCount).toBe(1);
    const boost = await target.reblog({ visibility: 'unlisted' });
    expect(boost.reblog?.id).toBe(status.id);
    expect(boost.visibility).toBe('unlisted');
    expect(boost.reblogged).toBe(true);
    expect((await target.bookmark()).bookmarked).toBe(true);
    expect((await target.mute()).muted).toBe(true);

    const favouritedBy = await asAlice.v1.statuses.$select(status.id).favouritedBy.list();
    expect(favouritedBy.map((a) => a.id)).toEqual([bob.accountId]);
    const rebloggedBy = await asAlice.v1.statuses.$select(status.id).rebloggedBy.list();
    expect(rebloggedBy.map((a) => a.username)).toEqual(['bob']);

    expect((await target.unmute()).muted).toBe(false);
    expect((await target.unbookmark()).bookmarked).toBe(false);
    const unboosted = await target.unreblog();
    expect(unboosted.reblogged).toBe(false);
    expect(unboosted.reblogsCount).toBe(0);
    const unfav = await target.unfavourite();
    expect(unfav.favourited).toBe(false);
    expect(unfav.favouritesCount).toBe(0);

    const pinned = await asAlice.v1.statuses.$select(status.id).pin();
    expect(pinned.pinned).toBe(true);
    await expect(asBob.v1.statuses.$select(status.id).pin()).rejects.toThrow(/Someone else's post cannot be pinned/);
    expect((await asAlice.v1.statuses.$select(status.id).unpin()).pinned).toBe(false);
  });

  it('votes in a poll', async () => {
    const status = await asAlice.v1.statuses.create({ status: 'pick one', poll: { options: ['left', 'right'], expiresIn: 600 } });
    const pollId = status.poll?.id ?? '';
    const poll = await asBob.v1.polls.$select(pollId).votes.create({ choices: [1] });
    expect(poll.voted).toBe(true);
    expect(poll.ownVotes).toEqual([1]);
    expect(poll.votersCount).toBe(1);
    const fetched = await asBob.v1.polls.$select(pollId).fetch();
    expect(fetched.options.map((o) => o.votesCount)).toEqual([0, 1]);
    await expect(asBob.v1.polls.$select(pollId).votes.create({ choices: [0] })).rejects.toThrow(/already voted/);
  });

  it('schedules, lists, reschedules and cancels', async () => {
    const at = new Date(Date.now() + 30 * 60_000).toISOString();
    const scheduled = (await asAlice.v1.statuses.create({ status: 'in half an hour', scheduledAt: at })) as unknown as mastodon.v1.ScheduledStatus;
    expect(scheduled.scheduledAt).toBe(at);
    const list = await asAlice.v1.scheduledStatuses.list();
    expect(list.map((s) => s.id)).toEqual([scheduled.id]);
    const later = new Date(Date.now() + 90 * 60_000).toISOString();
    const moved = await asAlice.v1.scheduledStatuses.$select(scheduled.id).update({ scheduledAt: later });
    expect(moved.scheduledAt).toBe(later);
    expect((await asAlice.v1.scheduledStatuses.$select(scheduled.id).fetch()).params.text).toBe('in half an hour');
    await asAlice.v1.scheduledStatuses.$select(scheduled.id).remove();
    expect(await asAlice.v1.scheduledStatuses.list()).toEqual([]);
  });
});
