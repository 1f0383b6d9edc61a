import { describe, expect, it } from 'vitest';
import type { NotificationKinds } from '../../electron/contract/ipc.js';
import { clip, decideNotification, htmlToText, MAX_BODY, type WindowFocus } from '../../electron/notify/decide.js';
import { trayState } from '../../electron/notify/tray-state.js';

/*
 * The desktop's notification decisions and tray text: pure functions, fed with notification
 * entities shaped as the streaming API sends them.
 */

const ALL: NotificationKinds = { mention: true, direct: true, follow: true, follow_request: true };
const AWAY: WindowFocus = { focused: false, path: null };

const bob = { id: '20', acct: 'bob', username: 'bob', display_name: 'Bob <b>B</b> &amp; co', url: 'http://x/@bob' };
const remote = { id: '21', acct: 'mona@social.example', username: 'mona', display_name: '' };

function status(over: Record<string, unknown> = {}) {
  return { id: '1100', visibility: 'public', spoiler_text: '', content: '<p>Hello <a href="x">@kim</a>,</p><p>how are you? 1 &lt; 2</p>', account: bob, filtered: [], ...over };
}
function notification(type: string, over: Record<string, unknown> = {}) {
  return { id: '900', type, group_key: 'ungrouped-900', created_at: '2026-01-01T00:00:00.000Z', account: bob, ...over };
}

describe('decideNotification', () => {
  it('a mention: who, the post’s text as plain text, its thread, keyed by the post', () => {
    expect(decideNotification(notification('mention', { status: status() }), ALL, AWAY)).toEqual({
      kind: 'mention',
      title: 'Bob B & co mentioned you',
      body: 'Hello @kim,\n\nhow are you? 1 < 2',
      path: '/@bob/1100',
      tag: 'status:1100',
      id: '900',
    });
  });

  it('a private mention is a direct message (its own kind and words)', () => {
    const d = decideNotification(notification('mention', { status: status({ visibility: 'direct', account: remote }), account: remote }), ALL, AWAY);
    expect(d).toMatchObject({ kind: 'direct', title: 'mona sent you a private mention', path: '/@mona@social.example/1100' });
    // Private (followers-only) mentions are ordinary mentions.
    expect(decideNotification(notification('mention', { status: status({ visibility: 'private' }) }), ALL, AWAY)?.kind).toBe('mention');
  });

  it('shows the content warning, never the text behind it', () => {
    const d = decideNotification(notification('mention', { status: status({ spoiler_text: 'spoilers &amp; <i>more</i>', content: '<p>the secret ending</p>' }) }), ALL, AWAY);
    expect(d?.body).toBe('Content warning: spoilers & more');
    expect(JSON.stringify(d)).not.toContain('secret');
  });

  it('a follow opens the follower’s profile; a follow request, the requests screen', () => {
    expect(decideNotification(notification('follow', { account: remote }), ALL, AWAY)).toEqual({
      kind: 'follow',
      title: 'mona followed you',
      body: '@mona@social.example',
      path: '/@mona@social.example',
      tag: 'follow:21',
      id: '900',
    });
    expect(decideNotification(notification('follow_request'), ALL, AWAY)).toMatchObject({ kind: 'follow_request', title: 'Bob B & co asked to follow you', path: '/people/requests', tag: 'follow_request:20' });
  });

  it('each kind only when the settings turn it on', () => {
    const cases: [keyof NotificationKinds, ReturnType<typeof notification>][] = [
      ['mention', notification('mention', { status: status() })],
      ['direct', notification('mention', { status: status({ visibility: 'direct' }) })],
      ['follow', notification('follow')],
      ['follow_request', notification('follow_request')],
    ];
    for (const [kind, payload] of cases) {
      expect(decideNotification(payload, ALL, AWAY)?.kind).toBe(kind);
      expect(decideNotification(payload, { ...ALL, [kind]: false }, AWAY)).toBeNull();
    }
    // Direct messages off leaves public mentions on, and the other way round.
    expect(decideNotification(cases[0]?.[1], { ...ALL, direct: false }, AWAY)?.kind).toBe('mention');
    expect(decideNotification(cases[1]?.[1], { ...ALL, mention: false }, AWAY)?.kind).toBe('direct');
  });

  it('no alert for other types, filtered notifications, filtered posts, or malformed payloads', () => {
    for (const type of ['favourite', 'reblog', 'status', 'poll', 'update', 'admin.sign_up', 'admin.report', 'quote', 'moderation_warning', 'severed_relationships']) {
      expect(decideNotification(notification(type, { status: status() }), ALL, AWAY)).toBeNull();
    }
    expect(decideNotification(notification('mention', { status: status(), filtered: true }), ALL, AWAY)).toBeNull();
    expect(decideNotification(notification('follow', { filtered: true }), ALL, AWAY)).toBeNull();
    const warned = status({ filtered: [{ filter: { id: '1', title: 'spoilers', context: ['notifications'], filter_action: 'warn' }, keyword_matches: ['ending'] }] });
    expect(decideNotification(notification('mention', { status: warned }), ALL, AWAY)).toBeNull();
    for (const bad of [null, 'mention', 42, [], {}, { type: 'mention' }, notification('mention'), notification('mention', { status: { id: '1' } }), notification('follow', { account: { id: 1 } })]) {
      expect(decideNotification(bad, ALL, AWAY)).toBeNull();
    }
  });

  it('nothing for what the focused window shows: the same thread, the notifications screen', () => {
    const mention = notification('mention', { status: status() });
    expect(decideNotification(mention, ALL, { focused: true, path: '/@bob/1100' })).toBeNull();
    expect(decideNotification(mention, ALL, { focused: true, path: '/notifications' })).toBeNull();
    expect(decideNotification(mention, ALL, { focused: true, path: '/notifications/mentions' })).toBeNull();
    // Elsewhere, or not focused: shown.
    expect(decideNotification(mention, ALL, { focused: true, path: '/' })).not.toBeNull();
    expect(decideNotification(mention, ALL, { focused: false, path: '/@bob/1100' })).not.toBeNull();
    expect(decideNotification(notification('follow'), ALL, { focused: true, path: '/@bob' })).toBeNull();
  });

  it('paths are built only from handles and ids as our server writes them', () => {
    const odd = { ...bob, acct: '../settings?x=1' };
    expect(decideNotification(notification('follow', { account: odd }), ALL, AWAY)?.path).toBe('/notifications');
    expect(decideNotification(notification('mention', { status: status({ id: '1/../../x' }) }), ALL, AWAY)?.path).toBe('/notifications');
    expect(decideNotification(notification('follow', { account: { ...bob, acct: 'zoë@host.example:8443' } }), ALL, AWAY)?.path).toBe('/@zoë@host.example:8443');
  });

  it('long text is cut at a word; a post with only media says so; names fall back to the username', () => {
    const long = decideNotification(notification('mention', { status: status({ content: `<p>${'word '.repeat(100)}</p>` }) }), ALL, AWAY);
    expect([...(long?.body ?? '')].length).toBeLessThanOrEqual(MAX_BODY);
    expect(long?.body.endsWith('word…')).toBe(true);
    expect(decideNotification(notification('mention', { status: status({ content: '' }) }), ALL, AWAY)?.body).toBe('A post with attachments');
    expect(decideNotification(notification('follow', { account: { ...bob, display_name: '  ' } }), ALL, AWAY)?.title).toBe('bob followed you');
  });
});

