import { PRIORITIES } from './protocol.js';

/** What the relay needs to know of an activity to keep or shed it. */
export interface Classified {
  /** The activity's type (`Create`…), `unknown` when the body names none. */
  type: string;
  priority: number;
}

/** Activities never shed over quota: relationships, their undoing, deletions and moves. */
const KEEP = new Set(['Follow', 'Accept', 'Reject', 'Undo', 'Delete', 'Move', 'Block', 'Flag']);

/** Shed first: reactions and boosts (a relay's firehose arrives as Announce too). */
const LOW = new Set(['Like', 'Announce', 'EmojiReact', 'Dislike']);

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap((v) => strings(v));
  if (value && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string') return [(value as { id: string }).id];
  return [];
}

function record(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/**
 * Whether an activity (or its object) names one of the tenant's actors as a recipient or in a
 * Mention tag: a mention or a direct message, never shed. The tenant's followers collections do
 * not count (a post to followers is ordinary traffic).
 */
function addressesTenant(activity: Record<string, unknown>, origin: string): boolean {
  const object = record(activity.object);
  const fields = [activity.to, activity.cc, activity.bto, activity.bcc, activity.audience, object?.to, object?.cc, object?.bto, object?.bcc];
  const named = fields.flatMap((f) => strings(f));
  const tags = [...(Array.isArray(object?.tag) ? object.tag : object?.tag ? [object.tag] : [])]
    .map((t) => record(t))
    .filter((t) => t?.type === 'Mention')
    .flatMap((t) => strings(t?.href));
  return [...named, ...tags].some((url) => url.startsWith(`${origin}/`) && !/\/followers$|\/following$/.test(url));
}

/**
 * The priority of an inbox delivery for the tenant at `origin` (see PRIORITIES): Follows,
 * Undos, Deletes, Moves and the like, and posts addressed to or mentioning the tenant's actors
 * (mentions, direct messages), are kept whatever the quota; Likes and Announces go first; the
 * rest (posts of followed accounts, edits) in between.
 */
export function classify(body: Buffer, origin: string): Classified {
  let activity: Record<string, unknown> | null;
  try {
    activity = record(JSON.parse(body.toString('utf8')));
  } catch {
    activity = null;
  }
  const type = typeof activity?.type === 'string' ? activity.type : 'unknown';
  if (!activity) return { type, priority: PRIORITIES.normal };
  if (KEEP.has(type)) return { type, priority: PRIORITIES.keep };
  // A Like or a boost is shed first even when addressed to the tenant (they address the author).
  if (LOW.has(type)) return { type, priority: PRIORITIES.low };
  if (addressesTenant(activity, origin)) return { type, priority: PRIORITIES.keep };
  return { type, priority: PRIORITIES.normal };
}
