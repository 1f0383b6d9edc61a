import { useQueryClient } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { useApi } from '../../instance/client';
import { updateStatusEverywhere } from '../../instance/cache';
import { describeError } from '../../instance/errors';
import { Emojify } from '../html/Content';
import { toast } from '../layout/toasts';
import { RelativeTime } from '../time/RelativeTime';
import './poll.css';

type Status = mastodon.v1.Status;
type PollEntity = mastodon.v1.Poll;

/** The poll as it looks right after a vote, before the server answers. */
function withVote(poll: PollEntity, choices: number[]): PollEntity {
  return {
    ...poll,
    voted: true,
    ownVotes: choices,
    votesCount: poll.votesCount + choices.length,
    votersCount: (poll.votersCount ?? poll.votesCount) + 1,
    options: poll.options.map((o, i) => (choices.includes(i) ? { ...o, votesCount: (o.votesCount ?? 0) + 1 } : o)),
  };
}

/**
 * A post's poll: a form to vote (radio buttons, or checkboxes for a multiple-choice poll) until
 * the person has voted or it has closed, then the results with percentages, the person's own
 * choices marked. The vote shows at once and is put back if the instance refuses it.
 */
export function Poll(props: { status: Status; poll: PollEntity }): JSX.Element {
  const api = useApi();
  const qc = useQueryClient();
  const { poll, status } = props;
  const [choices, setChoices] = useState<number[]>([]);
  const [showResults, setShowResults] = useState(false);
  const own = api.account.id === status.account.id;
  const results = poll.voted || poll.expired || own || showResults;
  const total = poll.multiple ? (poll.votersCount ?? poll.votesCount) : poll.votesCount;
  const name = `poll-${poll.id}`;

  const vote = async (picked: number[]) => {
    const before = poll;
    const patch = (next: PollEntity) => (s: Status) => (s.poll?.id === poll.id ? { ...s, poll: next } : s);
    updateStatusEverywhere(qc, status.id, patch(withVote(poll, picked)));
    try {
      const answer = await api.rest.v1.polls.$select(poll.id).votes.create({ choices: picked });
      updateStatusEverywhere(qc, status.id, patch(answer));
    } catch (error) {
      updateStatusEverywhere(qc, status.id, patch(before));
      toast(describeError(error), { retry: () => void vote(picked) });
    }
  };

  const footer = (
    <p class="poll-footer">
      {total === 1 ? '1 person' : `${total} people`}
      {' · '}
      {poll.expired ? 'Closed' : poll.expiresAt ? <>Closes <RelativeTime iso={poll.expiresAt} /></> : 'Open'}
      {!poll.voted && !poll.expired && !own && (
        <>
          {' · '}
          <button type="button" class="link-button" onClick={() => setShowResults(!showResults)}>
            {showResults ? 'Hide results' : 'See results'}
          </button>
        </>
      )}
    </p>
  );

  if (results) {
    return (
      <div class="poll" role="group" aria-label="Poll results">
        <ul class="poll-results">
          {poll.options.map((o, i) => {
            const votes = o.votesCount ?? 0;
            const percent = total > 0 ? Math.round((votes / total) * 100) : 0;
            const mine = poll.ownVotes?.includes(i) ?? false;
            return (
              <li key={i} class={mine ? 'poll-own' : undefined}>
                <span class="poll-percent">{percent}%</span>
                <span class="poll-title">
                  <Emojify text={o.title} emojis={o.emojis} />
                  {mine && <span class="poll-mine"> (your choice)</span>}
                </span>
                <meter min={0} max={100} value={percent} aria-hidden="true" />
              </li>
            );
          })}
        </ul>
        {footer}
      </div>
    );
  }
  return (
    <form
      class="poll"
      onSubmit={(e) => {
        e.preventDefault();
        if (choices.length > 0) void vote(choices);
      }}
    >
      <fieldset>
        <legend class="visually-hidden">{poll.multiple ? 'Choose one or more' : 'Choose one'}</legend>
        {poll.options.map((o, i) => (
          <label key={i} class="poll-option">
            <input
              type={poll.multiple ? 'checkbox' : 'radio'}
              name={name}
              checked={choices.includes(i)}
              onChange={() => setChoices(poll.multiple ? (choices.includes(i) ? choices.filter((c) => c !== i) : [...choices, i]) : [i])}
            />{' '}
            <Emojify text={o.title} emojis={o.emojis} />
          </label>
        ))}
      </fieldset>
      <button type="submit" disabled={choices.length === 0}>
        Vote
      </button>
      {footer}
    </form>
  );
}
