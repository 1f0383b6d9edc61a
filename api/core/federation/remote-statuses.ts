import { findAccountByUri, findAccountsByIds, type AccountRow } from '../../db/repos/accounts.js';
import { insertRemoteMedia, orphanRepliesTo } from '../../db/repos/federation.js';
import { findMediaByStatusIds } from '../../db/repos/media.js';
import { hasStatusEdits, insertStatusEdit } from '../../db/repos/status-edits.js';
import {
  bumpAccountStatuses,
  bumpStatusCounter,
  deleteStatusRow,
  findReblogBy,
  findStatusById,
  findStatusByUri,
  insertConversation,
  insertStatus,
  updateStatus,
  type StatusRow,
  type Visibility,
} from '../../db/repos/statuses.js';
import { now } from '../../util/clock.js';
import { newId } from '../../util/ids.js';
import { sanitizeRemoteHtml } from '../../util/text/index.js';
import type { Deps } from '../deps.js';
import { insertPoll } from '../../db/repos/polls.js';
import { setRemotePollCounts } from '../../db/repos/federation.js';
import { deleteStatus, reblogTargetOf } from '../statuses/delete.js';
import { saveRemoteQuoting, updateRemoteQuoting, type RemoteQuotingData } from '../statuses/quotes-remote.js';
import { saveMentions, saveTags } from '../statuses/text.js';

/** An attachment of a remote status, as federation read it. */
export interface RemoteAttachmentData {
  url: string;
  mediaType: string | null;
  description: string | null;
  blurhash: string | null;
  focus: { x: number; y: number } | null;
}

/** A remote Note (or Question) as federation read it (see `fromApNote`), before it is stored. */
export interface RemoteNoteData {
  uri: string;
  url: string | null;
  /** HTML as received; sanitized here. */
  content: string;
  spoilerText: string;
  sensitive: boolean;
  language: string | null;
  visibility: Visibility;
  inReplyToUri: string | null;
  /** Actor ids of the Mention tags. */
  mentionUris: string[];
  /** Hashtag names without '#'. */
  tags: string[];
  attachments: RemoteAttachmentData[];
  published: number;
  updated: number | null;
  /** The poll of a Question, or null. */
  poll?: RemotePollData | null;
  /** Its quote and quote policy (core/statuses/quotes-remote.ts); absent: not read. */
  quoting?: RemoteQuotingData | null;
}

/** A remote poll (Question) as federation read it: options with their tallies as last reported. */
export interface RemotePollData {
  options: string[];
  tallies: number[];
  multiple: boolean;
  votersCount: number | null;
  expiresAt: number | null;
}

function mediaType(contentType: string | null): 'image' | 'gifv' | 'video' | 'audio' | 'unknown' {
  if (!contentType) return 'unknown';
  if (contentType.startsWith('image/')) return 'image';
  if (contentType.startsWith('video/')) return 'video';
  if (contentType.startsWith('audio/')) return 'audio';
  return 'unknown';
}

/** Mentioned accounts that are known here (local ones by their actor URL, remote ones by uri). */
function mentionedAccounts(deps: Deps, uris: readonly string[], localByUri: (uri: string) => AccountRow | undefined): AccountRow[] {
  const out = new Map<string, AccountRow>();
  for (const uri of uris) {
    const account = localByUri(uri) ?? findAccountByUri(deps.db, uri);
    if (account) out.set(account.id, account);
  }
  return [...out.values()];
}

/**
 * Stores a remote status from its author (idempotent: a uri already stored is returned as is).
 * The content is sanitized; replies join the parent's thread when the parent is known; mentions of
 * known accounts and hashtags are recorded; attachments keep their remote URL, blurhash and focal
 * point. Emits 'status.created' (timelines and notifications follow from it, as for local posts).
 */
