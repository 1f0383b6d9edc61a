import type { mastodon } from 'masto';
import type { JSX } from 'preact';

type Status = mastodon.v1.Status;

/** What a reader sees in place of a quoted post that cannot be shown. */
const STATES: Record<string, string> = {
  pending: 'The quoted post’s author has not approved this quote yet.',
  rejected: 'The quoted post’s author declined this quote.',
  revoked: 'The quoted post’s author removed this quote.',
  deleted: 'The quoted post was deleted.',
  unauthorized: 'You are not allowed to see the quoted post.',
  blocked_account: 'The quoted post is hidden: you blocked its author.',
  blocked_domain: 'The quoted post is hidden: you blocked its server.',
  muted_account: 'The quoted post is hidden: you muted its author.',
};

/**
 * A quote post's quoted part (Mastodon 4.5 `quote`): the quoted post itself when accepted, a
 * link when only its id came (a quote of a quote), or a sentence saying why it is not shown.
 * `render` draws the quoted post (StatusView, passed in to avoid a cycle between the files).
 */
export function QuoteBlock(props: { quote: NonNullable<Status['quote']>; render: (s: Status) => JSX.Element }): JSX.Element {
  const q = props.quote;
  if (q.state === 'accepted' && 'quotedStatus' in q && q.quotedStatus) {
    return (
      <blockquote class="status-quote" aria-label="Quoted post">
        {props.render(q.quotedStatus)}
      </blockquote>
    );
  }
  if (q.state === 'accepted' && 'quotedStatusId' in q && q.quotedStatusId) {
    return (
      <p class="status-quote status-quote-missing">
        <a href={`/@_/${q.quotedStatusId}`}>Open the quoted post</a>
      </p>
    );
  }
  return <p class="status-quote status-quote-missing">{STATES[q.state] ?? 'The quoted post is not available.'}</p>;
}

