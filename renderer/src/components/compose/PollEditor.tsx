import type { JSX } from 'preact';
import type { PollDraft } from './drafts';

/** The instance's limits on polls (from `/api/v2/instance`). */
export interface PollLimits {
  maxOptions: number;
  maxCharactersPerOption: number;
  minExpiration: number;
  maxExpiration: number;
}

const DURATIONS: { seconds: number; label: string }[] = [
  { seconds: 300, label: '5 minutes' },
  { seconds: 1800, label: '30 minutes' },
  { seconds: 3600, label: '1 hour' },
  { seconds: 6 * 3600, label: '6 hours' },
  { seconds: 12 * 3600, label: '12 hours' },
  { seconds: 86400, label: '1 day' },
  { seconds: 3 * 86400, label: '3 days' },
  { seconds: 7 * 86400, label: '7 days' },
];

/** A new poll with two empty options, open for a day (or the nearest the instance allows). */
export function emptyPoll(limits: PollLimits): PollDraft {
  return { options: ['', ''], multiple: false, hideTotals: false, expiresIn: Math.min(Math.max(86400, limits.minExpiration), limits.maxExpiration) };
}

/** The options (2 to the instance's maximum), multiple choice, hidden totals and duration of a poll. */
export function PollEditor(props: { poll: PollDraft; limits: PollLimits; onChange: (poll: PollDraft) => void }): JSX.Element {
  const { poll, limits } = props;
  const durations = DURATIONS.filter((d) => d.seconds >= limits.minExpiration && d.seconds <= limits.maxExpiration);
  if (!durations.some((d) => d.seconds === poll.expiresIn)) durations.push({ seconds: poll.expiresIn, label: `${Math.round(poll.expiresIn / 60)} minutes` });
  const setOption = (i: number, value: string) => props.onChange({ ...poll, options: poll.options.map((o, j) => (j === i ? value : o)) });
  return (
    <fieldset class="compose-poll">
      <legend>Poll</legend>
      <ol>
        {poll.options.map((option, i) => (
          <li key={i}>
            <label for={`poll-option-${i}`}>Option {i + 1}</label>
            <div class="compose-poll-option">
              <input id={`poll-option-${i}`} type="text" maxLength={limits.maxCharactersPerOption} value={option} onInput={(e) => setOption(i, e.currentTarget.value)} />
              {poll.options.length > 2 && (
                <button type="button" aria-label={`Remove option ${i + 1}`} onClick={() => props.onChange({ ...poll, options: poll.options.filter((_, j) => j !== i) })}>
                  ×
                </button>
              )}
            </div>
          </li>
        ))}
      </ol>
      {poll.options.length < limits.maxOptions && (
        <button type="button" onClick={() => props.onChange({ ...poll, options: [...poll.options, ''] })}>
          Add option
        </button>
      )}
      <div class="compose-checks">
        <input id="poll-multiple" type="checkbox" checked={poll.multiple} onChange={(e) => props.onChange({ ...poll, multiple: e.currentTarget.checked })} />
        <label for="poll-multiple">Allow multiple choices</label>
        <input id="poll-hide-totals" type="checkbox" checked={poll.hideTotals} onChange={(e) => props.onChange({ ...poll, hideTotals: e.currentTarget.checked })} />
        <label for="poll-hide-totals">Hide vote counts until the poll ends</label>
      </div>
      <label for="poll-duration">Poll duration</label>
      <select id="poll-duration" value={String(poll.expiresIn)} onChange={(e) => props.onChange({ ...poll, expiresIn: Number(e.currentTarget.value) })}>
        {durations.map((d) => (
          <option key={d.seconds} value={String(d.seconds)}>
            {d.label}
          </option>
        ))}
      </select>
    </fieldset>
  );
}
