import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addAnnouncementReaction } from '../../api/core/announcements/user.js';
import { deleteAnnouncement } from '../../api/core/announcements/manage.js';
import { flushAnnouncementEvents } from '../../api/core/announcements/outbox.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { validateResponse } from '../helpers/openapi.js';
import { closeSockets, numericIds, openSocket, type StreamEvent, type StreamSocket } from '../streaming/helpers.js';
import { addEmoji, announce, fromNow, owner } from './helpers.js';

const BASE = '/api/v1/admin/announcements';

/** Checks a streamed announcement against the Announcement schema, and that it is rendered for nobody. */
function checkAnnouncement(payload: Record<string, unknown>): void {
  expect(validateResponse('GET', '/api/v1/announcements', 200, [payload])).toEqual([]);
  expect(numericIds(payload)).toEqual([]);
  expect('read' in payload).toBe(false);
}

/** Announcements on the user stream over a real WebSocket, as Mastodon sends them. */
describe('announcement streaming events', () => {
  let inst: TestInstance;
  let staff: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  beforeAll(async () => {
    inst = await startInstance();
    staff = await owner(inst);
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    await addEmoji(inst, 'blobcat');
  });
  afterEach(() => closeSockets());
  afterAll(async () => {
    await inst.close();
  });

  async function userStream(user: TestUser): Promise<StreamSocket> {
    const socket = await openSocket(inst, user.token);
    await socket.subscribe('user');
    return socket;
  }
  const about = (id: string) => (e: StreamEvent) =>
    (e.event === 'announcement' && e.payload.id === id) || (e.event === 'announcement.delete' && e.raw === id) || (e.event === 'announcement.reaction' && e.payload.announcement_id === id);

  it('sends `announcement` on publication and on edits, `announcement.reaction` with counts, `announcement.delete` at the end', async () => {
    const socket = await userStream(alice);
    const other = await userStream(bob);

    const made = await announce(staff.client, { text: 'Hello #everyone :blobcat:' });
    const published = await socket.next((e) => e.event === 'announcement');
    expect(published.stream).toEqual(['user']);
    expect(published.payload).toMatchObject({ id: made.id, content: made.content, reactions: [], published_at: made.published_at });
    expect(published.payload.tags).toEqual([{ name: 'everyone', url: expect.stringMatching(/\/tags\/everyone$/) }]);
    checkAnnouncement(published.payload);
    await other.next((e) => e.event === 'announcement' && e.payload.id === made.id);

    await alice.client.put(`/api/v1/announcements/${made.id}/reactions/${encodeURIComponent('👍')}`);
    const reacted = await socket.next((e) => e.event === 'announcement.reaction');
    expect(reacted.stream).toEqual(['user']);
    expect(reacted.payload).toEqual({ name: '👍', count: 1, announcement_id: made.id });
    await bob.client.put(`/api/v1/announcements/${made.id}/reactions/${encodeURIComponent('👍')}`);
    await socket.until(() => socket.matching((e) => e.event === 'announcement.reaction' && e.payload.count === 2).length === 1);
    await bob.client.put(`/api/v1/announcements/${made.id}/reactions/blobcat`);
    const custom = await socket.next((e) => e.event === 'announcement.reaction' && e.payload.name === 'blobcat');
    expect(custom.payload).toEqual({ name: 'blobcat', count: 1, url: expect.stringContaining('/custom_emojis/'), static_url: expect.stringContaining('/custom_emojis/'), announcement_id: made.id });
    await alice.client.delete(`/api/v1/announcements/${made.id}/reactions/${encodeURIComponent('👍')}`);
    await bob.client.delete(`/api/v1/announcements/${made.id}/reactions/${encodeURIComponent('👍')}`);
    const last = await socket.next((e) => e.event === 'announcement.reaction' && e.payload.name === '👍' && e.payload.count === 0);
    expect(last.payload).toEqual({ name: '👍', count: 0, announcement_id: made.id });
    // A reaction given again changes nothing, and is not announced again.
    const before = socket.events.length;
    await bob.client.put(`/api/v1/announcements/${made.id}/reactions/blobcat`);

    const edited = await staff.client.put(`${BASE}/${made.id}`, { text: 'Hello again' });
    expect(edited.status).toBe(200);
    const update = await socket.next((e) => e.event === 'announcement' && e.payload.content === '<p>Hello again</p>');
    checkAnnouncement(update.payload);
    expect(update.payload.reactions).toEqual([{ name: 'blobcat', count: 1, url: expect.any(String), static_url: expect.any(String) }]);
    expect(socket.events.slice(before).map((e) => e.event)).toEqual(['announcement']);

    await staff.client.delete(`${BASE}/${made.id}`);
    const deleted = await socket.next((e) => e.event === 'announcement.delete');
    expect(deleted.raw).toBe(made.id);
    expect(socket.matching(about(made.id)).map((e) => e.event)).toEqual([
      'announcement',
      'announcement.reaction',
      'announcement.reaction',
      'announcement.reaction',
      'announcement.reaction',
      'announcement.reaction',
      'announcement',
      'announcement.delete',
    ]);
  });

  it('sends `announcement.delete` when one is withdrawn, and `announcement` when it is published again', async () => {
    const socket = await userStream(alice);
    const made = await announce(staff.client, { text: 'On and off' });
    await socket.next((e) => e.event === 'announcement' && e.payload.id === made.id);
    await staff.client.post(`${BASE}/${made.id}/unpublish`);
    await socket.next((e) => e.event === 'announcement.delete' && e.raw === made.id);
    await staff.client.post(`${BASE}/${made.id}/publish`);
    await socket.until(() => socket.matching((e) => e.event === 'announcement' && e.payload.id === made.id).length === 2);
    // Nothing is streamed about one that users never saw.
    const hidden = await announce(staff.client, { text: 'Scheduled', scheduled_at: fromNow(3_600_000) });
    await staff.client.put(`${BASE}/${hidden.id}`, { text: 'Still scheduled' });
    await staff.client.delete(`${BASE}/${hidden.id}`);
    await socket.sync();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(socket.matching(about(hidden.id))).toEqual([]);
  });

  it('sends no reaction news about an announcement deleted meanwhile', async () => {
    const socket = await userStream(alice);
    const made = await announce(staff.client, { text: 'About to go' });
    await socket.next((e) => e.event === 'announcement' && e.payload.id === made.id);
    // The reaction and the deletion in the same turn: by the time streaming sends the reaction's
    // news, the announcement is gone.
    addAnnouncementReaction(inst.deps, bob.accountId, made.id, '🎉');
    deleteAnnouncement(inst.deps, made.id);
    flushAnnouncementEvents(inst.deps);
    await socket.next((e) => e.event === 'announcement.delete' && e.raw === made.id);
    await socket.sync();
    expect(socket.matching((e) => e.event === 'announcement.reaction' && e.payload.announcement_id === made.id)).toEqual([]);
  });

  it('goes to the `user` stream only, over WebSocket and server-sent events alike', async () => {
    const notifications = await openSocket(inst, alice.token);
    await notifications.subscribe('user:notification');
    const publicOnly = await openSocket(inst, alice.token);
    await publicOnly.subscribe('public');
    const user = await userStream(alice);
    const controller = new AbortController();
    const sse = await fetch(`${inst.url}/api/v1/streaming/user`, { headers: { authorization: `Bearer ${bob.token}` }, signal: controller.signal });
    expect(sse.status).toBe(200);
    const reader = sse.body!.getReader();
    let text = '';
    const made = await announce(staff.client, { text: 'Everyone, listen' });
    await user.next((e) => e.event === 'announcement' && e.payload.id === made.id);
    const deadline = Date.now() + 3000;
    while (!text.includes(`"id":"${made.id}"`) && Date.now() < deadline) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    expect(text).toMatch(new RegExp(`event: announcement\\ndata: \\{"id":"${made.id}"`));
    await notifications.sync();
    await publicOnly.sync();
    expect(notifications.matching(about(made.id))).toEqual([]);
    expect(publicOnly.matching(about(made.id))).toEqual([]);
  });

  it('withdraws an announcement whose end has passed, and says so on the stream', async () => {
    const socket = await userStream(alice);
    const made = await announce(staff.client, { text: 'Brief', starts_at: fromNow(-60_000), ends_at: fromNow(3000) });
    await socket.next((e) => e.event === 'announcement' && e.payload.id === made.id);
    await socket.next((e) => e.event === 'announcement.delete' && e.raw === made.id, 8000);
    const row = (await staff.client.get(`${BASE}/${made.id}`)).body;
    expect(row.published).toBe(false);
    expect((await alice.client.get('/api/v1/announcements')).body.some((a: { id: string }) => a.id === made.id)).toBe(false);
  });
});
