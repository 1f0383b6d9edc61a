/**
 * SQL conditions about who may appear in account listings. The rule for what a viewer's blocks,
 * mutes and domain blocks hide lives in core (core/relationships/exclusions.ts, `accountHiddenSql`),
 * which hands it to the repos below as a `HiddenSql`; these are the narrower conditions some
 * listings need on their own. Each reads `@viewer_id` where it says so.
 */

/**
 * A condition TRUE when the account whose id is the SQL expression given is hidden from the viewer
 * (`@viewer_id`) by their blocks, mutes or domain blocks.
 */
export type HiddenSql = (idColumn: string) => string;

/** The viewer (`@viewer_id`) blocks the account row `alias`, or the account blocks the viewer. */
export function blockedEitherWaySql(alias: string): string {
  return `(EXISTS (SELECT 1 FROM blocks xb WHERE xb.account_id = @viewer_id AND xb.target_account_id = ${alias}.id)
    OR EXISTS (SELECT 1 FROM blocks xb WHERE xb.account_id = ${alias}.id AND xb.target_account_id = @viewer_id))`;
}

/**
 * The account row `alias` is a local sign-up still waiting for approval, which does not exist yet
 * as far as others can tell. Remote accounts have no user and are never left out by this.
 */
export function pendingUserSql(alias: string): string {
  return `EXISTS (SELECT 1 FROM users xu WHERE xu.account_id = ${alias}.id AND xu.approved = 0)`;
}
