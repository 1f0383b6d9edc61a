import { findAccountsByIds, findCustomEmojisByShortcodes, type AccountRow, type CustomEmojiRow } from '../../db/repos/accounts.js';
import { findMediaByStatusIds, type MediaRow } from '../../db/repos/media.js';
import { findMentionsByStatusIds } from '../../db/repos/mentions.js';
import { findCardsByStatusIds } from '../../db/repos/preview-cards.js';
import { findPollsByStatusIds, findVotesByPollIds } from '../../db/repos/status-polls.js';
import {
  findApplicationsByIds,
  findMutedConversations,
  findStatusesByIds,
  findViewerFlags,
  type StatusRow,
} from '../../db/repos/statuses.js';
import { findTagsByStatusIds } from '../../db/repos/tags.js';
import { toMastodonStatus, type MastodonStatus, type StatusView } from '../../serializers/status.js';
import { now } from '../../util/clock.js';
import { extractEmojiShortcodes } from '../../util/text/index.js';
import { loadAccountViews } from '../accounts/views.js';
import type { Deps } from '../deps.js';
import { filterResultsFor } from '../filters/active.js';
import { loadQuoting } from './quote-views.js';

export type { StatusView } from '../../serializers/status.js';

function group<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = out.get(k);
    if (list) list.push(row);
    else out.set(k, [row]);
  }
  return out;
}

/**
 * The custom emojis each status uses (`:shortcode:` in its text and content warning; the HTML of
 * remote ones), from its author's domain, in one query for the batch.
 */
function loadStatusEmojis(deps: Deps, rows: readonly StatusRow[], authors: ReadonlyMap<string, AccountRow>): Map<string, CustomEmojiRow[]> {
  const wanted = new Map<string, { domain: string | null; codes: string[] }>();
  const pairs = new Map<string, [string, string | null]>();
  for (const row of rows) {
    const domain = authors.get(row.account_id)?.domain ?? null;
    const codes = extractEmojiShortcodes(row.local ? row.text : row.content, row.spoiler_text);
    if (codes.length === 0) continue;
    wanted.set(row.id, { domain, codes });
    for (const code of codes) pairs.set(`${code}\u0000${domain ?? ''}`, [code, domain]);
  }
  const out = new Map<string, CustomEmojiRow[]>();
  if (pairs.size === 0) return out;
  const byKey = new Map<string, CustomEmojiRow>();
  for (const emoji of findCustomEmojisByShortcodes(deps.db, [...pairs.values()])) byKey.set(`${emoji.shortcode}\u0000${emoji.domain ?? ''}`, emoji);
  for (const [id, { domain, codes }] of wanted) {
    out.set(id, codes.map((code) => byKey.get(`${code}\u0000${domain ?? ''}`)).filter((e): e is CustomEmojiRow => e !== undefined));
  }
  return out;
}

/**
 * Loads everything needed to render a batch of statuses for a viewer, with a fixed number of
 * queries whatever the batch size: the statuses and their reblog targets, authors (through
 * `loadAccountViews`), mentions, tags, media, custom emojis, preview cards, polls with the viewer's
 * votes, applications and the viewer's flags (favourited, reblogged, bookmarked, pinned, muted),
 * and quotes (the quoted statuses loaded with the batch, see quote-views.ts). Missing ids are
 * absent from the result. Visibility is NOT checked here: callers select visible ids first (the
 * quoted statuses' visibility is judged with the quotes). With `source`, see `presentStatus`.
 */
