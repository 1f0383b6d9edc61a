import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { Avatar } from '../account/Avatar';
import { Content, Emojify } from '../html/Content';
import { MediaGrid } from '../media/MediaGrid';
import { RelativeTime } from '../time/RelativeTime';
import { StatusActions } from './StatusActions';

type Status = mastodon.v1.Status;

/** The path of a post's thread inside the app. */
export function threadPath(status: Status): string {
  return `/@${status.account.acct}/${status.id}`;
}

/** The path of an account's profile inside the app. */
export function profilePath(account: { acct: string }): string {
  return `/@${account.acct}`;
}

/**
 * One post as an `article` (the unit of an ARIA feed): who wrote it (and who boosted it), when,
 * its content warning (content hidden until revealed), content, media, poll, preview card, quote
 * and the actions. `focused` marks the post a thread is about.
 */
export function StatusView(props: { status: Status; focused?: boolean; posinset?: number; setsize?: number; hideActions?: boolean }): JSX.Element {
  const boost = props.status.reblog ? props.status : null;
  const status = props.status.reblog ?? props.status;
  const [expanded, setExpanded] = useState(false);
  const hasWarning = status.spoilerText.length > 0;
  const label = `${boost ? `${boost.account.displayName || boost.account.username} boosted, ` : ''}${status.account.displayName || status.account.username}, ${new Date(status.createdAt).toLocaleString()}`;
  return (
    <article
      class={`status${props.focused ? ' status-focused' : ''}`}
      aria-label={label}
      aria-posinset={props.posinset}
      aria-setsize={props.setsize}
      aria-current={props.focused ? 'true' : undefined}
      tabIndex={0}
      data-status-id={status.id}
      lang={status.language ?? undefined}
    >
      {boost && (
        <p class="status-boosted-by">
          <a href={profilePath(boost.account)}>
            <Emojify text={boost.account.displayName || boost.account.username} emojis={boost.account.emojis} />
          </a>{' '}
          boosted
        </p>
      )}
      <header class="status-header">
        <a href={profilePath(status.account)} class="status-author">
          <Avatar account={status.account} />
          <span class="display-name">
            <Emojify text={status.account.displayName || status.account.username} emojis={status.account.emojis} />
          </span>
          <span class="acct">@{status.account.acct}</span>
        </a>
        <a href={threadPath(status)} class="status-time">
          <RelativeTime iso={status.createdAt} />
        </a>
        {status.editedAt && <span class="status-edited">edited</span>}
      </header>
      {hasWarning && (
        <div class="status-warning">
          <p>
            <Emojify text={status.spoilerText} emojis={status.emojis} />
          </p>
          <button type="button" aria-expanded={expanded} onClick={() => setExpanded(!expanded)}>
            {expanded ? 'Show less' : 'Show more'}
          </button>
        </div>
      )}
      {(!hasWarning || expanded) && (
        <>
          <Content html={status.content} emojis={status.emojis} links={status} lang={status.language} />
          {status.mediaAttachments.length > 0 && <MediaGrid media={status.mediaAttachments} sensitive={status.sensitive} />}
        </>
      )}
      {!props.hideActions && <StatusActions status={status} />}
    </article>
  );
}
