import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { RelativeTime } from '../../components/time/RelativeTime';
import { QueryState, Section } from '../../components/layout/section';
import { type AdminAccount, handle, useAdminChange, useAdminFetch, useAdminList } from './data';

interface AdminReport {
  id: string;
  action_taken: boolean;
  category: string;
  comment: string;
  created_at: string;
  account: AdminAccount;
  target_account: AdminAccount;
  assigned_account: AdminAccount | null;
  statuses: { id: string }[];
}

/** Staff > Reports: open (or resolved) reports; assign to yourself or unassign, resolve or reopen. */
export function Reports(): JSX.Element {
  const call = useAdminFetch();
  const [resolved, setResolved] = useState(false);
  const query = useAdminList<AdminReport>('reports', `/api/v1/admin/reports?resolved=${resolved}&limit=100`);
  const act = useAdminChange<AdminReport, { r: AdminReport; what: 'assign_to_self' | 'unassign' | 'resolve' | 'reopen' }>(
    'reports',
    ({ r, what }) => call(`/api/v1/admin/reports/${r.id}/${what}`, 'POST'),
    ({ r, what }) => `${what.replace(/_/g, ' ')} on report ${r.id}`,
    (list, { r, what }) => (what === 'resolve' || what === 'reopen' ? list.filter((x) => x.id !== r.id) : list),
  );
  return (
    <Section title="Reports">
      <div role="group" aria-label="Which reports" class="actions">
        <button type="button" aria-pressed={!resolved} onClick={() => setResolved(false)}>
          Open
        </button>
        <button type="button" aria-pressed={resolved} onClick={() => setResolved(true)}>
          Resolved
        </button>
      </div>
      <QueryState query={query} label="reports">
        {() =>
          query.data?.length ? (
            <ul class="rows" aria-label={resolved ? 'Resolved reports' : 'Open reports'}>
              {query.data.map((r) => {
                const name = `report on ${handle(r.target_account)}`;
                return (
                  <li key={r.id}>
                    <span class="grow">
                      <strong>
                        {handle(r.target_account)} reported by {handle(r.account)}
                      </strong>{' '}
                      <span class="hint">
                        ({r.category}, {r.statuses.length} posts, <RelativeTime iso={r.created_at} />
                        {r.assigned_account ? `, assigned to ${handle(r.assigned_account)}` : ''})
                      </span>
                      {r.comment && <p>{r.comment}</p>}
                    </span>
                    {r.assigned_account ? (
                      <button type="button" aria-label={`Unassign ${name}`} onClick={() => act.mutate({ r, what: 'unassign' })}>
                        Unassign
                      </button>
                    ) : (
                      <button type="button" aria-label={`Assign ${name} to me`} onClick={() => act.mutate({ r, what: 'assign_to_self' })}>
                        Assign to me
                      </button>
                    )}
                    {r.action_taken ? (
                      <button type="button" aria-label={`Reopen ${name}`} onClick={() => act.mutate({ r, what: 'reopen' })}>
                        Reopen
                      </button>
                    ) : (
                      <button type="button" class="primary" aria-label={`Resolve ${name}`} onClick={() => act.mutate({ r, what: 'resolve' })}>
                        Resolve
                      </button>
                    )}
                  </li>
                );
              })}
            </ul>
          ) : (
            <p>{resolved ? 'No resolved reports.' : 'No open reports.'}</p>
          )
        }
      </QueryState>
    </Section>
  );
}