describe('htmlToText and clip', () => {
  it('drops tags and scripts’ markup, decodes references, keeps line breaks', () => {
    expect(htmlToText('a<br>b<br/>c')).toBe('a\nb\nc');
    expect(htmlToText('<p>x</p><p>y</p>')).toBe('x\n\ny');
    expect(htmlToText('<script>alert(1)</script>&#x41;&#66;&nbsp;&unknown; &#0;&#x1F600;')).toBe('alert(1)AB &unknown; 😀');
    expect(htmlToText('<span class="invisible">https://</span>example.org<a')).toBe('https://example.org');
    expect(htmlToText('a\u0007b\u001b')).toBe('ab');
  });

  it('cuts at a word boundary, counting characters, not code units', () => {
    expect(clip('short', 10)).toBe('short');
    expect(clip('one two three four', 10)).toBe('one two…');
    expect(clip('😀'.repeat(12), 10)).toBe(`${'😀'.repeat(9)}…`);
  });
});

describe('trayState', () => {
  it('unread count, relay state and the pause item', () => {
    expect(trayState({ unread: 3, relay: 'connected', federationPaused: false })).toEqual({
      tooltip: 'Hearth\n3 unread notifications\nRelay connected',
      menu: {
        open: { label: 'Open Hearth', enabled: true },
        federation: { label: 'Pause federation', action: 'pause', enabled: true },
        quit: { label: 'Quit Hearth', enabled: true },
      },
      badgeCount: 3,
      badgeText: '3',
    });
  });

  it('paused: says so instead of the relay, and offers to resume', () => {
    const view = trayState({ unread: 0, relay: 'disconnected', federationPaused: true });
    expect(view.tooltip).toBe('Hearth\nNo unread notifications\nFederation paused');
    expect(view.menu.federation).toEqual({ label: 'Resume federation', action: 'resume', enabled: true });
    expect(view.badgeCount).toBe(0);
    expect(view.badgeText).toBe('');
  });

  it('without a relay, unknown states, and large counts', () => {
    expect(trayState({ unread: 1, relay: 'none', federationPaused: false }).tooltip).toBe('Hearth\n1 unread notification');
    expect(trayState({ unread: 0, relay: 'disconnected', federationPaused: false }).tooltip).toBe('Hearth\nNo unread notifications\nRelay not connected');
    const unknown = trayState({ unread: null, relay: 'unknown', federationPaused: null });
    expect(unknown.tooltip).toBe('Hearth\nHearth is not answering');
    expect(unknown.menu.federation.enabled).toBe(false);
    expect(unknown.badgeCount).toBe(0);
    const many = trayState({ unread: 250, relay: 'connected', federationPaused: false });
    expect(many.badgeCount).toBe(250);
    expect(many.badgeText).toBe('99+');
    expect(trayState({ unread: Number.NaN, relay: 'none', federationPaused: false }).badgeCount).toBe(0);
  });
});
