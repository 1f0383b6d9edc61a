import { findAccountById, type AccountRow } from '../../db/repos/accounts.js';
import { blockedEitherWay, findBlock } from '../../db/repos/blocks.js';
import {
  accountCollections,
  collectionsFeaturing,
  countCollections,
  deleteCollection as deleteCollectionRow,
  findCollection,
  insertCollection,
  insertCollectionItem,
  updateCollection as updateCollectionRow,
  type CollectionRow,
} from '../../db/repos/collections.js';
import { findUserByAccountId } from '../../db/repos/users.js';
import type { Account } from '../../serializers/account.js';
import type { MastodonCollection } from '../../serializers/collection.js';
import { now } from '../../util/clock.js';
import { ApiError, forbidden, notFound } from '../../util/errors.js';
import { isId, newId } from '../../util/ids.js';
import { isLanguageCode } from '../accounts/languages.js';
import type { Deps } from '../deps.js';
import { cleanTagName, findOrCreateTag, isValidTagName } from '../tags/tags.js';
import { presentCollections, presentCollectionWithAccounts } from './present.js';

/**
 * Collections (Mastodon 4.6): named lists of accounts a user recommends, each featured account an
 * item. A local account can be featured when it opted into discovery and neither side blocks the
 * other; it is accepted at once, as Mastodon accepts local accounts. Remote accounts publish no
 * feature approval policy Hearth knows of (Mastodon's "missing" policy), so they cannot be
 * featured yet.
 */

/** Longest name and description of a local collection, as Mastodon validates them. */
export const NAME_MAX = 40;
export const DESCRIPTION_MAX = 100;
/** Most items (accepted or waiting) a collection holds, as Mastodon's Collection::MAX_ITEMS. */
export const MAX_ITEMS = 25;
/** Most collections one account curates. */
export const MAX_COLLECTIONS = 10;

/** The attributes of a collection as a request gives them; absent means unchanged (or the default). */
export interface CollectionInput {
  name?: string | undefined;
  description?: string | undefined;
  language?: string | undefined;
  tag_name?: string | undefined;
  sensitive?: boolean | undefined;
  discoverable?: boolean | undefined;
}

/**
 * A validation failure of a collection, in the shape the collections API answers it: the message
 * and the per-attribute details nested under `error` (Mastodon's ValidationErrorFormatter).
 */
class CollectionProblems {
  private readonly messages: string[] = [];
  private readonly details: Record<string, { error: string; description: string }[]> = {};

  add(attribute: string, label: string, code: string, description: string): void {
    this.messages.push(`${label} ${description}`);
    (this.details[attribute] ??= []).push({ error: code, description });
  }

  throwIfAny(): void {
    if (this.messages.length === 0) return;
    const message = `Validation failed: ${this.messages.join(', ')}`;
    throw new ApiError(422, message, { extra: { error: { error: message, details: this.details } } });
  }
}

/** Applies `input` to `base`, checking every attribute; 422 naming each problem. */
function applyInput(deps: Deps, base: CollectionRow, input: CollectionInput, problems: CollectionProblems): CollectionRow {
  const row = { ...base };
  if (input.name !== undefined) row.name = input.name.trim();
  if (row.name === '') problems.add('name', 'Name', 'ERR_BLANK', "can't be blank");
  else if ([...row.name].length > NAME_MAX) problems.add('name', 'Name', 'ERR_TOO_LONG', `is too long (maximum is ${NAME_MAX} characters)`);
  if (input.description !== undefined) row.description = input.description;
  if ([...row.description].length > DESCRIPTION_MAX) {
    problems.add('description', 'Description', 'ERR_TOO_LONG', `is too long (maximum is ${DESCRIPTION_MAX} characters)`);
  }
  if (input.language !== undefined) {
    const language = input.language.trim().toLowerCase();
    if (language === '') row.language = null;
    else if (isLanguageCode(language)) row.language = language;
    else problems.add('language', 'Language', 'ERR_INCLUSION', 'is not included in the list');
  }
  if (input.tag_name !== undefined) {
    const name = cleanTagName(input.tag_name);
    if (name === '') row.tag_id = null;
    else if (!isValidTagName(name)) problems.add('tag_name', 'Tag name', 'ERR_INVALID', 'is invalid');
    else row.tag_id = findOrCreateTag(deps, name).id;
  }
  if (input.sensitive !== undefined) row.sensitive = input.sensitive ? 1 : 0;
  if (input.discoverable !== undefined) row.discoverable = input.discoverable ? 1 : 0;
  return row;
}

/** An account the curator asks to feature: 404 when unknown, 403 when it cannot be featured. */
export function featureableAccount(deps: Deps, curatorId: string, accountId: string): AccountRow {
  const target = isId(accountId) ? findAccountById(deps.db, accountId) : undefined;
  if (!target || target.suspended_at !== null) throw notFound();
  if (target.domain === null && findUserByAccountId(deps.db, target.id)?.approved === 0) throw notFound();
  // Only local accounts that opted into discovery publish a policy that lets others feature them.
  if (target.domain !== null || target.discoverable !== 1) throw forbidden();
  if (blockedEitherWay(deps.db, curatorId, target.id)) throw forbidden();
  return target;
}

/** A collection by id; 404 when there is none. */
export function loadCollection(deps: Deps, id: string): CollectionRow {
  const row = isId(id) ? findCollection(deps.db, id) : undefined;
  if (!row) throw notFound();
  return row;
}

