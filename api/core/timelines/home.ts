import type { PageBounds } from '../../db/paging.js';
import type { LiveStatusRow } from '../../db/repos/timelines.js';
import { accountHasStatuses, ensureFeedState, findFeedState, followsAnyone, homeFeedPage } from '../../db/repos/feeds.js';
import { now } from '../../util/clock.js';
import type { Deps } from '../deps.js';
import { hiddenStatusIds } from '../filters/active.js';
import { statusShownSql } from '../relationships/exclusions.js';
import { isRebuilding, rebuildHomeFeed } from './rebuild.js';

/** A page of the home timeline: status ids, and whether the feed is being rebuilt (HTTP 206). */
export interface HomePage {
  ids: string[];
  /** Counters and the user's flags of those statuses, read by the same query. */
  live: LiveStatusRow[];
  partial: boolean;
  /** The ids the page was read from, hidden ones included: the Link header pages on them. */
  pageIds: string[];
}

/**
 * Reads one page of a user's home feed (an index-only keyset scan). A feed with no state row is
 * missing (after an import or a restore): a rebuild starts and this page is partial. A feed left
 * marked as regenerating by a stopped instance is rebuilt again. Statuses the user's `hide`
 * filters match in the home context are left out.
 */
export function readHomeTimeline(deps: Deps, accountId: string, page: PageBounds): HomePage {
  const state = findFeedState(deps.db, accountId);
  let partial = false;
  if (!state) {
    if (followsAnyone(deps.db, accountId) || accountHasStatuses(deps.db, accountId)) {
      void rebuildHomeFeed(deps, accountId);
      partial = true;
    } else {
      // Nothing to rebuild from: the empty feed is complete.
      ensureFeedState(deps.db, accountId, now());
    }
  } else if (state.regenerating === 1) {
    partial = true;
    if (!isRebuilding(deps, accountId)) void rebuildHomeFeed(deps, accountId);
  }
  const read = homeFeedPage(deps.db, accountId, page, (alias) => statusShownSql(alias, 'feed'));
  const pageIds = read.map((r) => r.id);
  // The server drops what the user's `hide` filters (and irreversible v1 filters) match in home.
  const hidden = hiddenStatusIds(deps, accountId, 'home', pageIds);
  const live = hidden.size === 0 ? read : read.filter((r) => !hidden.has(r.id));
  return { ids: live.map((r) => r.id), live, partial, pageIds };
}
