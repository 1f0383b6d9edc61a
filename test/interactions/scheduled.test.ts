import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetClock, setClockTo } from '../../api/util/clock.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { links, post, waitFor } from './helpers.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

describe('scheduled statuses', () => {
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
  afterEach(() => resetClock());

  async function schedule(user: TestUser, at: number, extra: Record<string, unknown> = {}) {
    const res = await user.client.post('/api/v1/statuses', { status: 'later', scheduled_at: iso(at), ...extra });
    expect(res.status, res.text).toBe(200);
    return res.body;
  }

  it('schedules a status and shows it, with its params, to its author only', async () => {
    const at = Date.now() + 10 * MINUTE;
    const scheduled = await schedule(alice, at, { status: 'see you soon', spoiler_text: 'cw', visibility: 'unlisted', language: 'en' });
    expect(scheduled.scheduled_at).toBe(iso(at));
    expect(scheduled.params).toMatchObject({
      text: 'see you soon',
      spoiler_text: 'cw',
      visibility: 'unlisted',
      language: 'en',
      poll: null,
      media_ids: null,
      in_reply_to_id: null,
      scheduled_at: null,
      idempotency: null,
      with_rate_limit: false,
    });
    expect(scheduled.media_attachments).toEqual([]);
    const one = await alice.client.get(`/api/v1/scheduled_statuses/${scheduled.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(scheduled);
    expect((await bob.client.get(`/api/v1/scheduled_statuses/${scheduled.id}`)).status).toBe(404);
    expect((await bob.client.get('/api/v1/scheduled_statuses')).body).toEqual([]);
    // Not published yet: not a status.
    expect((await alice.client.get(`/api/v1/statuses/${scheduled.id}`)).status).toBe(404);
  });

  it('keeps a reply target as a JSON integer, digit for digit', async () => {
    const parent = await post(bob.client, { status: 'parent' });
    const res = await alice.client.post('/api/v1/statuses', { status: 'reply later', in_reply_to_id: parent.id, scheduled_at: iso(Date.now() + 20 * MINUTE) });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toContain(`"in_reply_to_id":${parent.id}`);
  });

  it('refuses times less than five minutes ahead, and bad dates (422)', async () => {
    const soon = await alice.client.post('/api/v1/statuses', { status: 'too soon', scheduled_at: iso(Date.now() + 2 * MINUTE) });
    expect(soon.status).toBe(422);
    expect(soon.body.error).toBe('Validation failed: Scheduled at The scheduled date must be in the future');
    expect(soon.body.details.scheduled_at).toHaveLength(1);
    const scheduled = await schedule(alice, Date.now() + 30 * MINUTE);
    const put = await alice.client.put(`/api/v1/scheduled_statuses/${scheduled.id}`, { scheduled_at: iso(Date.now() + MINUTE) });
    expect(put.status).toBe(422);
    expect(put.body.error).toBe('Validation failed: Scheduled at The scheduled date must be in the future');
    const garbage = await alice.client.put(`/api/v1/scheduled_statuses/${scheduled.id}`, { scheduled_at: 'next tuesday-ish' });
    expect(garbage.status).toBe(422);
    expect((await alice.client.get(`/api/v1/scheduled_statuses/${scheduled.id}`)).body.scheduled_at).toBe(scheduled.scheduled_at);
  });

  it('reschedules (PUT) and cancels (DELETE)', async () => {
    const scheduled = await schedule(alice, Date.now() + 40 * MINUTE);
    const later = Date.now() + 3 * DAY;
    const moved = await alice.client.put(`/api/v1/scheduled_statuses/${scheduled.id}`, undefined, { form: { scheduled_at: iso(later) } });
    expect(moved.status).toBe(200);
    expect(moved.body.scheduled_at).toBe(iso(later));
    expect(moved.body.params).toEqual(scheduled.params);
    // Without a new time, nothing changes.
    expect((await alice.client.put(`/api/v1/scheduled_statuses/${scheduled.id}`, {})).body.scheduled_at).toBe(iso(later));
    expect((await bob.client.put(`/api/v1/scheduled_statuses/${scheduled.id}`, { scheduled_at: iso(later + DAY) })).status).toBe(404);
    expect((await bob.client.delete(`/api/v1/scheduled_statuses/${scheduled.id}`)).status).toBe(404);
    const gone = await alice.client.delete(`/api/v1/scheduled_statuses/${scheduled.id}`);
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({});
    expect((await alice.client.get(`/api/v1/scheduled_statuses/${scheduled.id}`)).status).toBe(404);
    expect((await alice.client.delete(`/api/v1/scheduled_statuses/${scheduled.id}`)).status).toBe(404);
    expect((await alice.client.put(`/api/v1/scheduled_statuses/${scheduled.id}`, { scheduled_at: iso(later) })).status).toBe(404);
  });

  it('lists newest first with Link paging', async () => {
    const erin = await inst.createUser('erin');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await schedule(erin, Date.now() + (10 + i) * MINUTE)).id);
    const page1 = await erin.client.get('/api/v1/scheduled_statuses?limit=2');
    expect(page1.status).toBe(200);
    expect(page1.body.map((s: { id: string }) => s.id)).toEqual([ids[4], ids[3]]);
    const page2 = await erin.client.get(links(page1.headers.get('link')).next ?? '');
    expect(page2.body.map((s: { id: string }) => s.id)).toEqual([ids[2], ids[1]]);
    const page3 = await erin.client.get(links(page2.headers.get('link')).next ?? '');
    expect(page3.body.map((s: { id: string }) => s.id)).toEqual([ids[0]]);
    const back = await erin.client.get(links(page3.headers.get('link')).prev ?? '');
    expect(back.body.map((s: { id: string }) => s.id)).toEqual([ids[2], ids[1]]);
  });

  it('allows 25 per day and 300 in all, as Mastodon', async () => {
    const frank = await inst.createUser('frank');
    // A day well ahead, starting at its UTC midnight.
    const day = Math.floor((Date.now() + 2 * DAY) / DAY) * DAY;
    for (let i = 0; i < 25; i++) await schedule(frank, day + i * MINUTE);
    const over = await frank.client.post('/api/v1/statuses', { status: 'one too many', scheduled_at: iso(day + 12 * 60 * MINUTE) });
    expect(over.status).toBe(422);
    expect(over.body.error).toBe('Validation failed: You have exceeded the limit of 25 scheduled posts for today');
    // Moving one within the same day is fine; moving another day's status into it is not.
    const list = await frank.client.get('/api/v1/scheduled_statuses?limit=1');
    expect((await frank.client.put(`/api/v1/scheduled_statuses/${list.body[0].id}`, { scheduled_at: iso(day + 600 * MINUTE) })).status).toBe(200);
    const other = await schedule(frank, day + DAY);
    expect((await frank.client.put(`/api/v1/scheduled_statuses/${other.id}`, { scheduled_at: iso(day + 5 * MINUTE) })).status).toBe(422);

    for (let n = 26; n < 300; n++) await schedule(frank, day + (1 + Math.floor(n / 25)) * DAY + (n % 25) * MINUTE + MINUTE);
    const total = await frank.client.post('/api/v1/statuses', { status: 'no room', scheduled_at: iso(day + 100 * DAY) });
    expect(total.status).toBe(422);
    expect(total.body.error).toBe('Validation failed: You have exceeded the limit of 300 scheduled posts');
  });

  it('checks tokens and scopes', async () => {
    const s = await schedule(alice, Date.now() + 50 * MINUTE);
    expect((await inst.anon.get('/api/v1/scheduled_statuses')).status).toBe(401);
    expect((await inst.anon.get(`/api/v1/scheduled_statuses/${s.id}`)).status).toBe(401);
    expect((await alice.client.get('/api/v1/scheduled_statuses', { token: inst.tokenFor(alice, 'write') })).status).toBe(403);
    expect((await alice.client.put(`/api/v1/scheduled_statuses/${s.id}`, { scheduled_at: iso(Date.now() + DAY) }, { token: inst.tokenFor(alice, 'read') })).status).toBe(403);
    expect((await alice.client.delete(`/api/v1/scheduled_statuses/${s.id}`, { token: inst.tokenFor(alice, 'read:statuses') })).status).toBe(403);
    expect((await alice.client.get('/api/v1/scheduled_statuses', { token: inst.tokenFor(alice, 'read:statuses') })).status).toBe(200);
  });

  it('publishes a due status on time, with its poll starting then', async () => {
    const gina = await inst.createUser('gina');
    const at = Date.now() + 6 * MINUTE;
    const scheduled = await schedule(gina, at, { status: 'published by the scheduler', visibility: 'private', poll: { options: ['a', 'b'], expires_in: 3600 } });
    expect(scheduled.params.poll).toEqual({ options: ['a', 'b'], expires_in: 3600, multiple: false, hide_totals: false });
    const created: string[] = [];
    inst.deps.events.on('status.created', (p) => {
      if (p.accountId === gina.accountId) created.push(p.statusId);
    });
    // Not due yet: nothing happens over a couple of ticks.
    await new Promise((r) => setTimeout(r, 1200));
    expect(created).toEqual([]);
    const publishedAt = at + 5_000;
    setClockTo(publishedAt);
    const statusId = await waitFor(() => created[0]);
    const status = await gina.client.get(`/api/v1/statuses/${statusId}`);
    expect(status.status).toBe(200);
    expect(status.body.content).toContain('published by the scheduler');
    expect(status.body.visibility).toBe('private');
    expect(Date.parse(status.body.created_at)).toBeGreaterThanOrEqual(publishedAt);
    expect(Date.parse(status.body.poll.expires_at) - Date.parse(status.body.created_at)).toBeGreaterThanOrEqual(3600_000 - 1000);
    expect((await gina.client.get('/api/v1/scheduled_statuses')).body).toEqual([]);
    await new Promise((r) => setTimeout(r, 1200));
    expect(created).toHaveLength(1);
  });
});