export function loadStatusViews(deps: Deps, ids: readonly string[], viewerAccountId: string | null, options: { source?: boolean } = {}): Map<string, StatusView> {
  const out = new Map<string, StatusView>();
  if (ids.length === 0) return out;
  const db = deps.db;
  const rows = findStatusesByIds(db, ids);
  const targetIds = [...rows.values()].map((r) => r.reblog_of_id).filter((id): id is string => id !== null && !rows.has(id));
  if (targetIds.length > 0) for (const [id, row] of findStatusesByIds(db, targetIds)) rows.set(id, row);
  // Quoted statuses are loaded with the batch (and rendered inside their quotes, one level deep).
  const quoting = loadQuoting(deps, rows, viewerAccountId, options.source ?? false);
  for (const [id, row] of quoting.nested) rows.set(id, row);
  const all = [...rows.values()];
  const allIds = all.map((r) => r.id);

  const mentionRows = findMentionsByStatusIds(db, allIds).filter((m) => !m.silent);
  // Authors come with their views; only mentioned accounts that are not authors are loaded apart.
  const accountViews = loadAccountViews(deps, [...new Set(all.map((r) => r.account_id))]);
  const accounts = new Map<string, AccountRow>();
  for (const [id, view] of accountViews) accounts.set(id, view.account);
  const otherIds = [...new Set(mentionRows.map((m) => m.account_id))].filter((id) => !accounts.has(id));
  if (otherIds.length > 0) for (const [id, row] of findAccountsByIds(db, otherIds)) accounts.set(id, row);
  const mentions = group(mentionRows, (m) => m.status_id);
  const tags = group(findTagsByStatusIds(db, allIds), (t) => t.status_id);
  const media = group(findMediaByStatusIds(db, allIds), (m) => m.status_id ?? '');
  const polls = findPollsByStatusIds(db, allIds);
  const cards = findCardsByStatusIds(db, allIds);
  const emojis = loadStatusEmojis(deps, all, accounts);
  const apps = findApplicationsByIds(db, all.map((r) => r.application_id).filter((id): id is string => id !== null));

  let votes = new Map<string, number[]>();
  let flags: ReturnType<typeof findViewerFlags> | null = null;
  let muted = new Set<string>();
  if (viewerAccountId !== null) {
    votes = findVotesByPollIds(db, viewerAccountId, [...polls.values()].map((p) => p.id));
    flags = findViewerFlags(db, viewerAccountId, allIds);
    muted = findMutedConversations(db, viewerAccountId, all.map((r) => r.conversation_id).filter((id): id is string => id !== null));
  }
  const at = now();

  const build = (row: StatusRow, reblog: StatusView | null, nested = false): StatusView | null => {
    const author = accounts.get(row.account_id);
    const account = accountViews.get(row.account_id);
    if (!author || !account) return null;
    const shown = quoting.quoteOf(row);
    let quote: StatusView['quote'] = null;
    if (shown) {
      // A quoted status shows its own quote as a ShallowQuote: quotes are never nested deeper.
      const quotedRow = !nested && shown.quotedStatusId !== null ? rows.get(shown.quotedStatusId) : undefined;
      const quoted = quotedRow && quotedRow.reblog_of_id === null ? build(quotedRow, null, true) : null;
      quote = { state: shown.state, quotedStatusId: shown.quotedStatusId, quoted, shallow: nested };
    }
    const poll = polls.get(row.id) ?? null;
    const mentioned = (mentions.get(row.id) ?? []).map((m) => accounts.get(m.account_id)).filter((a): a is AccountRow => a !== undefined);
    const mediaRows: MediaRow[] = media.get(row.id) ?? [];
    const own = viewerAccountId !== null && row.account_id === viewerAccountId;
    return {
      status: row,
      author,
      account,
      reblog,
      mentions: mentioned,
      tags: tags.get(row.id) ?? [],
      media: mediaRows,
      emojis: emojis.get(row.id) ?? [],
      card: cards.get(row.id) ?? null,
      poll,
      pollViewer: poll && viewerAccountId !== null ? { ownVotes: votes.get(poll.id) ?? [], isAuthor: own } : null,
      application: row.application_id ? (apps.get(row.application_id) ?? null) : null,
      viewer: flags
        ? {
            favourited: flags.favourited.has(row.id),
            reblogged: flags.reblogged.has(row.id),
            bookmarked: flags.bookmarked.has(row.id),
            muted: row.conversation_id !== null && muted.has(row.conversation_id),
            // Mastodon shows `pinned` only where the viewer could pin: own, not a reblog, not direct.
            pinned: own && row.reblog_of_id === null && row.visibility !== 'direct' ? flags.pinned.has(row.id) : null,
          }
        : null,
      viewedByAuthor: own,
      at,
      quote,
      quotesCount: quoting.quotesCount(row.id),
      quotePolicy: quoting.policyOf(row.id),
      quoteApproval: quoting.approval(row),
    };
  };

  for (const id of ids) {
    const row = rows.get(id);
    if (!row || out.has(id)) continue;
    let reblog: StatusView | null = null;
    if (row.reblog_of_id !== null) {
      const target = rows.get(row.reblog_of_id);
      reblog = target ? build(target, null) : null;
      // A reblog whose target is gone is not shown at all.
      if (!reblog) continue;
    }
    const view = build(row, reblog);
    if (!view) continue;
    // The wrapper of a reblog reports the viewer's flags of the reblogged status, which is what
    // clients act on when they favourite or bookmark a boost.
    if (reblog && view.viewer && reblog.viewer) view.viewer = { ...reblog.viewer, pinned: null };
    out.set(id, view);
  }
  return out;
}

/**
 * The Status entities of `ids` for a viewer, in the given order, skipping ids that do not exist.
 * Callers must have selected visible ids (see `statusVisibilitySql`); this is what timelines,
 * notifications, search and the other areas answer with.
 */
/**
 * Fills `filtered` on loaded views (and their reblogged statuses) for the viewer: every filter of
 * theirs that matches, whatever its context (Mastodon's REST attribute; clients pick by context),
 * computed for the whole batch at once. The viewer's own posts are never filtered.
 */
export function attachFilterResults(deps: Deps, views: Iterable<StatusView>, viewerAccountId: string | null): void {
  if (viewerAccountId === null) return;
  const list = [...views];
  const results = filterResultsFor(deps, viewerAccountId, null, list);
  if (results.size === 0) return;
  for (const view of list) {
    view.filtered = results.get(view.status.id) ?? [];
    if (view.reblog) view.reblog.filtered = results.get(view.reblog.status.id) ?? [];
  }
}

/**
 * The Status entities of `ids` for a viewer, in the given order, skipping ids that do not exist.
 * Callers must have selected visible ids (see `statusVisibilitySql`); this is what timelines,
 * notifications, search and the other areas answer with. `filtered` is filled for a viewer.
 */
export function presentStatuses(deps: Deps, ids: readonly string[], viewerAccountId: string | null): MastodonStatus[] {
  const views = loadStatusViews(deps, ids, viewerAccountId);
  attachFilterResults(deps, views.values(), viewerAccountId);
  const out: MastodonStatus[] = [];
  for (const id of ids) {
    const view = views.get(id);
    if (view) out.push(toMastodonStatus(view, deps.uris));
  }
  return out;
}

/**
 * One Status entity (or undefined when missing); with `source`, the raw text is included and the
 * quoted status is named whatever the quote's state (the answer to DELETE, for redraft).
 */
export function presentStatus(deps: Deps, id: string, viewerAccountId: string | null, options: { source?: boolean } = {}): MastodonStatus | undefined {
  const view = loadStatusViews(deps, [id], viewerAccountId, options).get(id);
  if (!view) return undefined;
  attachFilterResults(deps, [view], viewerAccountId);
  return toMastodonStatus(view, deps.uris, options);
}
