import { createRestAPIClient, type mastodon } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { seedMedia } from './helpers.js';

describe('statuses with the masto client library', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let masto: mastodon.rest.Client;
  let bobs: mastodon.rest.Client;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    masto = createRestAPIClient({ url: inst.url, accessToken: alice.token });
    bobs = createRestAPIClient({ url: inst.url, accessToken: bob.token });
  });
  afterAll(async () => {
    await inst.close();
  });

  it('creates, fetches, edits, reads the history and source of, and deletes a status', async () => {
    const created = await masto.v1.statuses.create({ status: 'Hello from masto #first', visibility: 'unlisted', language: 'en', spoilerText: 'greeting' });
    expect(created.visibility).toBe('unlisted');
    expect(created.spoilerText).toBe('greeting');
    expect(created.sensitive).toBe(true);
    expect(created.tags.map((t) => t.name)).toEqual(['first']);

    const fetched = await masto.v1.statuses.$select(created.id).fetch();
    expect(fetched.id).toBe(created.id);
    expect(fetched.content).toBe(created.content);

    const updated = await masto.v1.statuses.$select(created.id).update({ status: 'Hello again', spoilerText: 'greeting', language: 'en' });
    expect(updated.content).toBe('<p>Hello again</p>');
    expect(updated.editedAt).not.toBeNull();

    const history = await masto.v1.statuses.$select(created.id).history.list();
    expect(history.map((v) => v.content)).toEqual([created.content, '<p>Hello again</p>']);
    const source = await masto.v1.statuses.$select(created.id).source.fetch();
    expect(source).toEqual({ id: created.id, text: 'Hello again', spoilerText: 'greeting' });

    const many = await masto.v1.statuses.fetch({ id: [created.id, '1'] });
    expect(many.map((s) => s.id)).toEqual([created.id]);

    const removed = await masto.v1.statuses.$select(created.id).remove();
    expect(removed.text).toBe('Hello again');
    await expect(masto.v1.statuses.$select(created.id).fetch()).rejects.toMatchObject({ statusCode: 404 });
  });

  it('replies, reads the context, and sends media and polls', async () => {
    const root = await masto.v1.statuses.create({ status: 'root' });
    const reply = await bobs.v1.statuses.create({ status: '@alice reply', inReplyToId: root.id });
    expect(reply.inReplyToId).toBe(root.id);
    expect(reply.mentions.map((m) => m.acct)).toEqual(['alice']);
    const context = await masto.v1.statuses.$select(root.id).context.fetch();
    expect(context.ancestors).toEqual([]);
    expect(context.descendants.map((s) => s.id)).toEqual([reply.id]);

    const media = seedMedia(inst, alice.accountId, { description: 'alt' });
    const withMedia = await masto.v1.statuses.create({ mediaIds: [media] });
    expect(withMedia.mediaAttachments[0]?.description).toBe('alt');
    const edited = await masto.v1.statuses.$select(withMedia.id).update({ mediaIds: [media], mediaAttributes: [{ id: media, description: 'better alt' }] });
    expect(edited.mediaAttachments[0]?.description).toBe('better alt');

    const poll = await masto.v1.statuses.create({ status: 'tea?', poll: { options: ['yes', 'no'], expiresIn: 600 } });
    expect(poll.poll?.options.map((o) => o.title)).toEqual(['yes', 'no']);
  });

  it('schedules a status and rejects bad input with a 422', async () => {
    const scheduledAt = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = await masto.v1.statuses.create({ status: 'later', scheduledAt });
    expect(scheduled.scheduledAt).toBe(scheduledAt);
    await expect(masto.v1.statuses.create({ status: '' })).rejects.toMatchObject({ statusCode: 422 });
    await expect(masto.v1.statuses.create({ status: 'x', visibility: 'nobody' as mastodon.v1.StatusVisibility })).rejects.toMatchObject({
      statusCode: 422,
    });
  });

  it('sends an Idempotency-Key through the request options', async () => {
    const headers = { 'Idempotency-Key': 'masto-key' };
    const a = await masto.v1.statuses.create({ status: 'only once' }, { requestInit: { headers } });
    const b = await masto.v1.statuses.create({ status: 'only once' }, { requestInit: { headers } });
    expect(b.id).toBe(a.id);
  });
});
