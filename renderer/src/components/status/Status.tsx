import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { Avatar } from '../account/Avatar';
import { Card } from '../card/Card';
import { Content, Emojify } from '../html/Content';
import { MediaGrid } from '../media/MediaGrid';
import { MediaViewer } from '../media/MediaViewer';
import { Poll } from '../poll/Poll';
import { RelativeTime } from '../time/RelativeTime';
import { profilePath, threadPath } from './paths';
import { matchedFilters, useReadingPreferences, type FilterContext } from './preferences';
import { QuoteBlock } from './Quote';
import { StatusActions } from './StatusActions';
import { StatusMenu } from './StatusMenu';
import './status.css';

export { profilePath, threadPath };

type Status = mastodon.v1.Status;

/** What a post view needs besides the post. */
export interface StatusViewProps {
  status: Status;
  /** The post a thread is about: highlighted, `aria-current`. */
  focused?: boolean;
  posinset?: number;
  setsize?: number;
  hideActions?: boolean;
  /** Where the post is shown, for filters (default `home`). */
  context?: FilterContext;
  /** A quoted post inside another: no actions, no further quote. */
  nested?: boolean;
  /** The id of the element the reader reaches with j/k (articles are focusable). */
  id?: string;
}

/**
 * One post as an `article` (the unit of an ARIA feed). Filters apply first, as Mastodon does: a
 * `warn` filter collapses the post behind "Filtered: <title>" with a Show anyway button (a `hide`
 * filter is removed by the list that shows it). Then who wrote it (and who boosted it), whom it
 * replies to, when, whether it was edited, its content warning (content and media hidden until
 * revealed, unless the reader's preference opens them), content, media (the full-screen viewer),
 * poll, preview card, quote, and the actions with the More menu.
 */
export function StatusView(props: StatusViewProps): JSX.Element {
  const prefs = useReadingPreferences();
  const boost = props.status.reblog ? props.status : null;
  const status = props.status.reblog ?? props.status;
  const [expanded, setExpanded] = useState<boolean | null>(null);
  const [showFiltered, setShowFiltered] = useState(false);
  const [viewer, setViewer] = useState<number | null>(null);
  const filters = props.nested ? { hide: false, warn: [] } : matchedFilters(status, props.context ?? 'home');
  const hasWarning = status.spoilerText.length > 0;
  const open = expanded ?? prefs.expandSpoilers;
  const author = status.account.displayName || status.account.username;
  const label = `${boost ? `${boost.account.displayName || boost.account.username} boosted, ` : ''}${author}, ${new Date(status.createdAt).toLocaleString()}`;
  const common = {
    'aria-posinset': props.posinset,
    'aria-setsize': props.setsize,
    tabIndex: 0,
    'data-status-id': status.id,
    id: props.id,
  };

  if (filters.warn.length > 0 && !showFiltered) {
    return (
      <article class="status status-filtered" aria-label={`Filtered post by ${author}`} {...common}>
        <p>
          Filtered: {filters.warn.join(', ')}{' '}
          <button type="button" class="link-button" onClick={() => setShowFiltered(true)}>
            Show anyway
          </button>
        </p>
      </article>
    );
  }

  const replyTo = status.inReplyToAccountId ? (status.inReplyToAccountId === status.account.id ? status.account : status.mentions.find((m) => m.id === status.inReplyToAccountId)) : null;
  const Tag = props.nested ? 'div' : 'article';
  return (
    <Tag
      class={`status${props.focused ? ' status-focused' : ''}${props.nested ? ' status-nested' : ''}`}
      aria-label={props.nested ? undefined : label}
      aria-current={props.focused ? 'true' : undefined}
      lang={status.language ?? undefined}
      {...(props.nested ? {} : common)}
    >
      {boost && (
        <p class="status-boosted-by">
          <span aria-hidden="true">⟳ </span>
          <a href={profilePath(boost.account)}>
            <Emojify text={boost.account.displayName || boost.account.username} emojis={boost.account.emojis} />
          </a>{' '}
          boosted
        </p>
      )}
      <header class="status-header">
        <a href={profilePath(status.account)} class="status-author">
          <Avatar account={status.account} size={props.nested ? 24 : 46} />
          <span class="display-name">
            <Emojify text={author} emojis={status.account.emojis} />
          </span>
          <span class="acct">@{status.account.acct}</span>
        </a>
        <a href={threadPath(status)} class="status-time">
          <RelativeTime iso={status.createdAt} />
        </a>
        {status.editedAt && (
          <span class="status-edited" title={new Date(status.editedAt).toLocaleString()}>
            edited
          </span>
        )}
        {!props.nested && !props.hideActions && <StatusMenu status={status} />}
      </header>
      {status.inReplyToId && (
        <p class="status-reply-to">
          Replying to{' '}
          {replyTo ? <a href={profilePath(replyTo)}>@{replyTo.acct}</a> : <a href={`/@${status.account.acct}/${status.inReplyToId}`}>a post</a>}
        </p>
      )}
      {hasWarning && (
        <div class="status-warning">
          <p>
            <Emojify text={status.spoilerText} emojis={status.emojis} />
          </p>
          <button type="button" aria-expanded={open} onClick={() => setExpanded(!open)}>
            {open ? 'Show less' : 'Show more'}
          </button>
        </div>
      )}
      {(!hasWarning || open) && (
        <>
          <Content html={status.content} emojis={status.emojis} links={status} lang={status.language} />
          {status.mediaAttachments.length > 0 && <MediaGrid media={status.mediaAttachments} sensitive={status.sensitive} expand={prefs.expandMedia} onOpen={setViewer} />}
          {status.poll && <Poll status={status} poll={status.poll} />}
          {status.card && status.mediaAttachments.length === 0 && !status.poll && <Card card={status.card} />}
          {status.quote && !props.nested && <QuoteBlock quote={status.quote} render={(q) => <StatusView status={q} nested />} />}
        </>
      )}
      {viewer !== null && <MediaViewer media={status.mediaAttachments} start={viewer} onClose={() => setViewer(null)} />}
      {!props.nested && !props.hideActions && <StatusActions status={status} />}
      {props.focused && <p class="status-full-date">{new Date(status.createdAt).toLocaleString()}{status.application?.name ? ` · ${status.application.name}` : ''}</p>}
    </Tag>
  );
}
