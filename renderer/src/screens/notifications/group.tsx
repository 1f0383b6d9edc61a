import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { useQueryClient } from '@tanstack/preact-query';
import { useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { relationshipKey } from '../../components/account/relationship';
import { toast } from '../../components/layout/toasts';
import { Avatar } from '../../components/account/Avatar';
import { Content, Emojify } from '../../components/html/Content';
import { StatusView, profilePath, threadPath } from '../../components/status/Status';
import { RelativeTime } from '../../components/time/RelativeTime';

type Group = mastodon.v1.NotificationGroup;
type Account = mastodon.v1.Account;
type Status = mastodon.v1.Status;

/** What happened, after the names ("… favourited your post"). */
const VERBS: Partial<Record<Group['type'], string>> = {
  favourite: 'favourited your post',
  reblog: 'boosted your post',
  follow: 'followed you',
  follow_request: 'requested to follow you',
  mention: 'mentioned you',
  status: 'posted',
  poll: 'ended a poll you took part in',
  update: 'edited a post you interacted with',
  quote: 'quoted your post',
  quoted_update: 'edited a post you quoted',
  'admin.sign_up': 'signed up',
  'admin.report': 'filed a report',
  severed_relationships: 'lost connections with you because of a moderation decision',
  moderation_warning: 'sent you a moderation warning',
};

/** "alice", "alice and bob", "alice and 3 others": the names of a group as plain text. */
export function groupNames(group: Group, accounts: Account[]): string {
  const first = accounts[0];
  const name = first ? first.displayName || first.username : 'Someone';
  const others = group.notificationsCount - 1;
  if (others <= 0) return name;
  return `${name} and ${others} ${others === 1 ? 'other' : 'others'}`;
}

/** The sentence a group says, e.g. "alice and 1 other favourited your post". */
export function groupSummary(group: Group, accounts: Account[]): string {
  return `${groupNames(group, accounts)} ${VERBS[group.type] ?? group.type}`;
}

/**
 * One notification group as an `article` named by its sentence: the avatars of who did it, the
 * sentence with their names (emojis shown), when, and the post it is about. Mentions, new posts
 * and quotes show the post itself with its actions.
 */
export function GroupRow(props: { group: Group; accounts: Account[]; status: Status | undefined; unread: boolean; posinset: number; setsize: number }): JSX.Element {
  const { group, accounts, status } = props;
  const summary = groupSummary(group, accounts);
  if (status && (group.type === 'mention' || group.type === 'status' || group.type === 'quote')) {
    return (
      <div class={`notification-post${props.unread ? ' unread' : ''}`}>
        <p class="notification-line">
          {props.unread && <span class="visually-hidden">Unread: </span>}
          {summary}
        </p>
        <StatusView status={status} posinset={props.posinset} setsize={props.setsize} />
      </div>
    );
  }
  const first = accounts[0];
  return (
    <article class={`notification${props.unread ? ' unread' : ''}`} aria-label={summary} aria-posinset={props.posinset} aria-setsize={props.setsize} tabIndex={0}>
      <div class="notification-avatars">
        {accounts.slice(0, 8).map((a) => (
          <a key={a.id} href={profilePath(a)} aria-label={`@${a.acct}`}>
            <Avatar account={a} size={32} />
          </a>
        ))}
      </div>
      <p class="notification-line">
        {props.unread && <span class="visually-hidden">Unread: </span>}
        {first ? (
          <a href={profilePath(first)} class="display-name">
            <Emojify text={first.displayName || first.username} emojis={first.emojis} />
          </a>
        ) : (
          'Someone'
        )}
        {group.notificationsCount > 1 && ` and ${group.notificationsCount - 1} ${group.notificationsCount === 2 ? 'other' : 'others'}`} {VERBS[group.type] ?? group.type}
        {group.latestPageNotificationAt && (
          <>
            {' · '}
            <RelativeTime iso={group.latestPageNotificationAt} />
          </>
        )}
      </p>
      {status && (
        <div class="notification-status">
          {status.spoilerText ? <p>{status.spoilerText}</p> : <Content html={status.content} emojis={status.emojis} links={status} />}
          <a href={threadPath(status)}>View post</a>
        </div>
      )}
      {group.type === 'follow_request' && first && <RequestAnswer account={first} />}
      {group.type === 'admin.report' && 'report' in group && (
        <p>
          <a href="/admin/reports">Open the report about @{group.report.targetAccount.acct}</a>
        </p>
      )}
    </article>
  );
}

/** Accept or reject a follow request right from its notification. */
function RequestAnswer(props: { account: Account }): JSX.Element {
  const api = useApi();
  const qc = useQueryClient();
  const [answered, setAnswered] = useState<'accepted' | 'rejected' | null>(null);
  const answer = async (accept: boolean): Promise<void> => {
    setAnswered(accept ? 'accepted' : 'rejected');
    try {
      const request = api.rest.v1.followRequests.$select(props.account.id);
      qc.setQueryData(relationshipKey(props.account.id), accept ? await request.authorize() : await request.reject());
      void qc.invalidateQueries({ queryKey: ['follow-requests'] });
    } catch (error) {
      setAnswered(null);
      toast(describeError(error), { retry: () => void answer(accept) });
    }
  };
  if (answered) return <p class="muted">{answered === 'accepted' ? 'Accepted' : 'Rejected'}</p>;
  return (
    <p class="notification-answer">
      <button type="button" class="primary" aria-label={`Accept @${props.account.acct}`} onClick={() => void answer(true)}>
        Accept
      </button>{' '}
      <button type="button" aria-label={`Reject @${props.account.acct}`} onClick={() => void answer(false)}>
        Reject
      </button>
    </p>
  );
}
