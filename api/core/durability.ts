import { openSyncGroup } from '../db/repos/changes.js';
import type { Deps } from './deps.js';

/**
 * Groups the commits of one piece of work (an API request that writes: the status, then what its
 * listeners write, each in their own transaction) under one flush to disk: commits inside the
 * group do not wait for the disk, and closing the group flushes the WAL once, so everything the
 * group committed is as durable as `synchronous=FULL` makes each commit. Close it before
 * acknowledging anything. Null when there is nothing to group (see openSyncGroup).
 */
export function openCommitGroup(deps: Deps): (() => void) | null {
  return openSyncGroup(deps.db);
}
