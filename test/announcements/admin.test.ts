import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { announce, fromNow, owner, rows, STAFF_SCOPES } from './helpers.js';

const BASE = '/api/v1/admin/announcements';

/** The staff's announcements API (Hearth's admin method): create, edit, publish, withdraw, delete. */
describe('announcements for the staff', () => {
  let inst: TestInstance;
  let kim: TestUser;
  let admin: TestUser;
  let moderator: TestUser;
  let user: TestUser;
  beforeAll(async () => {
    inst = await startInstance();
    kim = await owner(inst, 'kim');
    admin = await inst.createUser('adele', { role: 'admin', scopes: STAFF_SCOPES });
    moderator = await inst.createUser('mo', { role: 'moderator', scopes: STAFF_SCOPES });
    user = await inst.createUser('ursula', { scopes: STAFF_SCOPES });
  });
  afterAll(async () => {
    await inst.close();
  });

  const listed = async (u: TestUser) => (await u.client.get('/api/v1/announcements')).body.map((a: { id: string }) => a.id);

  it('creates, shows, edits, withdraws, publishes again and deletes', async () => {
    const made = await announce(kim.client, { text: 'Dinner at *eight*\nBring @kim something', starts_at: '2031-03-01T18:00:00Z', ends_at: '2031-03-01T22:00:00Z' });
    expect(made).toMatchObject({
      text: 'Dinner at *eight*\nBring @kim something',
      published: true,
      scheduled_at: null,
      all_day: false,
      starts_at: '2031-03-01T18:00:00.000Z',
      ends_at: '2031-03-01T22:00:00.000Z',
      reactions: [],
    });
    expect(made.content).toMatch(/^<p>Dinner at \*eight\*<br \/>Bring <span class="h-card"/);
    expect(made.mentions.map((m: { username: string }) => m.username)).toEqual(['kim']);
    expect(Date.parse(made.published_at)).toBeLessThanOrEqual(Date.now());
    expect(made.created_at).toBe(made.published_at);
    expect(await listed(user)).toContain(made.id);

    const shown = await admin.client.get(`${BASE}/${made.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual(made);
    expect((await admin.client.get(BASE)).body.map((a: { id: string }) => a.id)).toContain(made.id);

    // An edit changes what is given and keeps the rest; '' clears a time.
    const edited = await admin.client.put(`${BASE}/${made.id}`, { text: 'Dinner moved', starts_at: '', ends_at: null });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body).toMatchObject({ text: 'Dinner moved', content: '<p>Dinner moved</p>', starts_at: null, ends_at: null, published: true, published_at: made.published_at });
    expect(Date.parse(edited.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(made.updated_at));
    const kept = await admin.client.put(`${BASE}/${made.id}`, { all_day: false });
    expect(kept.body.text).toBe('Dinner moved');

    const withdrawn = await kim.client.post(`${BASE}/${made.id}/unpublish`);
    expect(withdrawn.body).toMatchObject({ published: false, scheduled_at: null });
    expect(await listed(user)).not.toContain(made.id);
    const republished = await kim.client.post(`${BASE}/${made.id}/publish`);
    expect(republished.body.published).toBe(true);
    expect(Date.parse(republished.body.published_at)).toBeGreaterThanOrEqual(Date.parse(made.published_at));
    expect(await listed(user)).toContain(made.id);

    const gone = await kim.client.delete(`${BASE}/${made.id}`);
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({});
    expect((await kim.client.get(`${BASE}/${made.id}`)).status).toBe(404);
    expect((await kim.client.delete(`${BASE}/${made.id}`)).status).toBe(404);
    expect((await kim.client.put(`${BASE}/${made.id}`, { text: 'x' })).status).toBe(404);
    expect((await kim.client.post(`${BASE}/${made.id}/publish`)).status).toBe(404);
    expect(await listed(user)).not.toContain(made.id);

    // Ids are small numbers, as Mastodon's, and a deleted one's is never given again.
    expect(made.id).toMatch(/^\d{1,6}$/);
    const next = await announce(kim.client, { text: 'After the deletion' });
    expect(BigInt(next.id)).toBeGreaterThan(BigInt(made.id));
  });

  it('publishes at once without a schedule or with one that has passed, later otherwise', async () => {
    const past = await announce(kim.client, { text: 'Was due yesterday', scheduled_at: fromNow(-86_400_000) });
    expect(past.published).toBe(true);
    expect(await listed(user)).toContain(past.id);

    const later = await announce(kim.client, { text: 'Tomorrow', scheduled_at: fromNow(86_400_000) });
    expect(later).toMatchObject({ published: false, published_at: null });
    expect(Date.parse(later.scheduled_at)).toBeGreaterThan(Date.now());
    expect(await listed(user)).not.toContain(later.id);

    // Moved to a time that has come: published now, its schedule done.
    const moved = await kim.client.put(`${BASE}/${later.id}`, { scheduled_at: fromNow(-1000) });
    expect(moved.body).toMatchObject({ published: true, scheduled_at: null });
    expect(await listed(user)).toContain(later.id);
  });

  it('refuses bad input with Mastodon’s messages, writing nothing', async () => {
    const before = rows(inst, 'announcements');
    const cases: [Record<string, unknown>, string][] = [
      [{}, "Validation failed: Text can't be blank"],
      [{ text: '   ' }, "Validation failed: Text can't be blank"],
      [{ text: 'x', all_day: true }, "Validation failed: Starts at can't be blank, Ends at can't be blank"],
      [{ text: 'x', all_day: 'true', starts_at: '2031-01-01' }, "Validation failed: Ends at can't be blank"],
      [{ text: 'x', ends_at: '2031-01-01' }, "Validation failed: Starts at can't be blank"],
      [{ text: 'x', starts_at: '2031-01-02', ends_at: '2031-01-01' }, 'Validation failed: Ends at must be greater than 2031-01-02T00:00:00.000Z'],
      [{ text: 'x', starts_at: '2031-01-02', ends_at: '2031-01-02' }, 'Validation failed: Ends at must be greater than 2031-01-02T00:00:00.000Z'],
      [{ text: 'x', scheduled_at: 'next tuesday' }, 'Validation failed: Scheduled at is invalid'],
      [{ text: '', starts_at: 'soon', ends_at: '2031-01-01' }, "Validation failed: Text can't be blank, Starts at is invalid"],
    ];
    for (const [body, error] of cases) {
      const res = await kim.client.post(BASE, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error, JSON.stringify(body)).toBe(error);
    }
    const blank = await kim.client.post(BASE, { text: '' });
    expect(blank.body.details).toEqual({ text: [{ error: 'ERR_BLANK', description: "can't be blank" }] });
    expect(rows(inst, 'announcements')).toBe(before);
    expect(rows(inst, 'announcement_outbox')).toBe(0);

    // A refused edit leaves the announcement as it was.
    const a = await announce(kim.client, { text: 'Stays', starts_at: '2031-05-01', ends_at: '2031-05-02', all_day: true });
    const bad = await kim.client.put(`${BASE}/${a.id}`, { text: 'Changed', ends_at: '' });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toBe("Validation failed: Ends at can't be blank");
    expect((await kim.client.get(`${BASE}/${a.id}`)).body).toEqual(a);
    const allDayOff = await kim.client.put(`${BASE}/${a.id}`, { all_day: false, starts_at: '', ends_at: '' });
    expect(allDayOff.body).toMatchObject({ all_day: false, starts_at: null, ends_at: null });
  });

  it('lets the owner and admins manage announcements; moderators and users get 403', async () => {
    const a = await announce(admin.client, { text: 'By an admin' });
    for (const who of [moderator, user]) {
      const attempts = [
        who.client.get(BASE),
        who.client.get(`${BASE}/${a.id}`),
        who.client.post(BASE, { text: 'Mine' }),
        who.client.put(`${BASE}/${a.id}`, { text: 'Mine' }),
        who.client.post(`${BASE}/${a.id}/unpublish`),
        who.client.post(`${BASE}/${a.id}/publish`),
        who.client.delete(`${BASE}/${a.id}`),
        // Refused before the id is even looked at.
        who.client.delete(`${BASE}/1`),
      ];
      for (const res of await Promise.all(attempts)) {
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ error: 'This action is not allowed' });
      }
    }
    expect((await kim.client.get(`${BASE}/${a.id}`)).body.text).toBe('By an admin');
  });

  it('asks for admin:read to read and admin:write to change', async () => {
    const a = await announce(kim.client, { text: 'Scoped' });
    const reader = kim.client.withToken(inst.tokenFor(kim, 'admin:read'));
    expect((await reader.get(BASE)).status).toBe(200);
    expect((await reader.post(BASE, { text: 'No' })).status).toBe(403);
    expect((await reader.delete(`${BASE}/${a.id}`)).status).toBe(403);
    const plain = kim.client.withToken(inst.tokenFor(kim, 'read write'));
    expect((await plain.get(BASE)).status).toBe(403);
    const writer = kim.client.withToken(inst.tokenFor(kim, 'admin:write'));
    expect((await writer.get(BASE)).status).toBe(403);
    expect((await writer.put(`${BASE}/${a.id}`, { text: 'Rescoped' })).status).toBe(200);
    expect((await inst.anon.get(BASE)).status).toBe(403);
  });
});