/** A collection the account curates: 404 when there is none, 403 when it is someone else's. */
export function loadOwnCollection(deps: Deps, accountId: string, id: string): CollectionRow {
  const row = loadCollection(deps, id);
  if (row.account_id !== accountId) throw forbidden();
  return row;
}

function presentOne(deps: Deps, row: CollectionRow, viewerId: string): MastodonCollection {
  const [entity] = presentCollections(deps, [row], viewerId);
  if (!entity) throw notFound();
  return entity;
}

/**
 * `POST /api/v1/collections`: a new collection with the accounts of `accountIds` as its first
 * items (each must be featureable: 404 unknown, 403 not allowed), all written in one transaction.
 */
export function createCollection(deps: Deps, curator: AccountRow, input: CollectionInput, accountIds: readonly string[]): MastodonCollection {
  const problems = new CollectionProblems();
  const at = now();
  const base: CollectionRow = {
    id: newId(at),
    account_id: curator.id,
    name: '',
    description: '',
    language: null,
    tag_id: null,
    sensitive: 0,
    discoverable: 1,
    created_at: at,
    updated_at: at,
  };
  const wanted = [...new Set(accountIds)];
  if (wanted.length > MAX_ITEMS) problems.add('collection_items', 'Collection items', 'ERR_TOO_LONG', `is too long (maximum is ${MAX_ITEMS} items)`);
  if (countCollections(deps.db, curator.id) >= MAX_COLLECTIONS) {
    problems.add('base', 'Collections', 'ERR_TOO_LONG', `are too many (maximum is ${MAX_COLLECTIONS})`);
  }
  const targets = wanted.map((id) => featureableAccount(deps, curator.id, id));
  const added: { itemId: string; accountId: string }[] = [];
  const row = deps.db.transaction(() => {
    const r = applyInput(deps, base, input, problems);
    problems.throwIfAny();
    insertCollection(deps.db, r);
    for (const target of targets) {
      const itemId = newId(at);
      insertCollectionItem(deps.db, { id: itemId, collection_id: r.id, account_id: target.id, state: 'accepted', created_at: at, updated_at: at });
      added.push({ itemId, accountId: target.id });
    }
    return r;
  });
  // Each featured account is told, as when it is added later (items.ts).
  for (const a of added) deps.events.emit('collection_item.added', { itemId: a.itemId, collectionId: row.id, curatorId: curator.id, accountId: a.accountId });
  return presentOne(deps, row, curator.id);
}

/** `PATCH /api/v1/collections/:id`: changes the given attributes of one's own collection. */
export function updateCollection(deps: Deps, curatorId: string, id: string, input: CollectionInput): MastodonCollection {
  const existing = loadOwnCollection(deps, curatorId, id);
  const problems = new CollectionProblems();
  const row = deps.db.transaction(() => {
    const r = applyInput(deps, { ...existing, updated_at: now() }, input, problems);
    problems.throwIfAny();
    updateCollectionRow(deps.db, r);
    return r;
  });
  return presentOne(deps, row, curatorId);
}

/** `DELETE /api/v1/collections/:id`: deletes one's own collection and its items. */
export function deleteCollection(deps: Deps, curatorId: string, id: string): void {
  const row = loadOwnCollection(deps, curatorId, id);
  deps.db.transaction(() => deleteCollectionRow(deps.db, row.id));
}

/**
 * `GET /api/v1/collections/:id`: the collection with the accounts it shows; 403 when its curator
 * blocks the viewer (Mastodon's CollectionPolicy#show?).
 */
export function showCollection(deps: Deps, id: string, viewerId: string | null): { collection: MastodonCollection; accounts: Account[] } {
  const row = loadCollection(deps, id);
  if (curatorBlocks(deps, row.account_id, viewerId)) throw forbidden();
  return presentCollectionWithAccounts(deps, row, viewerId);
}

/** True when the curator blocks the (signed-in, other) viewer: what hides their collections (Mastodon's policies). */
function curatorBlocks(deps: Deps, curatorId: string, viewerId: string | null): boolean {
  return viewerId !== null && viewerId !== curatorId && findBlock(deps.db, curatorId, viewerId) !== undefined;
}

/**
 * `GET /api/v1/accounts/:account_id/collections`: an account's collections, newest first; only the
 * discoverable ones unless they are the viewer's own; none when the account blocks the viewer.
 */
export function listAccountCollections(deps: Deps, accountId: string, viewerId: string | null, offset: number, limit: number): MastodonCollection[] {
  const account = isId(accountId) ? findAccountById(deps.db, accountId) : undefined;
  if (!account) throw notFound();
  if (curatorBlocks(deps, account.id, viewerId)) return [];
  const rows = accountCollections(deps.db, account.id, viewerId !== account.id, offset, limit);
  return presentCollections(deps, rows, viewerId);
}

/** `GET /api/v1/accounts/:account_id/in_collections`: the collections featuring the viewer (their own id only, 403 otherwise). */
export function listCollectionsFeaturing(deps: Deps, accountId: string, viewerId: string, offset: number, limit: number): MastodonCollection[] {
  const account = isId(accountId) ? findAccountById(deps.db, accountId) : undefined;
  if (!account) throw notFound();
  if (account.id !== viewerId) throw forbidden();
  return presentCollections(deps, collectionsFeaturing(deps.db, account.id, offset, limit), viewerId);
}
