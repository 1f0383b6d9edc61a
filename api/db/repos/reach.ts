import type { Db } from '../connection.js';

/**
 * Whether other servers know this instance by its origin: a follow or follow request between a
 * local and a remote account (either way), a mention across the two, a favourite or reblog of one
 * side's post by the other, or activities waiting for delivery or having failed to go out. Each
 * means that some server stored the instance's actors under its current origin.
 */
export function hasFederated(db: Db): boolean {
  const row = db
    .query<{ yes: number }>(
      `SELECT (
         EXISTS (SELECT 1 FROM follows f JOIN accounts a ON a.id = f.account_id JOIN accounts t ON t.id = f.target_account_id
                 WHERE (a.domain IS NULL) <> (t.domain IS NULL))
         OR EXISTS (SELECT 1 FROM follow_requests f JOIN accounts a ON a.id = f.account_id JOIN accounts t ON t.id = f.target_account_id
                 WHERE (a.domain IS NULL) <> (t.domain IS NULL))
         OR EXISTS (SELECT 1 FROM mentions m JOIN statuses s ON s.id = m.status_id JOIN accounts a ON a.id = m.account_id
                 WHERE (s.local = 1) <> (a.domain IS NULL))
         OR EXISTS (SELECT 1 FROM favourites f JOIN statuses s ON s.id = f.status_id JOIN accounts a ON a.id = f.account_id
                 WHERE (s.local = 1) <> (a.domain IS NULL))
         OR EXISTS (SELECT 1 FROM statuses r JOIN statuses s ON s.id = r.reblog_of_id WHERE r.reblog_of_id IS NOT NULL AND r.local <> s.local)
         OR EXISTS (SELECT 1 FROM federation_queue WHERE queue = 'outbox')
         OR EXISTS (SELECT 1 FROM delivery_failures)
       ) AS yes`,
    )
    .get();
  return row?.yes === 1;
}
