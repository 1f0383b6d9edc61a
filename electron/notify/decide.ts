// Native notifications from the owner's streaming events (issue 17, item 3): which `notification`
// events of the user stream become a notification on the desktop, and what it says. Pure: no I/O,
// no Electron; the main process shows the result with Electron's Notification and, on click,
// sends the window to `path` (the `navigate` event of electron/contract/ipc.ts).
import type { NotificationKinds } from '../contract/ipc.js';

/** The kinds of desktop notification (the settings' `notifications` keys). */
export type NotifyKind = keyof NotificationKinds;

/** What the desktop shows for a notification. */
export interface NotificationDecision {
  kind: NotifyKind;
  /** Plain text: "Kim mentioned you". */
  title: string;
  /** Plain text: the post's text (or its content warning), or the account's handle. */
  body: string;
  /** Where a click takes the window: the post's thread, the follower's profile, the follow requests. */
  path: string;
  /**
   * A key that notifications about the same thing share (the same post, the same follower): the
   * main process closes the one shown before under the same tag when it shows a new one.
   */
  tag: string;
  /** The notification's id (for the unread count and logs). */
  id: string;
}

/** What the window shows at the moment: no notification is needed for what the person is looking at. */
export interface WindowFocus {
  /** Whether the window is focused (a notification of what it shows adds nothing). */
  focused: boolean;
  /** The app path the window shows (`/@kim/123`, `/notifications`), or null when unknown. */
  path: string | null;
}

/** The longest body shown (characters); longer text is cut at a word with an ellipsis. */
export const MAX_BODY = 200;
/** The longest name in a title. */
const MAX_NAME = 60;

interface AccountLike {
  id: string;
  acct: string;
  username: string;
  display_name?: string;
}

interface StatusLike {
  id: string;
  visibility?: string;
  spoiler_text?: string;
  content?: string;
  account: AccountLike;
  filtered?: unknown[];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function asAccount(v: unknown): AccountLike | null {
  if (!isObject(v) || typeof v.id !== 'string' || typeof v.acct !== 'string' || typeof v.username !== 'string') return null;
  return { id: v.id, acct: v.acct, username: v.username, display_name: typeof v.display_name === 'string' ? v.display_name : '' };
}

function asStatus(v: unknown): StatusLike | null {
  if (!isObject(v) || typeof v.id !== 'string') return null;
  const account = asAccount(v.account);
  if (!account) return null;
  return {
    id: v.id,
    account,
    visibility: typeof v.visibility === 'string' ? v.visibility : 'public',
    spoiler_text: typeof v.spoiler_text === 'string' ? v.spoiler_text : '',
    content: typeof v.content === 'string' ? v.content : '',
    filtered: Array.isArray(v.filtered) ? v.filtered : [],
  };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Decodes the character references of HTML text (named ones Mastodon uses, and numeric ones). */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,6});/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      // Invalid and control code points are dropped rather than shown.
      if (!Number.isFinite(code) || code > 0x10ffff || (code < 0x20 && code !== 0x0a) || (code >= 0xd800 && code <= 0xdfff)) return '';
      return String.fromCodePoint(code);
    }
    return ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/**
 * The text of a post's HTML as plain text: line breaks for `<br>` and between paragraphs, every
 * tag dropped (a notification shows text, never markup), character references decoded, control
 * characters removed and blank runs collapsed.
 */