export function createRemoteStatus(
  deps: Deps,
  author: AccountRow,
  data: RemoteNoteData,
  localByUri: (uri: string) => AccountRow | undefined,
): { status: StatusRow; created: boolean } {
  const known = findStatusByUri(deps.db, data.uri);
  if (known) return { status: known, created: false };
  const db = deps.db;
  const at = now();
  // Remote statuses take their id from their published time, so ids sort by creation time.
  const published = Math.min(data.published, at);
  const id = newId(published);
  const parent = data.inReplyToUri ? findStatusByUri(db, data.inReplyToUri) ?? localStatusByUri(deps, data.inReplyToUri) : undefined;
  const mentioned = mentionedAccounts(deps, data.mentionUris, localByUri);
  db.transaction(() => {
    const conversationId = parent?.conversation_id ?? insertConversation(db, newId(at), at);
    if (parent && parent.conversation_id === null) updateStatus(db, parent.id, { conversation_id: conversationId });
    insertStatus(db, {
      id,
      account_id: author.id,
      local: 0,
      uri: data.uri,
      url: data.url,
      visibility: data.visibility,
      content: sanitizeRemoteHtml(data.content),
      spoiler_text: data.spoilerText,
      sensitive: data.sensitive ? 1 : 0,
      language: data.language,
      in_reply_to_id: parent?.id ?? null,
      in_reply_to_account_id: parent?.account_id ?? null,
      in_reply_to_uri: data.inReplyToUri,
      conversation_id: conversationId,
      created_at: published,
      updated_at: at,
    });
    saveMentions(deps, id, mentioned, []);
    saveTags(deps, id, data.tags, at);
    saveRemoteQuoting(deps, id, author, data.quoting, at);
    data.attachments.slice(0, 16).forEach((a, position) => {
      insertRemoteMedia(db, {
        id: newId(at),
        account_id: author.id,
        status_id: id,
        position,
        type: mediaType(a.mediaType),
        remote_url: a.url,
        description: a.description,
        blurhash: a.blurhash,
        focus_x: a.focus?.x ?? null,
        focus_y: a.focus?.y ?? null,
        created_at: at,
      });
    });
    if (data.poll && data.poll.options.length > 0) {
      insertPoll(db, {
        id: newId(at),
        status_id: id,
        account_id: author.id,
        options: JSON.stringify(data.poll.options),
        tallies: JSON.stringify(data.poll.tallies),
        multiple: data.poll.multiple ? 1 : 0,
        hide_totals: 0,
        voters_count: data.poll.votersCount,
        expires_at: data.poll.expiresAt,
        created_at: at,
      });
      setRemotePollCounts(db, id, data.poll.tallies, data.poll.votersCount, data.poll.expiresAt, at);
    }
    if (parent && (data.visibility === 'public' || data.visibility === 'unlisted')) bumpStatusCounter(db, parent.id, 'replies_count', 1);
    if (data.visibility !== 'direct') bumpAccountStatuses(db, author.id, 1, published);
    // Replies that arrived before this status (their parent was unknown then) thread under it now.
    for (const reply of orphanRepliesTo(db, data.uri)) {
      updateStatus(db, reply.id, { in_reply_to_id: id, in_reply_to_account_id: author.id });
      if (reply.visibility === 'public' || reply.visibility === 'unlisted') bumpStatusCounter(db, id, 'replies_count', 1);
    }
  });
  const status = findStatusById(db, id);
  if (!status) throw new Error(`remote status ${data.uri} vanished`);
  deps.events.emit('status.created', { statusId: id, accountId: author.id });
  return { status, created: true };
}

/** A local status named by its ActivityPub id (`…/users/<name>/statuses/<id>`). */
export function localStatusByUri(deps: Deps, uri: string): StatusRow | undefined {
  const prefix = deps.uris.url('/users/');
  if (!uri.startsWith(prefix)) return undefined;
  const match = /^[^/]+\/statuses\/([0-9]+)$/.exec(uri.slice(prefix.length));
  if (!match?.[1]) return undefined;
  const status = findStatusById(deps.db, match[1]);
  return status && status.local === 1 ? status : undefined;
}

/**
 * Applies an edit of a remote status by its author (Update of a Note): the first edit records the
 * original version, then the new content is stored and recorded as a version. An Update older than
 * what is stored, or of a status by someone else, changes nothing. Emits 'status.updated'.
 */
