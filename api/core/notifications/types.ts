/** Every notification type Mastodon documents, in its order. */
export const NOTIFICATION_TYPES = [
  'mention',
  'status',
  'reblog',
  'follow',
  'follow_request',
  'favourite',
  'poll',
  'update',
  'admin.sign_up',
  'admin.report',
  'severed_relationships',
  'moderation_warning',
  'quote',
  'quoted_update',
  'added_to_collection',
  'collection_update',
] as const;

export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** The types v2 groups (Mastodon's GROUPABLE_NOTIFICATION_TYPES). */
export const GROUPABLE_TYPES: readonly NotificationType[] = ['favourite', 'reblog', 'follow', 'admin.sign_up'];

/** Types whose notification is about a status (the entity carries `status` / `status_id`). */
export const STATUS_TYPES: ReadonlySet<string> = new Set(['favourite', 'reblog', 'status', 'mention', 'poll', 'update', 'quote', 'quoted_update']);

const KNOWN: ReadonlySet<string> = new Set(NOTIFICATION_TYPES);

/** True when `value` is a notification type name. */
export function isNotificationType(value: string): value is NotificationType {
  return KNOWN.has(value);
}

/**
 * The types a listing asks for, as Mastodon resolves `types[]` and `exclude_types[]`: the asked
 * types (unknown names ignored; none means all), minus the excluded ones. Null means "every type"
 * (no filter); an empty list matches nothing.
 */
export function resolveTypes(types: readonly string[] | undefined, excludeTypes: readonly string[] | undefined): string[] | null {
  const asked = types && types.length > 0 ? NOTIFICATION_TYPES.filter((t) => types.includes(t)) : [...NOTIFICATION_TYPES];
  const excluded = new Set(excludeTypes ?? []);
  const result = asked.filter((t) => !excluded.has(t));
  return result.length === NOTIFICATION_TYPES.length ? null : result;
}

/** The types that v2 may group for a request: `grouped_types[]` restricted to groupable ones, or all groupable. */
export function resolveGroupedTypes(groupedTypes: readonly string[] | undefined): string[] {
  if (!groupedTypes || groupedTypes.length === 0) return [...GROUPABLE_TYPES];
  return GROUPABLE_TYPES.filter((t) => groupedTypes.includes(t));
}