export function htmlToText(html: string): string {
  const text = html
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/p>\s*<p[^>]*>/gi, '\n\n')
    .replace(/<[^>]*>/g, '')
    .replace(/<[^>]*$/, '');
  return decodeEntities(text)
    .replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, '')
    .replace(/[ \t\u00a0]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Cuts text to `max` characters at a word boundary, with an ellipsis. */
export function clip(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  const cut = chars.slice(0, max - 1).join('');
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

function nameOf(account: AccountLike): string {
  const name = htmlToText(account.display_name ?? '').replace(/\s+/g, ' ') || account.username;
  return clip(name, MAX_NAME);
}

/** Where a notification whose target cannot be named safely takes the window. */
export const NOTIFICATIONS_PATH = '/notifications';

/** A handle as our server writes one (`name` or `name@host[:port]`): nothing that could make another path. */
const SAFE_ACCT = /^[\p{L}\p{N}_.-]+(?:@[A-Za-z0-9.-]+(?::\d{1,5})?)?$/u;

/** The thread of a post in the app (as renderer/src/components/status/paths.ts builds it). */
export function threadPath(status: { id: string; account: { acct: string } }): string {
  if (!SAFE_ACCT.test(status.account.acct) || !/^\d{1,20}$/.test(status.id)) return NOTIFICATIONS_PATH;
  return `/@${status.account.acct}/${status.id}`;
}

/** A profile in the app. */
export function profilePath(account: { acct: string }): string {
  if (!SAFE_ACCT.test(account.acct)) return NOTIFICATIONS_PATH;
  return `/@${account.acct}`;
}

/** The screen of follow requests to answer. */
export const FOLLOW_REQUESTS_PATH = '/people/requests';

/** The body for a post: its content warning when it has one (the text stays behind it), else its text. */
function statusBody(status: StatusLike): string {
  const cw = htmlToText(status.spoiler_text ?? '');
  if (cw !== '') return clip(`Content warning: ${cw}`, MAX_BODY);
  const text = htmlToText(status.content ?? '');
  return clip(text === '' ? 'A post with attachments' : text, MAX_BODY);
}

/** Whether the window already shows `path` to the person. */
function looking(focus: WindowFocus, path: string): boolean {
  if (!focus.focused || focus.path === null) return false;
  // The notifications screen shows every new notification live.
  return focus.path === path || focus.path === '/notifications' || focus.path.startsWith('/notifications/');
}

/**
 * Decides whether the payload of a `notification` event of the owner's user stream (a Mastodon
 * Notification entity, as parsed JSON) becomes a desktop notification, and what it says:
 * - `mention` of a post that is not direct, `direct` for a private mention, `follow`, and
 *   `follow_request`, each only when its kind is on in the settings (`kinds`); every other type,
 *   and anything malformed, gives null;
 * - a notification the policy filtered (`filtered: true`) or about a post that one of the owner's
 *   filters matches (the post's `filtered` results) gives null: it was hidden on purpose;
 * - nothing when the focused window shows the same thing already, or the notifications screen.
 * The body is plain text (HTML stripped), and the content warning, not the text, of a post with one.
 */
export function decideNotification(payload: unknown, kinds: NotificationKinds, focus: WindowFocus): NotificationDecision | null {
  if (!isObject(payload) || typeof payload.id !== 'string' || typeof payload.type !== 'string') return null;
  if (payload.filtered === true) return null;
  const account = asAccount(payload.account);
  if (!account) return null;
  const name = nameOf(account);
  let decision: NotificationDecision;
  switch (payload.type) {
    case 'mention': {
      const status = asStatus(payload.status);
      if (!status) return null;
      if ((status.filtered ?? []).length > 0) return null;
      const direct = status.visibility === 'direct';
      decision = {
        kind: direct ? 'direct' : 'mention',
        title: direct ? `${name} sent you a private mention` : `${name} mentioned you`,
        body: statusBody(status),
        path: threadPath(status),
        tag: `status:${status.id}`,
        id: payload.id,
      };
      break;
    }
    case 'follow':
      decision = { kind: 'follow', title: `${name} followed you`, body: `@${account.acct}`, path: profilePath(account), tag: `follow:${account.id}`, id: payload.id };
      break;
    case 'follow_request':
      decision = {
        kind: 'follow_request',
        title: `${name} asked to follow you`,
        body: `@${account.acct}`,
        path: FOLLOW_REQUESTS_PATH,
        tag: `follow_request:${account.id}`,
        id: payload.id,
      };
      break;
    default:
      return null;
  }
  if (!kinds[decision.kind]) return null;
  if (looking(focus, decision.path)) return null;
  return decision;
}
