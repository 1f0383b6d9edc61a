import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { toast } from '../../components/layout/toasts';
import { QueryState } from '../../components/layout/section';
import { ListEditor, type ListInput } from './ListEditor';
import '../settings/settings.css';

export const LISTS_KEY = ['lists'];

/**
 * Lists: every list with a link to its timeline, a form to create one, and per list: rename,
 * replies policy, exclusive, members (search the accounts you follow), delete.
 */
export function Lists(_props: Record<string, unknown>): JSX.Element {
  const api = useApi();
  const client = useQueryClient();
  const query = useQuery({ queryKey: LISTS_KEY, queryFn: async () => await api.rest.v1.lists.list() });
  const [title, setTitle] = useState('');
  const create = useMutation({
    mutationFn: (input: ListInput) => api.rest.v1.lists.create(input),
    onSuccess: (list) => {
      client.setQueryData<mastodon.v1.List[]>(LISTS_KEY, (old) => [...(old ?? []), list]);
      setTitle('');
    },
    onError: (error, input) => toast(`The list was not created: ${describeError(error)}`, { retry: () => create.mutate(input) }),
  });
  return (
    <section aria-labelledby="screen-title" class="settings">
      <h1 id="screen-title">Lists</h1>
      <form
        class="settings-section"
        onSubmit={(e) => {
          e.preventDefault();
          if (title.trim()) create.mutate({ title: title.trim(), repliesPolicy: 'list', exclusive: false });
        }}
      >
        <label for="new-list-title">New list title</label>
        <input id="new-list-title" type="text" required value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
        <div class="actions">
          <button type="submit" class="primary" disabled={create.isPending}>
            Create list
          </button>
        </div>
      </form>
      <QueryState query={query} label="lists">
        {() => (query.data?.length ? query.data.map((list) => <ListEditor key={list.id} list={list} />) : <p>You have no lists yet.</p>)}
      </QueryState>
    </section>
  );
}
