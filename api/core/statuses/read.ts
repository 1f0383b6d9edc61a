import { findMediaByIds, findMediaByStatusIds, type MediaRow } from '../../db/repos/media.js';
import { findStatusEdits } from '../../db/repos/status-edits.js';
import { findPollsByStatusIds } from '../../db/repos/status-polls.js';
import { findStatusById, type StatusRow } from '../../db/repos/statuses.js';
import { pollOptionTitles } from '../../serializers/poll.js';
import type { MastodonStatus } from '../../serializers/status.js';
import type { StatusEditView } from '../../serializers/status-edit.js';
import { notFound } from '../../util/errors.js';
import { loadAccountViews } from '../accounts/views.js';
import type { Deps } from '../deps.js';
import { presentStatus, presentStatuses } from './views.js';
import { canViewStatus, visibleStatusIds } from './visibility.js';

/** A status the viewer may see, or 404 (missing and invisible look the same, as in Mastodon). */
export function loadVisibleStatus(deps: Deps, id: string, viewerAccountId: string | null): StatusRow {
  const status = findStatusById(deps.db, id);
  if (!status || !canViewStatus(deps, status, viewerAccountId)) throw notFound();
  return status;
}

/** One of the author's own statuses (not a reblog), or 404. */
export function loadOwnStatus(deps: Deps, id: string, accountId: string): StatusRow {
  const status = findStatusById(deps.db, id);
  if (!status || status.account_id !== accountId || status.reblog_of_id !== null) throw notFound();
  return status;
}

/** GET /api/v1/statuses/:id: the Status entity, or 404 when missing or not visible. */
export function getStatus(deps: Deps, id: string, viewerAccountId: string | null): MastodonStatus {
  loadVisibleStatus(deps, id, viewerAccountId);
  const entity = presentStatus(deps, id, viewerAccountId);
  if (!entity) throw notFound();
  return entity;
}

/** GET /api/v1/statuses?id[]=: the visible ones among `ids`, in the order asked, missing ones left out. */
export function getStatuses(deps: Deps, ids: readonly string[], viewerAccountId: string | null): MastodonStatus[] {
  const unique = [...new Set(ids)];
  const visible = visibleStatusIds(deps, unique, viewerAccountId);
  return presentStatuses(deps, unique.filter((id) => visible.has(id)), viewerAccountId);
}

interface MediaSnapshot {
  id: string;
  description: string | null;
  focus: { x: number; y: number } | null;
}

function parseJson<T>(json: string | null, fallback: T): T {
  if (json === null) return fallback;
  try {
    return JSON.parse(json) as T;
  } catch {
    return fallback;
  }
}

/**
 * Every version of a visible status, oldest first, as StatusEdit views: the recorded versions, or
 * the current state alone for a status never edited. Media show the description and focus they
 * had at each version, in that version's order.
 */
export function getStatusHistory(deps: Deps, id: string, viewerAccountId: string | null): StatusEditView[] {
  const status = loadVisibleStatus(deps, id, viewerAccountId);
  const account = loadAccountViews(deps, [status.account_id]).get(status.account_id);
  if (!account) throw notFound();
  const edits = findStatusEdits(deps.db, status.id);
  if (edits.length === 0) {
    const poll = findPollsByStatusIds(deps.db, [status.id]).get(status.id);
    return [
      {
        content: status.content,
        spoiler_text: status.spoiler_text,
        sensitive: Boolean(status.sensitive),
        created_at: status.created_at,
        account,
        pollOptions: poll ? pollOptionTitles(poll) : null,
        media: findMediaByStatusIds(deps.db, [status.id]),
      },
    ];
  }
  const snapshots = edits.map((e) => parseJson<MediaSnapshot[]>(e.media, []));
  const rows = findMediaByIds(deps.db, snapshots.flat().map((m) => m.id));
  return edits.map((edit, i) => {
    const media: MediaRow[] = [];
    for (const snap of snapshots[i] ?? []) {
      const row = rows.get(snap.id);
      // Media deleted since are left out of old versions.
      if (row) media.push({ ...row, description: snap.description, focus_x: snap.focus?.x ?? null, focus_y: snap.focus?.y ?? null });
    }
    const poll = parseJson<{ options: string[] } | null>(edit.poll, null);
    return {
      content: edit.content,
      spoiler_text: edit.spoiler_text,
      sensitive: Boolean(edit.sensitive),
      created_at: edit.created_at,
      account,
      pollOptions: poll ? poll.options : null,
      media,
    };
  });
}
