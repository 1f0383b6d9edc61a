import type { AccountRow } from '../../db/repos/accounts.js';
import { blockExportRows, bookmarkExportRows, domainBlockExportRows, followExportRows, muteExportRows, type HandleRow } from '../../db/repos/exports.js';
import { allImportLines, type ImportRow } from '../../db/repos/imports.js';
import { backgroundLane } from '../../util/background-lane.js';
import { now } from '../../util/clock.js';
import { ApiError } from '../../util/errors.js';
import type { Deps } from '../deps.js';
import { unbookmarkStatus } from '../interactions/bookmarks.js';
import { deleteList, listAccountIds, listLists, removeListAccounts } from '../lists/manage.js';
import { unblockAccount, unblockDomain } from '../relationships/blocks.js';
import { unfollowAccount } from '../relationships/follows.js';
import { unmuteAccount } from '../relationships/mutes.js';
import type { ImportRowData } from './formats.js';
import { asciiHost, isLocalHost, localStatusId } from './targets.js';

/**
 * Overwrite mode, as Mastodon's importer does it, before any row is worked on: the follows,
 * blocks, mutes, domain blocks or bookmarks the file does not name are removed (a removed follow
 * is an unfollow, which federates); for lists, the lists whose title the file does not name are
 * deleted and the others emptied (the rows then fill them again). Comparisons take every row of
 * the file, done or not, so running this again after a restart removes nothing more. Pauses
 * between steps so that requests are answered meanwhile; false when told to stop.
 */

/** Steps taken between two pauses. */
const STEPS_PER_TURN = 50;

/** How a relationship's account is compared with a row's address: `user` locally, `user@host` remotely, lower case. */
function accountKey(row: HandleRow): string {
  return row.domain === null ? row.username.toLowerCase() : `${row.username.toLowerCase()}@${asciiHost(row.domain)}`;
}

function rowAccountKey(deps: Deps, acct: string, localDomain: string): string {
  const at = acct.indexOf('@');
  if (at < 0) return acct.toLowerCase();
  const host = asciiHost(acct.slice(at + 1));
  const username = acct.slice(0, at).toLowerCase();
  return isLocalHost(deps, host, localDomain) ? username : `${username}@${host}`;
}

function rowStatusKey(deps: Deps, uri: string, localDomain: string): string {
  const url = new URL(uri);
  if (!isLocalHost(deps, url.host, localDomain)) return uri;
  return `local:${localStatusId(deps, url) ?? uri}`;
}

/** Removes what the file of `job` does not name; false when `stopped` said to stop on the way. */
export async function removeWhatIsNotInFile(deps: Deps, job: ImportRow, me: AccountRow, stopped: () => boolean): Promise<boolean> {
  const rows = allImportLines(deps.db, job.id).map((l) => JSON.parse(l.data) as ImportRowData);
  const steps: (() => void)[] = [];
  const accounts = () => new Set(rows.map((r) => rowAccountKey(deps, r.acct ?? '', job.local_domain)));
  switch (job.type) {
    case 'following': {
      const keep = accounts();
      for (const f of followExportRows(deps.db, me.id)) if (!keep.has(accountKey(f))) steps.push(() => unfollowAccount(deps, me, f.account_id));
      break;
    }
    case 'blocks': {
      const keep = accounts();
      for (const b of blockExportRows(deps.db, me.id)) if (!keep.has(accountKey(b))) steps.push(() => unblockAccount(deps, me, b.account_id));
      break;
    }
    case 'mutes': {
      const keep = accounts();
      for (const m of muteExportRows(deps.db, me.id, now())) if (!keep.has(accountKey(m))) steps.push(() => unmuteAccount(deps, me, m.account_id));
      break;
    }
    case 'domain_blocks': {
      const keep = new Set(rows.map((r) => r.domain));
      for (const domain of domainBlockExportRows(deps.db, me.id)) if (!keep.has(domain)) steps.push(() => unblockDomain(deps, me, domain));
      break;
    }
    case 'bookmarks': {
      const keep = new Set(rows.map((r) => rowStatusKey(deps, r.uri ?? '', job.local_domain)));
      for (const b of bookmarkExportRows(deps.db, me.id)) {
        const key = b.local === 1 || b.uri === null ? `local:${b.status_id}` : b.uri;
        if (!keep.has(key)) steps.push(() => unbookmarkStatus(deps, me, b.status_id));
      }
      break;
    }
    case 'lists': {
      const titles = new Set(rows.map((r) => r.list));
      for (const list of listLists(deps, me.id)) {
        if (!titles.has(list.title)) steps.push(() => deleteList(deps, me.id, list.id));
        // Members are taken away and the rows put them back: memberships hold nothing else worth keeping.
        else steps.push(() => removeListAccounts(deps, me.id, list.id, listAccountIds(deps, me.id, list.id, null)));
      }
      break;
    }
  }
  for (let i = 0; i < steps.length; i++) {
    if (i > 0 && i % STEPS_PER_TURN === 0) {
      await backgroundLane.turn();
      if (stopped()) return false;
    }
    try {
      steps[i]?.();
    } catch (err) {
      // Gone meanwhile (the account, the post): nothing left to remove.
      if (!(err instanceof ApiError && err.status === 404)) throw err;
    }
  }
  return true;
}
