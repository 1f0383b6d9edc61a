import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useRelationship, useRelationshipAction } from './relationship';

type Account = mastodon.v1.Account;

/**
 * Follow / Unfollow / Requested for one account, from the relationship cache and optimistic:
 * following a locked account shows "Requested" (a click cancels the request); a blocked account
 * shows "Unblock".
 */
export function FollowButton(props: { account: Pick<Account, 'id' | 'locked' | 'acct'>; compact?: boolean }): JSX.Element | null {
  const { data: rel } = useRelationship(props.account.id);
  const act = useRelationshipAction();
  const id = props.account.id;
  if (!rel) return <button type="button" disabled>Follow</button>;
  if (rel.blocking)
    return (
      <button type="button" onClick={() => void act(id, (r) => ({ ...r, blocking: false }), (api) => api.rest.v1.accounts.$select(id).unblock())}>
        Unblock
      </button>
    );
  if (rel.following)
    return (
      <button type="button" onClick={() => void act(id, (r) => ({ ...r, following: false, notifying: false }), (api) => api.rest.v1.accounts.$select(id).unfollow())}>
        Unfollow
      </button>
    );
  if (rel.requested)
    return (
      <button type="button" title="Cancel the follow request" onClick={() => void act(id, (r) => ({ ...r, requested: false }), (api) => api.rest.v1.accounts.$select(id).unfollow())}>
        Requested
      </button>
    );
  return (
    <button
      type="button"
      class="primary"
      onClick={() => void act(id, (r) => (props.account.locked ? { ...r, requested: true } : { ...r, following: true, showingReblogs: true }), (api) => api.rest.v1.accounts.$select(id).follow())}
    >
      {rel.followedBy ? 'Follow back' : 'Follow'}
    </button>
  );
}
