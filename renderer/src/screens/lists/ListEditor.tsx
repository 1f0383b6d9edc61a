import { useMutation, useQueryClient } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { toast } from '../../components/layout/toasts';
import { useConfirm } from '../../components/dialog/confirm';
import { Members } from './Members';

/** What a list's form changes. */
export interface ListInput {
  title: string;
  repliesPolicy: 'followed' | 'list' | 'none';
  exclusive: boolean;
}

const KEY = ['lists'];
const POLICIES = [
  ['list', 'Replies to members of the list'],
  ['followed', 'Replies to anyone you follow'],
  ['none', 'No replies'],
] as const;

/** One list: its settings (saved optimistically), its members, and delete. */
export function ListEditor(props: { list: mastodon.v1.List }): JSX.Element {
  const api = useApi();
  const client = useQueryClient();
  const l = props.list;
  const [title, setTitle] = useState(l.title);
  const [open, setOpen] = useState(false);
  const [confirmation, ask] = useConfirm();
  const patch = (updated: mastodon.v1.List[] | undefined, list: mastodon.v1.List): mastodon.v1.List[] | undefined => updated?.map((x) => (x.id === list.id ? list : x));

  const update = useMutation({
    mutationFn: (input: ListInput) => api.rest.v1.lists.$select(l.id).update(input),
    onMutate: async (input) => {
      await client.cancelQueries({ queryKey: KEY });
      const before = client.getQueryData<mastodon.v1.List[]>(KEY);
      client.setQueryData<mastodon.v1.List[]>(KEY, (old) => patch(old, { ...l, ...input }));
      return { before };
    },
    onSuccess: (saved) => client.setQueryData<mastodon.v1.List[]>(KEY, (old) => patch(old, saved)),
    onError: (error, input, context) => {
      client.setQueryData(KEY, context?.before);
      setTitle(l.title);
      toast(`The list “${l.title}” was not changed: ${describeError(error)}`, { retry: () => update.mutate(input) });
    },
  });
  const remove = useMutation({
    mutationFn: () => api.rest.v1.lists.$select(l.id).remove(),
    onMutate: async () => {
      await client.cancelQueries({ queryKey: KEY });
      const before = client.getQueryData<mastodon.v1.List[]>(KEY);
      client.setQueryData<mastodon.v1.List[]>(KEY, (old) => old?.filter((x) => x.id !== l.id));
      return { before };
    },
    onError: (error, _v, context) => {
      client.setQueryData(KEY, context?.before);
      toast(`The list “${l.title}” was not deleted: ${describeError(error)}`, { retry: () => remove.mutate() });
    },
  });
  const current: ListInput = { title: l.title, repliesPolicy: (l.repliesPolicy ?? 'list') as ListInput['repliesPolicy'], exclusive: l.exclusive ?? false };
  const headingId = `list-${l.id}`;
  return (
    <section class="settings-section" aria-labelledby={headingId}>
      <h2 id={headingId}>
        <a href={`/lists/${l.id}`}>{l.title}</a>
      </h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (title.trim() && title.trim() !== l.title) update.mutate({ ...current, title: title.trim() });
        }}
      >
        <label for={`${headingId}-title`}>Title of {l.title}</label>
        <input id={`${headingId}-title`} type="text" required value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
        <div class="actions">
          <button type="submit">Rename</button>
        </div>
      </form>
      <label for={`${headingId}-replies`}>Show replies in {l.title}</label>
      <select id={`${headingId}-replies`} value={current.repliesPolicy} onChange={(e) => update.mutate({ ...current, repliesPolicy: e.currentTarget.value as ListInput['repliesPolicy'] })}>
        {POLICIES.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
      <label class="check">
        <input type="checkbox" checked={current.exclusive} onChange={(e) => update.mutate({ ...current, exclusive: e.currentTarget.checked })} />
        Hide posts of {l.title}’s members from Home
      </label>
      <div class="actions">
        <button type="button" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? `Hide members of ${l.title}` : `Members of ${l.title}`}
        </button>
        <button type="button" onClick={() => ask('Delete the list?', `The list “${l.title}” and its members go; the people stay followed.`, 'Delete list', () => remove.mutate())}>
          Delete {l.title}
        </button>
      </div>
      {open && <Members list={l} />}
      {confirmation}
    </section>
  );
}
