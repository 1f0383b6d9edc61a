/**
 * OAuth scopes as Mastodon documents them: high-level scopes and the granular scopes each one
 * covers, with the human-readable descriptions the consent page shows.
 */
export interface ScopeInfo {
  /** Human-readable description for the consent page. */
  description: string;
  /** Marked on the consent page: the scope allows changes that are hard to undo or admin power. */
  dangerous: boolean;
}

const GRANULAR: Record<string, readonly string[]> = {
  read: [
    'read:accounts', 'read:blocks', 'read:bookmarks', 'read:collections', 'read:favourites', 'read:filters',
    'read:follows', 'read:lists', 'read:mutes', 'read:notifications', 'read:search', 'read:statuses',
  ],
  write: [
    'write:accounts', 'write:blocks', 'write:bookmarks', 'write:collections', 'write:conversations',
    'write:favourites', 'write:filters', 'write:follows', 'write:lists', 'write:media', 'write:mutes',
    'write:notifications', 'write:reports', 'write:statuses',
  ],
  follow: ['read:blocks', 'read:follows', 'read:mutes', 'write:blocks', 'write:follows', 'write:mutes'],
  'admin:read': [
    'admin:read:accounts', 'admin:read:canonical_email_blocks', 'admin:read:domain_allows',
    'admin:read:domain_blocks', 'admin:read:email_domain_blocks', 'admin:read:ip_blocks', 'admin:read:reports',
  ],
  'admin:write': [
    'admin:write:accounts', 'admin:write:canonical_email_blocks', 'admin:write:domain_allows',
    'admin:write:domain_blocks', 'admin:write:email_domain_blocks', 'admin:write:ip_blocks', 'admin:write:reports',
  ],
};

const TOP_LEVEL = ['profile', 'read', 'write', 'follow', 'push', 'admin:read', 'admin:write'] as const;

/** Every scope this server knows, high-level first. */
export const ALL_SCOPES: readonly string[] = [
  ...TOP_LEVEL,
  ...new Set(Object.values(GRANULAR).flat()),
];

const DESCRIPTIONS: Record<string, string> = {
  profile: 'Read only your account’s profile information',
  read: 'Read all your account’s data',
  write: 'Modify all your account’s data',
  follow: 'Modify account relationships',
  push: 'Receive your push notifications',
  'admin:read': 'Read all data on the server',
  'admin:write': 'Modify all data on the server',
  'read:accounts': 'See accounts information',
  'read:blocks': 'See your blocks',
  'read:bookmarks': 'See your bookmarks',
  'read:collections': 'See your collections',
  'read:favourites': 'See your favourites',
  'read:filters': 'See your filters',
  'read:follows': 'See your follows',
  'read:lists': 'See your lists',
  'read:mutes': 'See your mutes',
  'read:notifications': 'See your notifications',
  'read:search': 'Search on your behalf',
  'read:statuses': 'See all posts',
  'write:accounts': 'Modify your profile',
  'write:blocks': 'Block accounts and domains',
  'write:bookmarks': 'Bookmark posts',
  'write:collections': 'Modify your collections',
  'write:conversations': 'Mute and delete conversations',
  'write:favourites': 'Favourite posts',
  'write:filters': 'Create filters',
  'write:follows': 'Follow people',
  'write:lists': 'Create lists',
  'write:media': 'Upload media files',
  'write:mutes': 'Mute people and conversations',
  'write:notifications': 'Clear your notifications',
  'write:reports': 'Report other people',
  'write:statuses': 'Publish posts',
};

/** Description and danger flag of a scope, for the consent page. */
export function scopeInfo(scope: string): ScopeInfo {
  let description = DESCRIPTIONS[scope];
  if (!description && scope.startsWith('admin:')) {
    const [, mode, what] = scope.split(':');
    description = `${mode === 'read' ? 'Read' : 'Modify'} ${(what ?? '').replace(/_/g, ' ')} on the server`;
  }
  const dangerous = scope.startsWith('admin:') || scope === 'write' || scope === 'follow' || scope === 'write:accounts' || scope === 'write:blocks';
  return { description: description ?? scope, dangerous };
}

/** True when `scope` is a scope name this server knows. */
export function isKnownScope(scope: string): boolean {
  return ALL_SCOPES.includes(scope);
}

/** Splits a space-separated (or `+`-joined) scope string, dropping duplicates and empty parts. */
export function parseScopes(value: string | undefined | null): string[] {
  if (!value) return [];
  return [...new Set(value.split(/[\s+]+/).filter(Boolean))];
}

/**
 * True when the granted scopes cover the required one: a high-level scope covers its granular
 * scopes (`read` covers `read:statuses`, `follow` covers `write:blocks`, …). `profile` is covered
 * by nothing else: a route that also takes `read:accounts` (verify_credentials) says so, and
 * `/oauth/userinfo` takes only `profile`, as Mastodon's routes declare them.
 */
export function scopeCovers(granted: ReadonlySet<string>, required: string): boolean {
  if (granted.has(required)) return true;
  const parents = PARENTS.get(required);
  if (parents) for (const parent of parents) if (granted.has(parent)) return true;
  return false;
}

// The high-level scopes that cover each granular scope (checked on every request: no walk).
const PARENTS = new Map<string, string[]>();
for (const [parent, children] of Object.entries(GRANULAR)) {
  for (const child of children) PARENTS.set(child, [...(PARENTS.get(child) ?? []), parent]);
}
