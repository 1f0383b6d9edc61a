import { findAccountByHandle, findAccountById, findAccountByUri, insertAccount, updateAccount, type AccountRow } from '../../db/repos/accounts.js';
import { now } from '../../util/clock.js';
import { newId } from '../../util/ids.js';
import { sanitizeRemoteHtml } from '../../util/text/index.js';
import type { Deps } from '../deps.js';
import { moderationOfNewAccount } from './instance-domains.js';

/** A remote actor as federation read it (see `fromApActor`), before it is stored. */
export interface RemoteActorData {
  uri: string;
  username: string;
  /** Host of the handle, lower case, Unicode. */
  domain: string;
  url: string | null;
  actorType: AccountRow['actor_type'];
  displayName: string;
  /** HTML as received; sanitized here. */
  note: string;
  fields: { name: string; value: string }[];
  locked: boolean;
  discoverable: boolean | null;
  indexable: boolean;
  memorial: boolean;
  avatarUrl: string | null;
  headerUrl: string | null;
  alsoKnownAs: string[];
  movedToUri: string | null;
  publicKeyPem: string | null;
  inbox: string | null;
  outbox: string | null;
  sharedInbox: string | null;
  followers: string | null;
  following: string | null;
  featured: string | null;
  featuredTags: string | null;
}

/**
 * Stores or refreshes a remote account from its actor document, keyed by its ActivityPub id:
 * profile (note and field values sanitized), keys, inboxes and collections. A handle already taken
 * by another uri (an actor that was re-created) moves to the new uri. Emits 'account.updated' for
 * a known account and 'account.created' for a new one.
 */
export function upsertRemoteAccount(deps: Deps, data: RemoteActorData): AccountRow {
  const at = now();
  const moved = data.movedToUri ? (findAccountByUri(deps.db, data.movedToUri) ?? localAccountByUri(deps, data.movedToUri)) : undefined;
  const columns = {
    username: data.username,
    domain: data.domain,
    uri: data.uri,
    url: data.url,
    actor_type: data.actorType,
    display_name: data.displayName.slice(0, 100),
    note: sanitizeRemoteHtml(data.note),
    fields: JSON.stringify(data.fields.slice(0, 16).map((f) => ({ name: f.name.slice(0, 255), value: sanitizeRemoteHtml(f.value), verified_at: null }))),
    locked: data.locked ? 1 : 0,
    discoverable: data.discoverable === null ? null : data.discoverable ? 1 : 0,
    indexable: data.indexable ? 1 : 0,
    memorial: data.memorial ? 1 : 0,
    avatar_remote_url: data.avatarUrl,
    header_remote_url: data.headerUrl,
    also_known_as: JSON.stringify(data.alsoKnownAs),
    // A movedTo naming an account not known here keeps what a Move already recorded.
    moved_to_account_id: moved?.id ?? (data.movedToUri ? undefined : null),
    public_key_pem: data.publicKeyPem,
    inbox_url: data.inbox,
    outbox_url: data.outbox,
    shared_inbox_url: data.sharedInbox,
    followers_url: data.followers,
    following_url: data.following,
    featured_url: data.featured,
    featured_tags_url: data.featuredTags,
    last_fetched_at: at,
    updated_at: at,
  };
  const result = deps.db.transaction(() => {
    const existing = findAccountByUri(deps.db, data.uri);
    if (existing) {
      updateAccount(deps.db, existing.id, columns);
      return { id: existing.id, created: false };
    }
    // The handle belongs to an older actor with another id: that row is the same person.
    const sameHandle = findAccountByHandle(deps.db, data.username, data.domain);
    if (sameHandle) {
      updateAccount(deps.db, sameHandle.id, columns);
      return { id: sameHandle.id, created: false };
    }
    const id = newId(at);
    // A new account of a blocked domain starts limited or suspended, as the block says.
    insertAccount(deps.db, { id, created_at: at, ...columns, ...moderationOfNewAccount(deps, data.domain) });
    return { id, created: true };
  });
  const row = findAccountById(deps.db, result.id);
  if (!row) throw new Error(`remote account ${data.uri} vanished`);
  deps.events.emit(result.created ? 'account.created' : 'account.updated', { accountId: row.id });
  return row;
}

/** A local account by its actor URI (`<origin>/users/<name>`; local rows store no uri). */
function localAccountByUri(deps: Deps, uri: string): AccountRow | undefined {
  const prefix = deps.uris.accountUri('');
  if (!uri.startsWith(prefix)) return undefined;
  const name = uri.slice(prefix.length);
  if (name === '' || name.includes('/')) return undefined;
  return findAccountByHandle(deps.db, decodeURIComponent(name), null);
}

/** A stored remote account by its ActivityPub id. */
export function findRemoteAccount(deps: Deps, uri: string): AccountRow | undefined {
  const row = findAccountByUri(deps.db, uri);
  return row && row.domain !== null ? row : undefined;
}
