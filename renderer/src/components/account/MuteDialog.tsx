import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { Dialog } from '../dialog/Dialog';
import './account.css';
import { useRelationshipAction } from './relationship';

const DURATIONS: { seconds: number; label: string }[] = [
  { seconds: 0, label: 'Indefinitely' },
  { seconds: 300, label: '5 minutes' },
  { seconds: 1800, label: '30 minutes' },
  { seconds: 3600, label: '1 hour' },
  { seconds: 21600, label: '6 hours' },
  { seconds: 86400, label: '1 day' },
  { seconds: 259200, label: '3 days' },
  { seconds: 604800, label: '7 days' },
];

/** Mutes an account for a chosen time, hiding its notifications too unless asked not to. */
export function MuteDialog(props: { account: Pick<mastodon.v1.Account, 'id' | 'acct'>; onClose: () => void }): JSX.Element {
  const [duration, setDuration] = useState(0);
  const [notifications, setNotifications] = useState(true);
  const act = useRelationshipAction();
  const id = props.account.id;
  const submit = (e: Event) => {
    e.preventDefault();
    props.onClose();
    void act(id, (r) => ({ ...r, muting: true, mutingNotifications: notifications }), (api) => api.rest.v1.accounts.$select(id).mute({ notifications, duration }));
  };
  return (
    <Dialog title={`Mute @${props.account.acct}`} onClose={props.onClose}>
      <form onSubmit={submit}>
        <p>You will not see their posts. They can still follow you and will not know they are muted.</p>
        <label for="mute-duration">Duration</label>
        <select id="mute-duration" value={String(duration)} onChange={(e) => setDuration(Number(e.currentTarget.value))}>
          {DURATIONS.map((d) => (
            <option key={d.seconds} value={String(d.seconds)}>
              {d.label}
            </option>
          ))}
        </select>
        <label class="checkbox">
          <input type="checkbox" checked={notifications} onChange={(e) => setNotifications(e.currentTarget.checked)} /> Hide notifications from them
        </label>
        <div class="dialog-actions">
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" class="primary">
            Mute
          </button>
        </div>
      </form>
    </Dialog>
  );
}
