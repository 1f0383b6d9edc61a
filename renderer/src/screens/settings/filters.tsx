import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { Dialog } from '../../components/dialog/Dialog';
import { toast } from '../../components/layout/toasts';
import { RelativeTime } from '../../components/time/RelativeTime';
import { QueryState, Section } from '../../components/layout/section';

/** A v2 filter as the API gives it. */
interface Filter {
  id: string;
  title: string;
  context: string[];
  expires_at: string | null;
  filter_action: 'warn' | 'hide' | 'blur';
  keywords: { id: string; keyword: string; whole_word: boolean }[];
}

const CONTEXTS = [
  ['home', 'Home and lists'],
  ['notifications', 'Notifications'],
  ['public', 'Public timelines'],
  ['thread', 'Conversations'],
  ['account', 'Profiles'],
] as const;
const ACTIONS = [
  ['warn', 'Hide behind a warning'],
  ['blur', 'Hide only the media behind a warning'],
  ['hide', 'Hide completely'],
] as const;
const EXPIRIES = [
  ['', 'Never'],
  ['1800', '30 minutes'],
  ['3600', '1 hour'],
  ['43200', '12 hours'],
  ['86400', '1 day'],
  ['604800', '1 week'],
] as const;
const KEY = ['settings', 'filters'];

/** Settings > Filters: the v2 filters, with a dialog to create or edit one, and delete. */
export function FiltersSettings(): JSX.Element {
  const api = useApi();
  const client = useQueryClient();
  const query = useQuery({ queryKey: KEY, queryFn: () => api.fetchJson<Filter[]>('/api/v2/filters') });
  const [editing, setEditing] = useState<Filter | 'new' | null>(null);
  const remove = useMutation({
    mutationFn: (f: Filter) => api.fetchJson(`/api/v2/filters/${f.id}`, { method: 'DELETE' }),
    onMutate: async (f) => {
      await client.cancelQueries({ queryKey: KEY });
      const before = client.getQueryData<Filter[]>(KEY);
      client.setQueryData<Filter[]>(KEY, (old) => old?.filter((x) => x.id !== f.id));
      return { before };
    },
    onError: (error, f, context) => {
      client.setQueryData(KEY, context?.before);
      toast(`The filter “${f.title}” was not deleted: ${describeError(error)}`, { retry: () => remove.mutate(f) });
    },
  });
  return (
    <Section title="Filters">
      <p class="hint">Posts with these words are hidden or put behind a warning where you choose.</p>
      <button type="button" class="primary" onClick={() => setEditing('new')}>
        New filter
      </button>
      <QueryState query={query} label="filters">
        {() =>
          query.data?.length ? (
            <ul class="rows" aria-label="Filters">
              {query.data.map((f) => (
                <li key={f.id}>
                  <span class="grow">
                    <strong>{f.title}</strong> — {f.keywords.map((k) => k.keyword).join(', ') || 'no keywords'} ({f.context.join(', ')}
                    {f.expires_at && (
                      <>
                        ; ends <RelativeTime iso={f.expires_at} />
                      </>
                    )}
                    )
                  </span>
                  <button type="button" onClick={() => setEditing(f)} aria-label={`Edit filter ${f.title}`}>
                    Edit
                  </button>
                  <button type="button" onClick={() => remove.mutate(f)} aria-label={`Delete filter ${f.title}`}>
                    Delete
                  </button>
                </li>
              ))}
            </ul>
          ) : (
            <p>You have no filters.</p>
          )
        }
      </QueryState>
      {editing && <FilterDialog filter={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </Section>
  );
}

function FilterDialog(props: { filter: Filter | null; onClose: () => void }): JSX.Element {
  const api = useApi();
  const client = useQueryClient();
  const f = props.filter;
  const [title, setTitle] = useState(f?.title ?? '');
  const [contexts, setContexts] = useState<string[]>(f?.context ?? ['home', 'notifications', 'public', 'thread']);
  const [action, setAction] = useState<string>(f?.filter_action ?? 'warn');
  const [expiresIn, setExpiresIn] = useState('');
  const [keywords, setKeywords] = useState(() => (f?.keywords ?? []).map((k) => ({ ...k, destroy: false })).concat([{ id: '', keyword: '', whole_word: true, destroy: false }]));
  const [error, setError] = useState('');
  const save = useMutation({
    mutationFn: () => {
      const body = {
        title,
        context: contexts,
        filter_action: action,
        ...(expiresIn || !f ? { expires_in: expiresIn || null } : {}),
        keywords_attributes: keywords
          .filter((k) => k.id || k.keyword.trim())
          .map((k) => (k.id ? { id: k.id, keyword: k.keyword, whole_word: k.whole_word, _destroy: k.destroy || !k.keyword.trim() } : { keyword: k.keyword.trim(), whole_word: k.whole_word })),
      };
      return api.fetchJson<Filter>(f ? `/api/v2/filters/${f.id}` : '/api/v2/filters', { method: f ? 'PUT' : 'POST', body: JSON.stringify(body) });
    },
    onSuccess: (saved) => {
      client.setQueryData<Filter[]>(KEY, (old) => (f ? old?.map((x) => (x.id === saved.id ? saved : x)) : [...(old ?? []), saved]));
      props.onClose();
    },
    onError: (e) => setError(describeError(e)),
  });
  const setKeyword = (i: number, patch: Partial<(typeof keywords)[number]>): void => {
    const next = keywords.map((k, j) => (j === i ? { ...k, ...patch } : k));
    if (i === next.length - 1 && patch.keyword) next.push({ id: '', keyword: '', whole_word: true, destroy: false });
    setKeywords(next);
  };
  return (
    <Dialog title={f ? 'Edit filter' : 'New filter'} onClose={props.onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setError('');
          save.mutate();
        }}
      >
        <label for="filter-title">Title</label>
        <input id="filter-title" type="text" required value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
        <fieldset>
          <legend>Keywords</legend>
          {keywords.map((k, i) => (
            <div key={k.id || `new-${i}`} class="field-row">
              <div>
                <label for={`kw-${i}`}>Keyword {i + 1}</label>
                <input id={`kw-${i}`} type="text" value={k.keyword} onInput={(e) => setKeyword(i, { keyword: e.currentTarget.value })} />
              </div>
              <label class="check">
                <input type="checkbox" checked={k.whole_word} onChange={(e) => setKeyword(i, { whole_word: e.currentTarget.checked })} />
                Whole word {i + 1}
              </label>
            </div>
          ))}
        </fieldset>
        <fieldset>
          <legend>Where</legend>
          {CONTEXTS.map(([value, label]) => (
            <label class="check" key={value}>
              <input type="checkbox" checked={contexts.includes(value)} onChange={(e) => setContexts(e.currentTarget.checked ? [...contexts, value] : contexts.filter((c) => c !== value))} />
              {label}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>What happens</legend>
          {ACTIONS.map(([value, label]) => (
            <label class="check" key={value}>
              <input type="radio" name="filter-action" checked={action === value} onChange={() => setAction(value)} />
              {label}
            </label>
          ))}
        </fieldset>
        <label for="filter-expiry">{f ? 'Change when it ends' : 'Ends after'}</label>
        <select id="filter-expiry" value={expiresIn} onChange={(e) => setExpiresIn(e.currentTarget.value)}>
          {EXPIRIES.map(([value, label]) => (
            <option key={value} value={value}>
              {f && value === '' ? 'Keep as it is' : label}
            </option>
          ))}
        </select>
        {error && <p role="alert">{error}</p>}
        <div class="actions">
          <button type="submit" class="primary" disabled={save.isPending}>
            Save filter
          </button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
