import type { Deps } from '../core/deps.js';
import { scopeCovers } from '../core/oauth/scopes.js';
import { normalizeHashtag } from '../core/timelines/listing.js';
import { ownsList } from '../db/repos/streaming.js';

/** The streams Mastodon offers (`stream` values of the WebSocket API). */
export const CHANNELS = [
  'user',
  'user:notification',
  'public',
  'public:media',
  'public:local',
  'public:local:media',
  'public:remote',
  'public:remote:media',
  'hashtag',
  'hashtag:local',
  'list',
  'direct',
] as const;

export type ChannelName = (typeof CHANNELS)[number];

/** The public timelines among the channels. */
export type PublicChannel = Extract<ChannelName, `public${string}`>;

/** A streaming error: sent as `{"error", "status"}` on a socket, or as the HTTP answer of an SSE request. */
export class StreamError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Who is streaming: a user token's account and scopes. */
export interface StreamCaller {
  accountId: string;
  scopes: ReadonlySet<string>;
}

/** A subscription target once checked: the channel, what it selects, and the name events carry. */
export interface ChannelTarget {
  channel: ChannelName;
  /** The `stream` array of each event: `["hashtag", tag]` and `["list", id]` name their parameter. */
  streamName: string[];
  /** One subscription per key and connection. */
  key: string;
  /** Normalized hashtag for hashtag channels. */
  tag: string | null;
  /** List id for the list channel. */
  listId: string | null;
}

/** Parameters of a subscription (query string or subscribe message). */
export interface ChannelParams {
  tag?: unknown;
  list?: unknown;
}

function isChannel(name: string): name is ChannelName {
  return (CHANNELS as readonly string[]).includes(name);
}

/**
 * Whether the caller's scopes allow the channel, as Mastodon checks them: `read` always;
 * otherwise `read:notifications` for notifications and `read:statuses` for everything else.
 */
export function scopesAllow(caller: StreamCaller, channel: ChannelName): boolean {
  return scopeCovers(caller.scopes, channel === 'user:notification' ? 'read:notifications' : 'read:statuses');
}

/** Whether a `user` subscription also gets notifications (Mastodon: only with a notifications scope). */
export function userStreamGetsNotifications(caller: StreamCaller): boolean {
  return scopeCovers(caller.scopes, 'read:notifications');
}

function stringParam(value: unknown): string | null {
  // A repeated query parameter counts by its first value, as Mastodon's streaming server reads it.
  const first = Array.isArray(value) ? (value as unknown[])[0] : value;
  if (typeof first === 'number') return String(first);
  return typeof first === 'string' && first.trim() !== '' ? first : null;
}

/**
 * Checks a subscription request and resolves what it targets. Errors, as Mastodon answers them:
 * an unknown stream is 400 `Unknown stream type`; a token without the scope is 401; a hashtag
 * stream without a tag or a list stream without a list is 400; a list that is not the caller's
 * (or does not exist) is 401 `Not authorized to stream this list`.
 */
export function resolveChannel(deps: Deps, caller: StreamCaller, name: unknown, params: ChannelParams): ChannelTarget {
  const channel = stringParam(name);
  if (channel === null || !isChannel(channel)) throw new StreamError(400, 'Unknown stream type');
  if (!scopesAllow(caller, channel)) throw new StreamError(401, 'Access token does not have the required scopes');
  if (channel === 'hashtag' || channel === 'hashtag:local') {
    const raw = stringParam(params.tag);
    const tag = raw === null ? '' : normalizeHashtag(raw);
    if (raw === null || tag === '') throw new StreamError(400, 'Missing tag name parameter');
    return { channel, streamName: [channel, raw], key: `${channel}:${tag}`, tag, listId: null };
  }
  if (channel === 'list') {
    const list = stringParam(params.list);
    if (list === null) throw new StreamError(400, 'Missing list name parameter');
    if (!/^[0-9]{1,19}$/.test(list) || !ownsList(deps.db, caller.accountId, list)) throw new StreamError(401, 'Not authorized to stream this list');
    return { channel, streamName: [channel, list], key: `list:${list}`, tag: null, listId: list };
  }
  return { channel, streamName: [channel], key: channel, tag: null, listId: null };
}

/**
 * The key of an unsubscribe request: the same stream names and parameters as subscribing, but
 * no scope or ownership check (a list deleted meanwhile can still be left).
 */
export function subscriptionKey(name: unknown, params: ChannelParams): string {
  const channel = stringParam(name);
  if (channel === null || !isChannel(channel)) throw new StreamError(400, 'Unknown stream type');
  if (channel === 'hashtag' || channel === 'hashtag:local') {
    const raw = stringParam(params.tag);
    if (raw === null) throw new StreamError(400, 'Missing tag name parameter');
    return `${channel}:${normalizeHashtag(raw)}`;
  }
  if (channel === 'list') {
    const list = stringParam(params.list);
    if (list === null) throw new StreamError(400, 'Missing list name parameter');
    return `list:${list}`;
  }
  return channel;
}

/**
 * The channel of an SSE path (Mastodon's paths under /api/v1/streaming), or null when the path
 * names none. `only_media` picks the media variant of the public timelines.
 */
export function channelOfPath(path: string, onlyMedia: boolean): ChannelName | null {
  const media = onlyMedia ? ':media' : '';
  switch (path.replace(/\/+$/, '')) {
    case '/api/v1/streaming/user':
      return 'user';
    case '/api/v1/streaming/user/notification':
      return 'user:notification';
    case '/api/v1/streaming/public':
      return `public${media}` as ChannelName;
    case '/api/v1/streaming/public/local':
      return `public:local${media}` as ChannelName;
    case '/api/v1/streaming/public/remote':
      return `public:remote${media}` as ChannelName;
    case '/api/v1/streaming/hashtag':
      return 'hashtag';
    case '/api/v1/streaming/hashtag/local':
      return 'hashtag:local';
    case '/api/v1/streaming/list':
      return 'list';
    case '/api/v1/streaming/direct':
      return 'direct';
    default:
      return null;
  }
}
