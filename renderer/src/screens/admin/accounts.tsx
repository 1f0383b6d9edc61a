import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { Dialog } from '../../components/dialog/Dialog';
import { Emojify } from '../../components/html/Content';
import { RelativeTime } from '../../components/time/RelativeTime';
import { QueryState, Section } from '../../components/layout/section';
import { type AdminAccount, emojis, handle, useAdminChange, useAdminFetch, useAdminList } from './data';

function Name(props: { a: AdminAccount }): JSX.Element {
  return (
    <span class="grow">
      <strong>
        <Emojify text={props.a.account.display_name || props.a.username} emojis={emojis(props.a.account.emojis)} />
      </strong>{' '}
      <span class="hint">{handle(props.a)}</span>
    </span>
  );
}

/** Staff > Sign-up approvals: pending sign-ups with their reason; approve or reject each. */
export function Approvals(): JSX.Element {
  const call = useAdminFetch();
  const query = useAdminList<AdminAccount>('accounts', '/api/v1/admin/accounts?pending=true&local=true&limit=100');
  const decide = useAdminChange<AdminAccount, { a: AdminAccount; approve: boolean }>(
    'accounts',
    ({ a, approve }) => call(`/api/v1/admin/accounts/${a.id}/${approve ? 'approve' : 'reject'}`, 'POST'),
    ({ a, approve }) => `${approve ? 'Approving' : 'Rejecting'} ${handle(a)}`,
    (list, { a }) => list.filter((x) => x.id !== a.id),
  );
  return (
    <Section title="Sign-up approvals">
      <QueryState query={query} label="pending sign-ups">
        {() =>
          query.data?.length ? (
            <ul class="rows" aria-label="Pending sign-ups">
              {query.data.map((a) => (
                <li key={a.id}>
                  <Name a={a} />
                  <span class="hint">
                    {a.email} · <RelativeTime iso={a.created_at} />
                    {a.invite_request && <> · “{a.invite_request}”</>}
                  </span>
                  <button type="button" class="primary" aria-label={`Approve ${handle(a)}`} onClick={() => decide.mutate({ a, approve: true })}>
                    Approve
                  </button>
                  <button type="button" aria-label={`Reject ${handle(a)}`} onClick={() => decide.mutate({ a, approve: false })}>
                    Reject
                  </button>
                </li>
              ))}
            </ul>
          ) : (
            <p>No sign-ups are waiting.</p>
          )
        }
      </QueryState>
    </Section>
  );
}

/** A short word for the state of an account. */
function state(a: AdminAccount): string {
  if (a.suspended) return 'suspended';
  if (a.silenced) return 'limited';
  if (a.disabled) return 'frozen';
  if (a.approved === false) return 'pending';
  return 'active';
}

/** Staff > Accounts: search by username, and warn, limit (silence) or suspend with a note to the person. */
export function Accounts(): JSX.Element {
  const [q, setQ] = useState('');
  const [submitted, setSubmitted] = useState('');
  const [acting, setActing] = useState<AdminAccount | null>(null);
  const query = useAdminList<AdminAccount>('accounts', `/api/v2/admin/accounts?limit=50${submitted ? `&username=${encodeURIComponent(submitted)}` : ''}`);
  return (
    <Section title="Accounts">
      <form
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setSubmitted(q.trim());
        }}
      >
        <label for="admin-account-search">Username</label>
        <input id="admin-account-search" type="search" value={q} onInput={(e) => setQ(e.currentTarget.value)} />
        <div class="actions">
          <button type="submit">Search accounts</button>
        </div>
      </form>
      <QueryState query={query} label="accounts">
        {() =>
          query.data?.length ? (
            <ul class="rows" aria-label="Accounts">
              {query.data.map((a) => (
                <li key={a.id}>
                  <Name a={a} />
                  <span class="hint">{state(a)}</span>
                  <button type="button" aria-label={`Moderate ${handle(a)}`} onClick={() => setActing(a)}>
                    Moderate
                  </button>
                </li>
              ))}
            </ul>
          ) : (
            <p>No accounts match.</p>
          )
        }
      </QueryState>
      {acting && <ActionDialog account={acting} onClose={() => setActing(null)} />}
    </Section>
  );
}

const ACTIONS = [
  ['none', 'Warn'],
  ['sensitive', 'Mark media as sensitive'],
  ['disable', 'Freeze sign-in'],
  ['silence', 'Limit'],
  ['suspend', 'Suspend'],
] as const;

function ActionDialog(props: { account: AdminAccount; onClose: () => void }): JSX.Element {
  const call = useAdminFetch();
  const a = props.account;
  const [type, setType] = useState<string>('none');
  const [text, setText] = useState('');
  const [notify, setNotify] = useState(true);
  const act = useAdminChange<AdminAccount, void>(
    'accounts',
    () => call(`/api/v1/admin/accounts/${a.id}/action`, 'POST', { type, text, send_email_notification: notify }),
    () => `${ACTIONS.find(([v]) => v === type)?.[1] ?? 'Action'} on ${handle(a)}`,
  );
  const undo = useAdminChange<AdminAccount, string>('accounts', (what) => call(`/api/v1/admin/accounts/${a.id}/${what}`, 'POST'), (what) => `${what} ${handle(a)}`);
  return (
    <Dialog title={`Moderate ${handle(a)}`} onClose={props.onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          act.mutate(undefined, { onSuccess: props.onClose });
        }}
      >
        <fieldset>
          <legend>Action</legend>
          {ACTIONS.map(([value, label]) => (
            <label class="check" key={value}>
              <input type="radio" name="admin-action" checked={type === value} onChange={() => setType(value)} />
              {label}
            </label>
          ))}
        </fieldset>
        <label for="admin-action-text">Note to the person (the strike’s text)</label>
        <textarea id="admin-action-text" rows={3} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        <label class="check">
          <input type="checkbox" checked={notify} onChange={(e) => setNotify(e.currentTarget.checked)} />
          Tell them by e-mail
        </label>
        <div class="actions">
          <button type="submit" class="primary" disabled={act.isPending}>
            Apply
          </button>
          {a.silenced && (
            <button type="button" onClick={() => undo.mutate('unsilence', { onSuccess: props.onClose })}>
              Lift the limit
            </button>
          )}
          {a.suspended && (
            <button type="button" onClick={() => undo.mutate('unsuspend', { onSuccess: props.onClose })}>
              Lift the suspension
            </button>
          )}
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
