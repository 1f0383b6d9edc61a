import { createRestAPIClient, createStreamingAPIClient, type mastodon } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { addEmoji, announce, owner, until } from './helpers.js';

/** The npm masto client drives the users' announcements methods and hears the streamed events. */
describe('announcements with the masto client library', () => {
  let inst: TestInstance;
  let staff: TestUser;
  let alice: TestUser;
  let masto: mastodon.rest.Client;
  beforeAll(async () => {
    inst = await startInstance();
    staff = await owner(inst);
    alice = await inst.createUser('alice');
    await addEmoji(inst, 'blobcat');
    masto = createRestAPIClient({ url: inst.url, accessToken: alice.token });
  });
  afterAll(async () => {
    await inst.close();
  });

  it('lists, dismisses, reacts and takes reactions back', async () => {
    expect(await masto.v1.announcements.list()).toEqual([]);
    const made = await announce(staff.client, { text: 'Hello :blobcat: #family', starts_at: '2031-02-01T09:00:00Z', ends_at: '2031-02-01T17:00:00Z' });

    const [first] = await masto.v1.announcements.list();
    expect(first).toMatchObject({ id: made.id, startsAt: '2031-02-01T09:00:00.000Z', endsAt: '2031-02-01T17:00:00.000Z', allDay: false, read: false });
    expect(first?.emojis.map((e) => e.shortcode)).toEqual(['blobcat']);
    expect(first?.tags.map((t) => t.name)).toEqual(['family']);

    const announcement = masto.v1.announcements.$select(made.id);
    await announcement.dismiss();
    await announcement.reactions.$select('👍').update();
    await announcement.reactions.$select('blobcat').update();
    const [after] = await masto.v1.announcements.list();
    expect((after as { read?: boolean } | undefined)?.read).toBe(true);
    expect(after?.reactions).toEqual([
      { name: '👍', count: 1, me: true },
      { name: 'blobcat', count: 1, me: true, url: expect.any(String), staticUrl: expect.any(String) },
    ]);

    await announcement.reactions.$select('👍').remove();
    expect((await masto.v1.announcements.list())[0]?.reactions.map((r) => r.name)).toEqual(['blobcat']);

    await expect(announcement.reactions.$select('not-an-emoji').update()).rejects.toMatchObject({ statusCode: 422, message: 'Validation failed: Name is not a recognized emoji' });
    await expect(announcement.reactions.$select('👍').remove()).rejects.toMatchObject({ statusCode: 404 });
    await expect(masto.v1.announcements.$select('999999').dismiss()).rejects.toMatchObject({ statusCode: 404 });
  });

  it('hears announcements and reactions on the user stream', async () => {
    const rest = createRestAPIClient({ url: inst.url, accessToken: alice.token });
    const instance = await rest.v2.instance.fetch();
    const streaming = createStreamingAPIClient({ streamingApiUrl: instance.configuration.urls.streaming, accessToken: alice.token, retry: false });
    const events: mastodon.streaming.Event[] = [];
    const subscription = streaming.user.subscribe();
    void (async () => {
      for await (const event of subscription) events.push(event);
    })().catch(() => undefined);
    try {
      // masto subscribes in the background: announcements are published (every half second) until
      // one reaches the subscription.
      let last = 0;
      await until(async () => {
        if (events.some((e) => e.event === 'announcement')) return true;
        if (Date.now() - last > 500) {
          last = Date.now();
          await announce(staff.client, { text: 'Streamed to masto' });
        }
        return false;
      }, 5000, 'the announcement event');
      const event = events.find((e): e is mastodon.streaming.AnnouncementEvent => e.event === 'announcement');
      expect(event?.payload.content).toBe('<p>Streamed to masto</p>');
      const id = event?.payload.id ?? '';
      await masto.v1.announcements.$select(id).reactions.$select('🎉').update();
      await until(() => events.some((e) => e.event === 'announcement.reaction'), 3000, 'the reaction event');
      const reaction = events.find((e) => e.event === 'announcement.reaction');
      // masto turns the payload's keys to camelCase.
      expect(reaction?.payload).toEqual({ name: '🎉', count: 1, announcementId: id });
      await staff.client.delete(`/api/v1/admin/announcements/${id}`);
      await until(() => events.some((e) => e.event === 'announcement.delete'), 3000, 'the delete event');
      // masto reads the id as JSON: a number, exact because announcement ids are small (as Mastodon's).
      expect(String(events.find((e) => e.event === 'announcement.delete')?.payload)).toBe(id);
    } finally {
      subscription.unsubscribe();
      streaming.close();
    }
  });
});
