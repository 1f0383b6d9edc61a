import { findAncestors, findDescendants, type StatusRow } from '../../db/repos/statuses.js';
import type { MastodonStatus } from '../../serializers/status.js';
import type { Deps } from '../deps.js';
import { hiddenStatusIds } from '../relationships/exclusions.js';
import { loadVisibleStatus } from './read.js';
import { presentStatuses } from './views.js';
import { visibleStatusIds } from './visibility.js';

/** How far a thread is walked each way (Mastodon's limit for signed-in users; the spec wants no small limit). */
export const CONTEXT_LIMIT = 4096;

/** Mastodon's Context entity. */
export interface MastodonContext {
  ancestors: MastodonStatus[];
  descendants: MastodonStatus[];
}

/** Orders descendants depth-first from the root, siblings oldest first, as a thread reads. */
function depthFirst(rootId: string, rows: readonly StatusRow[]): string[] {
  const children = new Map<string, StatusRow[]>();
  for (const row of rows) {
    const parent = row.in_reply_to_id ?? '';
    const list = children.get(parent);
    if (list) list.push(row);
    else children.set(parent, [row]);
  }
  for (const list of children.values()) list.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  const out: string[] = [];
  const stack: string[] = [...(children.get(rootId) ?? [])].reverse().map((r) => r.id);
  const seen = new Set<string>();
  while (stack.length > 0) {
    const id = stack.pop() as string;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(id);
    for (const child of [...(children.get(id) ?? [])].reverse()) stack.push(child.id);
  }
  return out;
}

/**
 * GET /api/v1/statuses/:id/context: the statuses above (root first) and below (depth-first) a
 * visible status, up to 4,096 each way, each filtered by what the viewer may see and by the
 * viewer's blocks, mutes and domain blocks.
 */
export function getContext(deps: Deps, id: string, viewerAccountId: string | null): MastodonContext {
  const status = loadVisibleStatus(deps, id, viewerAccountId);
  const ancestors = findAncestors(deps.db, status.id, CONTEXT_LIMIT).reverse();
  const descendants = depthFirst(status.id, findDescendants(deps.db, status.id, CONTEXT_LIMIT));
  const around = [...ancestors.map((s) => s.id), ...descendants];
  const visible = visibleStatusIds(deps, around, viewerAccountId);
  // Statuses of accounts the viewer blocks, mutes or domain-blocks (or who block the viewer) are left out.
  for (const id of hiddenStatusIds(deps, viewerAccountId, around, 'thread')) visible.delete(id);
  return {
    ancestors: presentStatuses(deps, ancestors.map((s) => s.id).filter((x) => visible.has(x)), viewerAccountId),
    descendants: presentStatuses(deps, descendants.filter((x) => visible.has(x)), viewerAccountId),
  };
}
