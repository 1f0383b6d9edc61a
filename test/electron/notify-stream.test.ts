import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NotificationKinds } from '../../electron/contract/ipc.js';
import type { NotificationDecision, WindowFocus } from '../../electron/notify/decide.js';
import { NotificationStream, type NotifyState } from '../../electron/notify/stream.js';
import { trayState } from '../../electron/notify/tray-state.js';
import { eventually, freePort } from '../federation/helpers.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';

/*
 * The desktop's notification stream against a real instance: the owner's token, a second local
 * account doing what notifies, the unread count and its marker, and a server restart.
 */

describe('the notification stream of the desktop app', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-notify-'));
  let port: number;
  let inst: TestInstance;
  let kim: TestUser;
  let bob: TestUser;
  let stream: NotificationStream;
  const shown: NotificationDecision[] = [];
  const states: NotifyState[] = [];
  let kinds: NotificationKinds = { mention: true, direct: true, follow: true, follow_request: true };
  let focus: WindowFocus = { focused: false, path: null };

  beforeAll(async () => {
    port = await freePort('127.0.0.1');
    inst = await startInstance({ dataDir, port });
    // bob first: the owner would be told of his sign-up otherwise.
    bob = await inst.createUser('bob');
    kim = await inst.createUser('kim', { role: 'owner', scopes: 'read write' });
    // kim follows bob: his private mentions are not filtered into requests (the default policy).
    expect((await kim.client.post(`/api/v1/accounts/${bob.accountId}/follow`)).status).toBe(200);
    stream = new NotificationStream({
      baseUrl: inst.url,
      token: kim.token,
      kinds: () => kinds,
      focus: () => focus,
      onNotification: (d) => shown.push(d),
      onState: (s) => states.push(s),
      backoff: { initialMs: 100, maxMs: 400 },
    });
    stream.start();
    await eventually(() => stream.state.streaming && stream.state.unread === 0);
  });
  afterAll(async () => {
    await stream?.stop();
    await inst?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const post = async (user: TestUser, params: Record<string, unknown>) => {
    const res = await user.client.post('/api/v1/statuses', params);
    expect(res.status).toBe(200);
    return res.body as { id: string };
  };
  const next = (count: number) => eventually(() => shown.length >= count && shown[count - 1]);

  it('starts with the tray’s state: nothing unread, no relay, federation running', () => {
    expect(stream.state).toEqual({ unread: 0, relay: 'none', federationPaused: false, streaming: true, error: null });
    expect(trayState(stream.state).tooltip).toBe('Hearth\nNo unread notifications');
    expect(states.at(-1)).toEqual(stream.state);
  });

  it('a mention by another account: a notification that opens the post; the unread count goes up', async () => {
    const s = await post(bob, { status: '@kim look <b>here</b> & there' });
    expect(await next(1)).toEqual({ kind: 'mention', title: 'bob mentioned you', body: '@kim look <b>here</b> & there', path: `/@bob/${s.id}`, tag: `status:${s.id}`, id: expect.any(String) });
    await eventually(() => stream.state.unread === 1);
  });

  it('a private mention is a direct message; a content warning hides the text', async () => {
    const s = await post(bob, { status: '@kim just between us', visibility: 'direct', spoiler_text: 'private matter' });
    expect(await next(2)).toMatchObject({ kind: 'direct', title: 'bob sent you a private mention', body: 'Content warning: private matter', path: `/@bob/${s.id}` });
    await eventually(() => stream.state.unread === 2);
  });

  it('a follow opens the follower’s profile', async () => {
    expect((await bob.client.post(`/api/v1/accounts/${kim.accountId}/follow`)).status).toBe(200);
    expect(await next(3)).toMatchObject({ kind: 'follow', title: 'bob followed you', body: '@bob', path: '/@bob' });
    await eventually(() => stream.state.unread === 3);
  });

  it('kinds turned off, and what the window shows, make no notification (the count still moves)', async () => {
    kinds = { ...kinds, mention: false };
    await post(bob, { status: '@kim muted by settings' });
    await eventually(() => stream.state.unread === 4);
    kinds = { ...kinds, mention: true };
    focus = { focused: true, path: '/notifications' };
    await post(bob, { status: '@kim seen on screen' });
    await eventually(() => stream.state.unread === 5);
    focus = { focused: false, path: null };
    expect(shown).toHaveLength(3);
  });

  it('the count resets once the notifications marker is set', async () => {
    const [latest] = (await kim.client.get('/api/v1/notifications?limit=1')).body as { id: string }[];
    expect((await kim.client.post('/api/v1/markers', { notifications: { last_read_id: latest?.id } })).status).toBe(200);
    expect((await stream.markerMoved()).unread).toBe(0);
  });

  it('pauses and resumes federation for the tray', async () => {
    expect((await stream.setFederationPaused(true)).federationPaused).toBe(true);
    expect(trayState(stream.state).menu.federation).toMatchObject({ label: 'Resume federation', action: 'resume' });
    expect(((await kim.client.withToken(inst.tokenFor(kim, 'read')).get('/api/hearth/federation', { skipSchema: true })).body as { paused: boolean }).paused).toBe(true);
    expect((await stream.setFederationPaused(false)).federationPaused).toBe(false);
    // Refused with a sentence (bob is not the owner).
    const bobs = new NotificationStream({ baseUrl: inst.url, token: inst.tokenFor(bob, 'read write'), kinds: () => kinds, focus: () => focus, onNotification: () => {} });
    await expect(bobs.setFederationPaused(true)).rejects.toThrow('Hearth could not pause federation: This action is not allowed');
  });

  it('reconnects after the server restarts, and notifications flow again', async () => {
    await inst.close();
    await eventually(() => !stream.state.streaming);
    inst = await startInstance({ dataDir, port });
    await eventually(() => stream.state.streaming, 10_000);
    const s = await post(bob, { status: '@kim back again' });
    expect(await next(4)).toMatchObject({ kind: 'mention', path: `/@bob/${s.id}`, body: '@kim back again' });
    await eventually(() => stream.state.unread === 1);
    // The tray went through "not streaming" and back.
    expect(states.some((s) => !s.streaming)).toBe(true);
  });
});
