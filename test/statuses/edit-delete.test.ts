import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventMap } from '../../api/core/events.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { count, post, seedMedia } from './helpers.js';

describe('PUT /api/v1/statuses/:id and GET …/history', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
  });
  afterAll(async () => {
    await inst.close();
  });

  it('edits text, warning, sensitivity and language, and keeps every version', async () => {
    const s = await post(alice.client, { status: 'first #one', language: 'en' });
    const h0 = await inst.anon.get(`/api/v1/statuses/${s.id}/history`);
    expect(h0.status).toBe(200);
    expect(h0.body).toHaveLength(1);
    expect(h0.body[0]).toMatchObject({ content: '<p>first <a href="' + `${inst.url}/tags/one` + '" class="mention hashtag" rel="tag">#<span>one</span></a></p>', sensitive: false });

    const res = await alice.client.put(`/api/v1/statuses/${s.id}`, { status: 'second @bob #two', spoiler_text: 'cw', language: 'de' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.id).toBe(s.id);
    expect(res.body.edited_at).not.toBeNull();
    expect(res.body.content).toContain('second');
    expect(res.body.spoiler_text).toBe('cw');
    expect(res.body.sensitive).toBe(true);
    expect(res.body.language).toBe('de');
    expect(res.body.mentions.map((m: { acct: string }) => m.acct)).toEqual(['bob']);
    expect(res.body.tags.map((t: { name: string }) => t.name)).toEqual(['two']);
    expect(res.body.created_at).toBe(s.created_at);

    await alice.client.put(`/api/v1/statuses/${s.id}`, { status: 'third', spoiler_text: 'cw', sensitive: true, language: 'de' });
    const history = await inst.anon.get(`/api/v1/statuses/${s.id}/history`);
    expect(history.body.map((v: { content: string }) => v.content)).toEqual(['<p>first <a href="' + `${inst.url}/tags/one` + '" class="mention hashtag" rel="tag">#<span>one</span></a></p>', expect.stringContaining('second'), '<p>third</p>']);
    expect(history.body[0].created_at).toBe(s.created_at);
    expect(history.body.map((v: { spoiler_text: string }) => v.spoiler_text)).toEqual(['', 'cw', 'cw']);
    expect(history.body[2].account.id).toBe(alice.accountId);
    const source = await alice.client.get(`/api/v1/statuses/${s.id}/source`);
    expect(source.body).toEqual({ id: s.id, text: 'third', spoiler_text: 'cw' });
  });

  it('keeps a removed mention as a silent one so the addressee keeps access', async () => {
    const s = await post(alice.client, { status: '@bob private note', visibility: 'direct' });
    await alice.client.put(`/api/v1/statuses/${s.id}`, { status: 'private note' });
    const got = await bob.client.get(`/api/v1/statuses/${s.id}`);
    expect(got.status).toBe(200);
    expect(got.body.mentions).toEqual([]);
  });

  it('records changes of media descriptions and order in the history', async () => {
    const m1 = seedMedia(inst, alice.accountId, { description: 'a cat' });
    const m2 = seedMedia(inst, alice.accountId, { description: 'a dog' });
    const s = await post(alice.client, { status: 'pets', media_ids: [m1, m2] });
    const res = await alice.client.put(`/api/v1/statuses/${s.id}`, {
      status: 'pets',
      media_ids: [m2, m1],
      media_attributes: [{ id: m1, description: 'a sleepy cat', focus: '0.5,-0.25' }],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.media_attachments.map((m: { id: string; description: string }) => [m.id, m.description])).toEqual([
      [m2, 'a dog'],
      [m1, 'a sleepy cat'],
    ]);
    expect(res.body.media_attachments[1].meta.focus).toEqual({ x: 0.5, y: -0.25 });
    const history = (await alice.client.get(`/api/v1/statuses/${s.id}/history`)).body;
    expect(history).toHaveLength(2);
    expect(history[0].media_attachments.map((m: { id: string; description: string }) => [m.id, m.description])).toEqual([
      [m1, 'a cat'],
      [m2, 'a dog'],
    ]);
    expect(history[1].media_attachments.map((m: { id: string; description: string }) => [m.id, m.description])).toEqual([
      [m2, 'a dog'],
      [m1, 'a sleepy cat'],
    ]);
    // Dropping a medium detaches it.
    await alice.client.put(`/api/v1/statuses/${s.id}`, { status: 'pets', media_ids: [m2] });
    expect(count(inst, 'media_attachments', 'id = @id AND status_id IS NULL', { id: m1 })).toBe(1);
    expect((await alice.client.get(`/api/v1/statuses/${s.id}/history`)).body).toHaveLength(3);
  });

  it('resets the votes when poll options change and records the poll in the history', async () => {
    const s = await post(alice.client, { status: 'vote', poll: { options: ['a', 'b'], expires_in: 3600 } });
    const vote = await bob.client.post(`/api/v1/polls/${s.poll.id}/votes`, { choices: [1] });
    expect(vote.status, vote.text).toBe(200);
    // Same options: votes kept.
    const same = await alice.client.put(`/api/v1/statuses/${s.id}`, { status: 'vote!', poll: { options: ['a', 'b'], expires_in: 7200 } });
    expect(same.body.poll.votes_count).toBe(1);
    const changed = await alice.client.put(`/api/v1/statuses/${s.id}`, { status: 'vote!', poll: { options: ['a', 'b', 'c'], expires_in: 7200 } });
    expect(changed.status).toBe(200);
    expect(changed.body.poll.votes_count).toBe(0);
    expect(changed.body.poll.options).toEqual([
      { title: 'a', votes_count: 0 },
      { title: 'b', votes_count: 0 },
      { title: 'c', votes_count: 0 },
    ]);
    const bobs = await bob.client.get(`/api/v1/statuses/${s.id}`);
    expect(bobs.body.poll).toMatchObject({ voted: false, own_votes: [] });
    const history = (await inst.anon.get(`/api/v1/statuses/${s.id}/history`)).body;
    expect(history.map((v: { poll?: { options: { title: string }[] } }) => v.poll?.options.map((o) => o.title))).toEqual([
      ['a', 'b'],
      ['a', 'b'],
      ['a', 'b', 'c'],
    ]);
    // Removing the poll.
    const removed = await alice.client.put(`/api/v1/statuses/${s.id}`, { status: 'no poll' });
    expect(removed.body.poll).toBeNull();
    expect(count(inst, 'polls', 'status_id = @id', { id: s.id })).toBe(0);
  });

  it('writes nothing when nothing changed', async () => {
    const s = await post(alice.client, { status: 'same' });
    const res = await alice.client.put(`/api/v1/statuses/${s.id}`, { status: 'same' });
    expect(res.status).toBe(200);
    expect(res.body.edited_at).toBeNull();
    expect(count(inst, 'status_edits', 'status_id = @id', { id: s.id })).toBe(0);
  });

  it("refuses to edit someone else's status (404), bad input (422) and wrong scopes (403)", async () => {
    const s = await post(alice.client, { status: 'mine' });
    expect((await bob.client.put(`/api/v1/statuses/${s.id}`, { status: 'hijack' })).status).toBe(404);
    expect((await alice.client.put('/api/v1/statuses/1', { status: 'x' })).status).toBe(404);
    expect((await alice.client.put(`/api/v1/statuses/${s.id}`, { status: '' })).status).toBe(422);
    expect((await alice.client.put(`/api/v1/statuses/${s.id}`, { status: 'a'.repeat(501) })).status).toBe(422);
    const bobsMedia = seedMedia(inst, bob.accountId);
    expect((await alice.client.put(`/api/v1/statuses/${s.id}`, { status: 'x', media_ids: [bobsMedia] })).status).toBe(422);
    const focus = seedMedia(inst, alice.accountId);
    const badFocus = await alice.client.put(`/api/v1/statuses/${s.id}`, { status: 'x', media_ids: [focus], media_attributes: [{ id: focus, focus: '3,3' }] });
    expect(badFocus.status).toBe(422);
    const readOnly = alice.client.withToken(inst.tokenFor(alice, 'read'));
    expect((await readOnly.put(`/api/v1/statuses/${s.id}`, { status: 'x' })).status).toBe(403);
    expect((await inst.anon.put(`/api/v1/statuses/${s.id}`, { status: 'x' })).status).toBe(401);
    const after = await alice.client.get(`/api/v1/statuses/${s.id}`);
    expect(after.body.content).toBe('<p>mine</p>');
    expect(after.body.edited_at).toBeNull();
    expect(count(inst, 'status_edits', 'status_id = @id', { id: s.id })).toBe(0);
  });

  it('hides the history of statuses the viewer may not see', async () => {
    const s = await post(alice.client, { status: 'secret', visibility: 'private' });
    expect((await bob.client.get(`/api/v1/statuses/${s.id}/history`)).status).toBe(404);
    expect((await inst.anon.get(`/api/v1/statuses/${s.id}/history`)).status).toBe(404);
    expect((await alice.client.get(`/api/v1/statuses/${s.id}/history`)).status).toBe(200);
  });

  it("emits 'status.updated'", async () => {
    const s = await post(alice.client, { status: 'before' });
    const seen: EventMap['status.updated'][] = [];
    const off = inst.deps.events.on('status.updated', (e) => seen.push(e));
    await alice.client.put(`/api/v1/statuses/${s.id}`, { status: 'after' });
    off();
    expect(seen).toEqual([{ statusId: s.id, accountId: alice.accountId }]);
  });
});

