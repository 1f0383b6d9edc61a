import type { NotificationRow } from '../../db/repos/notifications.js';
import { findStatusById } from '../../db/repos/statuses.js';
import { toMastodonAccount } from '../../serializers/account.js';
import { htmlToPlainText } from '../../util/text/plain.js';
import { loadAccountViews } from '../accounts/views.js';
import type { Deps } from '../deps.js';

/**
 * The JSON a push message carries, as Mastodon's web push payload: `access_token` (the
 * subscription's token, so that a client with several accounts knows whose notification it is),
 * `preferred_locale`, `notification_id`, `notification_type`, `icon` (the sender's avatar),
 * `title` and `body` (what a phone shows without fetching anything).
 */

/** The part of a payload that is the same for every subscription of the recipient. */
export interface PushContent {
  notificationId: string;
  type: string;
  title: string;
  body: string;
  icon: string;
}

/** Longest body, in characters, as Mastodon cuts it. */
const BODY_LENGTH = 140;

// The "RE: <link>" paragraph a quote carries for software that does not show quotes: the phone
// shows the quoting text only, as clients hide that paragraph.
const QUOTE_INLINE = /<p\b[^>]*\bclass="[^"]*\bquote-inline\b[^"]*"[^>]*>[\s\S]*?<\/p>/g;

/** `text` cut to `max` characters (code points), ending with an ellipsis when cut. */
function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** The title a phone shows for a notification from `name` (the sender's display name or username). */
function titleOf(type: string, name: string, own: boolean): string {
  switch (type) {
    case 'mention':
      return `${name} mentioned you`;
    case 'status':
      return `${name} just posted`;
    case 'reblog':
      return `${name} boosted your post`;
    case 'follow':
      return `${name} followed you`;
    case 'follow_request':
      return `${name} asked to follow you`;
    case 'favourite':
      return `${name} favourited your post`;
    case 'poll':
      return own ? 'Your poll has ended' : `A poll by ${name} has ended`;
    case 'update':
      return `${name} edited a post`;
    case 'admin.sign_up':
      return `${name} signed up`;
    case 'admin.report':
      return `${name} filed a report`;
    case 'quote':
      return `${name} quoted your post`;
    case 'quoted_update':
      return `${name} edited a post you quoted`;
    case 'severed_relationships':
      return 'Some of your follow relationships were severed';
    case 'moderation_warning':
      return 'You received a moderation warning';
    case 'added_to_collection':
      return `${name} added you to a collection`;
    case 'collection_update':
      return `${name} updated a collection`;
    default:
      return `New notification from ${name}`;
  }
}

/**
 * What the push messages of a notification say, as Mastodon words them in substance: a title
 * naming the sender, and as body the status's content warning or text, else the sender's bio,
 * as plain text of at most 140 characters. Null when the notification's sender is gone.
 */
export function pushContentOf(deps: Deps, notification: NotificationRow): PushContent | null {
  const view = loadAccountViews(deps, [notification.from_account_id]).get(notification.from_account_id);
  if (!view) return null;
  const sender = toMastodonAccount(view, deps.uris);
  const name = sender.display_name.trim() || sender.username;
  const status = notification.status_id === null ? undefined : findStatusById(deps.db, notification.status_id);
  const text = status ? status.spoiler_text.trim() || htmlToPlainText(status.content.replace(QUOTE_INLINE, '')) : htmlToPlainText(sender.note);
  return {
    notificationId: notification.id,
    type: notification.type,
    title: titleOf(notification.type, name, notification.from_account_id === notification.account_id),
    body: truncate(text.replace(/\s+/g, ' ').trim(), BODY_LENGTH),
    icon: sender.avatar_static,
  };
}

/**
 * The payload's JSON text for one subscription. `notification_id` is a JSON number as Mastodon
 * sends it (typed clients decode it as an integer), written with all its digits: Hearth's ids are
 * 64-bit, beyond what JSON.stringify of a JavaScript number keeps exactly.
 */
export function pushPayloadText(content: PushContent, accessToken: string, locale: string | null): string {
  if (!/^[0-9]{1,19}$/.test(content.notificationId)) throw new Error(`not an id: ${content.notificationId}`);
  const fields: [string, string][] = [
    ['access_token', JSON.stringify(accessToken)],
    ['preferred_locale', JSON.stringify(locale || 'en')],
    ['notification_id', content.notificationId],
    ['notification_type', JSON.stringify(content.type)],
    ['icon', JSON.stringify(content.icon)],
    ['title', JSON.stringify(content.title)],
    ['body', JSON.stringify(content.body)],
  ];
  return `{${fields.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`;
}
