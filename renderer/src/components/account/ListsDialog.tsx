import { useQuery, useQueryClient } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { Dialog } from '../dialog/Dialog';
import './account.css';
import { toast } from '../layout/toasts';
import { ErrorRetry } from '../layout/ErrorRetry';

type List = mastodon.v1.List;

/** Your lists with a checkbox each: ticking adds the account to the list, unticking removes it (optimistic). */
export function ListsDialog(props: { account: Pick<mastodon.v1.Account, 'id' | 'acct'>; onClose: () => void }): JSX.Element {
  const api = useApi();
  const qc = useQueryClient();
  const id = props.account.id;
  const lists = useQuery({ queryKey: ['lists'], queryFn: async () => await api.rest.v1.lists.list() });
  const memberKey = ['account-lists', id];
  const member = useQuery({ queryKey: memberKey, queryFn: async () => await api.rest.v1.accounts.$select(id).lists.list() });
  const toggle = async (list: List, on: boolean): Promise<void> => {
    const before = qc.getQueryData<List[]>(memberKey) ?? [];
    qc.setQueryData<List[]>(memberKey, on ? [...before, list] : before.filter((l) => l.id !== list.id));
    try {
      if (on) await api.rest.v1.lists.$select(list.id).accounts.create({ accountIds: [id] });
      else await api.rest.v1.lists.$select(list.id).accounts.remove({ accountIds: [id] });
    } catch (error) {
      qc.setQueryData<List[]>(memberKey, before);
      toast(describeError(error), { retry: () => void toggle(list, on) });
    }
  };
  const error = lists.error ?? member.error;
  return (
    <Dialog title={`Lists with @${props.account.acct}`} onClose={props.onClose}>
      {(lists.isPending || member.isPending) && !error && (
        <p class="loading" role="status">
          Loading…
        </p>
      )}
      {error && (
        <ErrorRetry error={error} onRetry={() => Promise.all([lists.refetch(), member.refetch()])} />
      )}
      {lists.data && member.data && (
        <fieldset class="plain-fieldset">
          <legend class="visually-hidden">Your lists</legend>
          {lists.data.length === 0 && (
            <p class="empty">
              You have no lists yet. <a href="/lists">Make one</a>.
            </p>
          )}
          {lists.data.map((list) => (
            <label key={list.id} class="checkbox">
              <input type="checkbox" checked={member.data.some((l) => l.id === list.id)} onChange={(e) => void toggle(list, e.currentTarget.checked)} /> {list.title}
            </label>
          ))}
        </fieldset>
      )}
      <div class="dialog-actions">
        <button type="button" onClick={props.onClose}>
          Done
        </button>
      </div>
    </Dialog>
  );
}