describe('DELETE /api/v1/statuses/:id', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
  });
  afterAll(async () => {
    await inst.close();
  });

  it('returns the raw text and media for redraft, and the media can be attached again', async () => {
    const m1 = seedMedia(inst, alice.accountId, { description: 'one' });
    const m2 = seedMedia(inst, alice.accountId, { description: 'two' });
    const s = await post(alice.client, { status: 'Look at @bob #Photo https://example.com', media_ids: [m1, m2], sensitive: true });
    const res = await alice.client.delete(`/api/v1/statuses/${s.id}`);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(s.id);
    expect(res.body.text).toBe('Look at @bob #Photo https://example.com');
    expect(res.body.sensitive).toBe(true);
    expect(res.body.media_attachments.map((m: { id: string }) => m.id)).toEqual([m1, m2]);
    expect((await alice.client.get(`/api/v1/statuses/${s.id}`)).status).toBe(404);
    expect(count(inst, 'mentions', 'status_id = @id', { id: s.id })).toBe(0);
    const redraft = await post(alice.client, { status: res.body.text, media_ids: res.body.media_attachments.map((m: { id: string }) => m.id) });
    expect(redraft.media_attachments.map((m: { id: string }) => m.id)).toEqual([m1, m2]);
  });

  it('returns the poll for redraft', async () => {
    const s = await post(alice.client, { status: 'poll?', poll: { options: ['yes', 'no'], expires_in: 600, multiple: true } });
    const res = await alice.client.delete(`/api/v1/statuses/${s.id}`);
    expect(res.body.text).toBe('poll?');
    expect(res.body.poll).toMatchObject({ multiple: true, options: [{ title: 'yes' }, { title: 'no' }] });
    expect(count(inst, 'polls', 'status_id = @id', { id: s.id })).toBe(0);
  });

  it('deletes media with delete_media', async () => {
    const m = seedMedia(inst, alice.accountId);
    const s = await post(alice.client, { media_ids: [m] });
    expect((await alice.client.delete(`/api/v1/statuses/${s.id}?delete_media=true`)).status).toBe(200);
    expect(count(inst, 'media_attachments', 'id = @id', { id: m })).toBe(0);
  });

  it('removes its reblogs and keeps counters right, in one go', async () => {
    const parent = await post(bob.client, { status: 'parent' });
    const s = await post(alice.client, { status: 'boost me', in_reply_to_id: parent.id });
    expect((await bob.client.get(`/api/v1/statuses/${parent.id}`)).body.replies_count).toBe(1);
    const reblog = await bob.client.post(`/api/v1/statuses/${s.id}/reblog`);
    expect(reblog.status, reblog.text).toBe(200);
    const bobBefore = (await bob.client.get(`/api/v1/accounts/${bob.accountId}`)).body.statuses_count;
    const aliceBefore = (await alice.client.get(`/api/v1/accounts/${alice.accountId}`)).body.statuses_count;
    const seen: EventMap['status.deleted'][] = [];
    const off = inst.deps.events.on('status.deleted', (e) => seen.push(e));
    expect((await alice.client.delete(`/api/v1/statuses/${s.id}`)).status).toBe(200);
    off();
    expect(count(inst, 'statuses', 'id = @id OR reblog_of_id = @id', { id: s.id })).toBe(0);
    expect((await bob.client.get(`/api/v1/statuses/${parent.id}`)).body.replies_count).toBe(0);
    expect((await bob.client.get(`/api/v1/accounts/${bob.accountId}`)).body.statuses_count).toBe(bobBefore - 1);
    expect((await alice.client.get(`/api/v1/accounts/${alice.accountId}`)).body.statuses_count).toBe(aliceBefore - 1);
    expect(seen).toEqual([
      { statusId: reblog.body.id, accountId: bob.accountId, uri: `${inst.url}/users/bob/statuses/${reblog.body.id}`, visibility: 'public', mentionedAccountIds: [], reblogOfId: s.id, reblogOf: { uri: s.uri, accountId: alice.accountId }, inReplyToAccountId: null },
      { statusId: s.id, accountId: alice.accountId, uri: s.uri, visibility: 'public', mentionedAccountIds: [], reblogOfId: null, reblogOf: null, inReplyToAccountId: bob.accountId },
    ]);
  });

  it('names the mentioned accounts in the event (for delivery of the delete)', async () => {
    const s = await post(alice.client, { status: '@bob hi', visibility: 'direct' });
    const seen: EventMap['status.deleted'][] = [];
    const off = inst.deps.events.on('status.deleted', (e) => seen.push(e));
    await alice.client.delete(`/api/v1/statuses/${s.id}`);
    off();
    expect(seen[0]).toMatchObject({ visibility: 'direct', mentionedAccountIds: [bob.accountId] });
  });

  it("answers 404 for someone else's status and 403 without write:statuses", async () => {
    const s = await post(alice.client, { status: 'stay' });
    expect((await bob.client.delete(`/api/v1/statuses/${s.id}`)).status).toBe(404);
    const readOnly = alice.client.withToken(inst.tokenFor(alice, 'read'));
    expect((await readOnly.delete(`/api/v1/statuses/${s.id}`)).status).toBe(403);
    expect((await inst.anon.delete(`/api/v1/statuses/${s.id}`)).status).toBe(401);
    expect((await alice.client.get(`/api/v1/statuses/${s.id}`)).status).toBe(200);
  });
});
