import { findCardsByStatusIds } from '../../db/repos/preview-cards.js';
import { toMastodonPreviewCard, type MastodonPreviewCard } from '../../serializers/preview-card.js';
import type { Deps } from '../deps.js';
import { loadVisibleStatus } from '../statuses/read.js';

/** The card of a status the viewer may see (404 otherwise), or null when it has none. */
export function getStatusCard(deps: Deps, statusId: string, viewerAccountId: string | null): MastodonPreviewCard | null {
  const status = loadVisibleStatus(deps, statusId, viewerAccountId);
  // A reblog shows the card of what it reblogs.
  const id = status.reblog_of_id ?? status.id;
  const card = findCardsByStatusIds(deps.db, [id]).get(id);
  return card ? toMastodonPreviewCard(card, deps.uris) : null;
}
