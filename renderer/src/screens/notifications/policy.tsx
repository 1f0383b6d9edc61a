import { useQuery, useQueryClient } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { toast } from '../../components/layout/toasts';
import { ErrorRetry } from '../../components/layout/ErrorRetry';

type Policy = mastodon.v2.NotificationPolicy;
type Choice = mastodon.v2.NotificationPolicyType;
type Field = 'forNotFollowing' | 'forNotFollowers' | 'forNewAccounts' | 'forPrivateMentions' | 'forLimitedAccounts';

const FIELDS: { field: Field; label: string; hint: string }[] = [
  { field: 'forNotFollowing', label: 'People you don’t follow', hint: 'Notifications from accounts you do not follow.' },
  { field: 'forNotFollowers', label: 'People not following you', hint: 'Including those who followed you less than 3 days ago.' },
  { field: 'forNewAccounts', label: 'New accounts', hint: 'Accounts made within the past 30 days.' },
  { field: 'forPrivateMentions', label: 'Unsolicited private mentions', hint: 'Unless it is a reply to your own mention or you follow the sender.' },
  { field: 'forLimitedAccounts', label: 'Moderated accounts', hint: 'Accounts limited by the server’s moderators.' },
];

const CHOICES: { value: Choice; label: string }[] = [
  { value: 'accept', label: 'Accept' },
  { value: 'filter', label: 'Filter (to requests)' },
  { value: 'drop', label: 'Ignore' },
];

/** The query key of the notification policy (its summary feeds the requests count). */
export const POLICY_KEY = ['notifications', 'policy'];

/** The notification policy (v2): for each kind of sender, accept, filter into requests, or drop. Each change is saved at once (optimistic). */
export function PolicyForm(): JSX.Element {
  const api = useApi();
  const qc = useQueryClient();
  const policy = useQuery({ queryKey: POLICY_KEY, queryFn: () => api.rest.v2.notifications.policy.fetch() });
  const change = async (field: Field, value: Choice): Promise<void> => {
    const before = qc.getQueryData<Policy>(POLICY_KEY);
    if (before) qc.setQueryData<Policy>(POLICY_KEY, { ...before, [field]: value });
    try {
      qc.setQueryData<Policy>(POLICY_KEY, await api.rest.v2.notifications.policy.update({ [field]: value }));
      toast('Notification policy saved.', { kind: 'info' });
    } catch (error) {
      if (before) qc.setQueryData<Policy>(POLICY_KEY, before);
      toast(describeError(error), { retry: () => void change(field, value) });
    }
  };
  if (policy.isPending)
    return (
      <p class="loading" role="status">
        Loading…
      </p>
    );
  if (policy.error)
    return (
      <ErrorRetry error={policy.error} onRetry={() => policy.refetch()} />
    );
  return (
    <form class="policy-form" onSubmit={(e) => e.preventDefault()} aria-labelledby="policy-title">
      <h2 id="policy-title">Notification policy</h2>
      <p class="muted">Filtered notifications wait under Requests until you accept or dismiss them; ignored ones are never shown.</p>
      {FIELDS.map((f) => (
        <div key={f.field} class="policy-field">
          <label for={`policy-${f.field}`}>{f.label}</label>
          <p id={`policy-${f.field}-hint`} class="muted">
            {f.hint}
          </p>
          <select id={`policy-${f.field}`} aria-describedby={`policy-${f.field}-hint`} value={policy.data[f.field]} onChange={(e) => void change(f.field, e.currentTarget.value as Choice)}>
            {CHOICES.map((c) => (
              <option key={c.value} value={c.value}>
                {c.label}
              </option>
            ))}
          </select>
        </div>
      ))}
    </form>
  );
}