export function updateRemoteStatus(deps: Deps, author: AccountRow, data: RemoteNoteData): StatusRow | null {
  const db = deps.db;
  const status = findStatusByUri(db, data.uri);
  if (!status || status.account_id !== author.id) return null;
  // Quote and quote policy changes apply even when the text is unchanged.
  updateRemoteQuoting(deps, status, author, data.quoting);
  const at = now();
  const content = sanitizeRemoteHtml(data.content);
  // A poll's tallies (Update of a Question) are stored as reported; unchanged text is no edit.
  if (data.poll) db.transaction(() => setRemotePollCounts(db, status.id, data.poll?.tallies ?? [], data.poll?.votersCount ?? null, data.poll?.expiresAt ?? null, at));
  if (content === status.content && data.spoilerText === status.spoiler_text && (data.sensitive ? 1 : 0) === status.sensitive) return status;
  const editedAt = Math.min(data.updated ?? at, at);
  if (status.edited_at !== null && editedAt <= status.edited_at) return status;
  const snapshot = (s: StatusRow) => ({
    id: newId(at),
    status_id: s.id,
    account_id: author.id,
    text: '',
    content: s.content,
    spoiler_text: s.spoiler_text,
    sensitive: s.sensitive,
    language: s.language,
    media: JSON.stringify(findMediaByStatusIds(db, [s.id]).map((m) => ({ id: m.id, description: m.description, focus_x: m.focus_x, focus_y: m.focus_y }))),
    poll: null,
  });
  db.transaction(() => {
    if (!hasStatusEdits(db, status.id)) insertStatusEdit(db, { ...snapshot(status), created_at: status.created_at });
    updateStatus(db, status.id, {
      content,
      spoiler_text: data.spoilerText,
      sensitive: data.sensitive ? 1 : 0,
      language: data.language,
      edited_at: editedAt,
      updated_at: at,
    });
    saveTags(deps, status.id, data.tags, at);
    const updated = findStatusById(db, status.id);
    if (updated) insertStatusEdit(db, { ...snapshot(updated), id: newId(at), created_at: editedAt });
  });
  deps.events.emit('status.updated', { statusId: status.id, accountId: author.id });
  return findStatusById(db, status.id) ?? null;
}

/** Deletes a remote status (or a remote reblog) named by its uri, when `author` wrote it. */
export function deleteRemoteStatus(deps: Deps, author: AccountRow, uri: string): boolean {
  const status = findStatusByUri(deps.db, uri);
  if (!status || status.account_id !== author.id) return false;
  deleteStatus(deps, author.id, status.id);
  return true;
}

/**
 * Records a remote account's reblog (Announce) of a status known here, with the Announce id as
 * its uri; idempotent. Emits 'status.created' and 'reblog.created'.
 */
export function createRemoteReblog(deps: Deps, author: AccountRow, uri: string, target: StatusRow, visibility: Visibility, published: number): StatusRow | null {
  if (target.visibility === 'direct' || target.visibility === 'private') return null;
  const db = deps.db;
  const existing = findStatusByUri(db, uri) ?? findReblogBy(db, author.id, target.id);
  if (existing) return existing;
  const at = now();
  const id = newId(Math.min(published, at));
  db.transaction(() => {
    insertStatus(db, { id, account_id: author.id, local: 0, uri, visibility, reblog_of_id: target.id, created_at: Math.min(published, at), updated_at: at });
    bumpStatusCounter(db, target.id, 'reblogs_count', 1);
    bumpAccountStatuses(db, author.id, 1, at);
  });
  deps.events.emit('status.created', { statusId: id, accountId: author.id });
  deps.events.emit('reblog.created', { statusId: id, reblogOfId: target.id, accountId: author.id });
  return findStatusById(db, id) ?? null;
}

/** Undoes a remote reblog, named by the Announce id or by the reblogged status. */
export function deleteRemoteReblog(deps: Deps, author: AccountRow, announceUri: string, target: StatusRow | undefined): boolean {
  const db = deps.db;
  const reblog = findStatusByUri(db, announceUri) ?? (target ? findReblogBy(db, author.id, target.id) : undefined);
  if (!reblog || reblog.account_id !== author.id || reblog.reblog_of_id === null) return false;
  const reblogOfId = reblog.reblog_of_id;
  const reblogOf = reblogTargetOf(deps, reblog);
  db.transaction(() => {
    deleteStatusRow(db, reblog.id);
    bumpStatusCounter(db, reblogOfId, 'reblogs_count', -1);
    bumpAccountStatuses(db, author.id, -1, null);
  });
  deps.events.emit('reblog.deleted', { statusId: reblog.id, reblogOfId, accountId: author.id });
  deps.events.emit('status.deleted', {
    statusId: reblog.id,
    accountId: author.id,
    uri: announceUri,
    visibility: reblog.visibility,
    mentionedAccountIds: [],
    reblogOfId,
    reblogOf,
    inReplyToAccountId: null,
  });
  return true;
}

/** The accounts of a batch of ids (for delivery to mentioned accounts). */
export function accountsByIds(deps: Deps, ids: readonly string[]): Map<string, AccountRow> {
  return findAccountsByIds(deps.db, ids);
}
