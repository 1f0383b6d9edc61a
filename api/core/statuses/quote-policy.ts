import { findBlock } from '../../db/repos/blocks.js';
import { findFollow } from '../../db/repos/follows.js';
import { findQuotePolicies, type QuotePolicyFlags } from '../../db/repos/quotes.js';
import type { StatusRow, Visibility } from '../../db/repos/statuses.js';
import { ApiError } from '../../util/errors.js';
import type { QuotePolicy } from '../accounts/settings.js';
import type { Deps } from '../deps.js';
import { canViewStatus } from './visibility.js';

/**
 * Who may quote a status (Mastodon 4.5's quote approval policy). A status keeps two sets of flags,
 * one for quotes approved automatically and one for quotes the author reviews; local statuses only
 * ever use automatic approval ('public', 'followers' or nobody), remote ones bring whatever their
 * server publishes in `interactionPolicy.canQuote`.
 */

/** The flags, as Mastodon numbers them. */
export const QUOTE_FLAGS = { unsupported_policy: 1, public: 2, followers: 4, following: 8 } as const;

/** One of the approval groups the QuoteApproval entity names. */
export type QuoteApprovalKey = keyof typeof QUOTE_FLAGS;

/** How a status's policy applies to one account (QuoteApproval's `current_user`). */
export type QuotePermission = 'automatic' | 'manual' | 'denied' | 'unknown';

/** Nobody but the author. */
export const NOBODY: Readonly<QuotePolicyFlags> = Object.freeze({ automatic: 0, manual: 0 });

const POLICIES: readonly string[] = ['public', 'followers', 'nobody'];

/**
 * A `quote_approval_policy` parameter: one of public, followers, nobody (else 422, as Mastodon
 * refuses the record); blank means "not given".
 */
export function parseQuotePolicy(value: unknown): QuotePolicy | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string' || !POLICIES.includes(value)) throw new ApiError(422, 'Validation failed: Quote approval policy is not included in the list');
  return value as QuotePolicy;
}

/**
 * The flags a local status gets for a policy. A private or direct status can be quoted by its
 * author only, whatever was asked (Mastodon downgrades the policy of what is not distributable).
 */
export function localPolicyFlags(policy: QuotePolicy, visibility: Visibility): QuotePolicyFlags {
  if (visibility !== 'public' && visibility !== 'unlisted') return { ...NOBODY };
  if (policy === 'public') return { automatic: QUOTE_FLAGS.public, manual: 0 };
  if (policy === 'followers') return { automatic: QUOTE_FLAGS.followers, manual: 0 };
  return { ...NOBODY };
}

/** The approval groups set in some flags, in Mastodon's order. */
export function approvalKeys(flags: number): QuoteApprovalKey[] {
  return (Object.keys(QUOTE_FLAGS) as QuoteApprovalKey[]).filter((key) => (flags & QUOTE_FLAGS[key]) !== 0);
}

/** The flags of approval groups as the QuoteApproval entity names them (unknown names: unsupported). */
export function approvalFlags(keys: readonly string[]): number {
  let flags = 0;
  for (const key of keys) flags |= key in QUOTE_FLAGS ? QUOTE_FLAGS[key as QuoteApprovalKey] : QUOTE_FLAGS.unsupported_policy;
  return flags;
}

/**
 * Whether whom a viewer follows (or is followed by) matters to a QuoteApproval (a policy naming
 * followers or followed accounts): such a status's `current_user` cannot be derived from the entity.
 */
export function approvalDependsOnFollows(approval: { automatic: readonly string[]; manual: readonly string[] }): boolean {
  return [...approval.automatic, ...approval.manual].some((k) => k === 'followers' || k === 'following');
}

/** What is known of the relation between an account and a status's author. */
export interface AuthorRelation {
  /** The account follows the author. */
  followsAuthor: boolean;
  /** The author follows the account. */
  followedByAuthor: boolean;
}

/**
 * How a status's policy applies to an account, as Mastodon decides it: nobody anonymous, nothing
 * direct or a reblog; the author always (automatically); nothing else that is not public or
 * unlisted; then the automatic groups, then the manual ones; 'unknown' when only a policy Mastodon
 * does not model could let them in.
 */
export function quotePermission(status: Pick<StatusRow, 'account_id' | 'visibility' | 'reblog_of_id'>, flags: QuotePolicyFlags, accountId: string | null, relation: AuthorRelation): QuotePermission {
  if (accountId === null || status.visibility === 'direct' || status.reblog_of_id !== null) return 'denied';
  if (status.account_id === accountId) return 'automatic';
  if (status.visibility !== 'public' && status.visibility !== 'unlisted') return 'denied';
  const grants = (set: number) =>
    (set & QUOTE_FLAGS.public) !== 0 ||
    ((set & QUOTE_FLAGS.followers) !== 0 && relation.followsAuthor) ||
    ((set & QUOTE_FLAGS.following) !== 0 && relation.followedByAuthor);
  if (grants(flags.automatic)) return 'automatic';
  if (grants(flags.manual)) return 'manual';
  if (((flags.automatic | flags.manual) & QUOTE_FLAGS.unsupported_policy) !== 0) return 'unknown';
  return 'denied';
}

/** The quote policy flags of one status. */
export function policyOf(deps: Deps, statusId: string): QuotePolicyFlags {
  return findQuotePolicies(deps.db, [statusId]).get(statusId) ?? { ...NOBODY };
}

/**
 * Whether `accountId` may quote `status` (Mastodon's StatusPolicy#quote?): they can see it,
 * neither blocks the other, and its policy lets them in, automatically or after review.
 */
export function mayQuote(deps: Deps, status: StatusRow, accountId: string): QuotePermission {
  if (!canViewStatus(deps, status, accountId)) return 'denied';
  if (status.account_id !== accountId && (findBlock(deps.db, status.account_id, accountId) || findBlock(deps.db, accountId, status.account_id))) return 'denied';
  const relation = {
    followsAuthor: findFollow(deps.db, accountId, status.account_id) !== undefined,
    followedByAuthor: findFollow(deps.db, status.account_id, accountId) !== undefined,
  };
  return quotePermission(status, policyOf(deps, status.id), accountId, relation);
}
