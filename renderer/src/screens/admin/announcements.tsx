import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { RelativeTime } from '../../components/time/RelativeTime';
import { QueryState, Section } from '../../components/layout/section';
import { useAdminChange, useAdminFetch, useAdminList } from './data';

interface AdminAnnouncement {
  id: string;
  text: string;
  published: boolean;
  published_at: string | null;
  starts_at: string | null;
  ends_at: string | null;
  created_at: string;
}

/** Staff > Announcements: write (a draft), edit, publish or unpublish, delete. */
export function Announcements(): JSX.Element {
  const call = useAdminFetch();
  const query = useAdminList<AdminAnnouncement>('announcements', '/api/v1/admin/announcements');
  const [editing, setEditing] = useState<AdminAnnouncement | null>(null);
  const [text, setText] = useState('');
  const save = useAdminChange<AdminAnnouncement, { id: string | null; text: string }>(
    'announcements',
    (v) => call(v.id ? `/api/v1/admin/announcements/${v.id}` : '/api/v1/admin/announcements', v.id ? 'PUT' : 'POST', { text: v.text }),
    (v) => (v.id ? 'Saving the announcement' : 'Creating the announcement'),
    (list, v) => (v.id ? list.map((a) => (a.id === v.id ? { ...a, text: v.text } : a)) : list),
  );
  const act = useAdminChange<AdminAnnouncement, { a: AdminAnnouncement; what: 'publish' | 'unpublish' | 'delete' }>(
    'announcements',
    ({ a, what }) => (what === 'delete' ? call(`/api/v1/admin/announcements/${a.id}`, 'DELETE') : call(`/api/v1/admin/announcements/${a.id}/${what}`, 'POST')),
    ({ what }) => `${what[0]?.toUpperCase()}${what.slice(1)} the announcement`,
    (list, { a, what }) => (what === 'delete' ? list.filter((x) => x.id !== a.id) : list.map((x) => (x.id === a.id ? { ...x, published: what === 'publish' } : x))),
  );
  const start = (a: AdminAnnouncement | null): void => {
    setEditing(a);
    setText(a?.text ?? '');
  };
  return (
    <Section title="Announcements">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!text.trim()) return;
          save.mutate({ id: editing?.id ?? null, text: text.trim() }, { onSuccess: () => start(null) });
        }}
      >
        <label for="announcement-text">{editing ? 'Edit the announcement' : 'New announcement'}</label>
        <textarea id="announcement-text" rows={3} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        <div class="actions">
          <button type="submit" class="primary" disabled={save.isPending}>
            {editing ? 'Save announcement' : 'Create announcement'}
          </button>
          {editing && (
            <button type="button" onClick={() => start(null)}>
              Cancel editing
            </button>
          )}
        </div>
      </form>
      <QueryState query={query} label="announcements">
        {() =>
          query.data?.length ? (
            <ul class="rows" aria-label="Announcements">
              {query.data.map((a) => {
                const short = a.text.length > 40 ? `${a.text.slice(0, 40)}…` : a.text;
                return (
                  <li key={a.id}>
                    <span class="grow">
                      {a.text}{' '}
                      <span class="hint">
                        {a.published ? 'published' : 'draft'} · <RelativeTime iso={a.created_at} />
                      </span>
                    </span>
                    <button type="button" aria-label={`Edit “${short}”`} onClick={() => start(a)}>
                      Edit
                    </button>
                    <button type="button" aria-label={`${a.published ? 'Unpublish' : 'Publish'} “${short}”`} onClick={() => act.mutate({ a, what: a.published ? 'unpublish' : 'publish' })}>
                      {a.published ? 'Unpublish' : 'Publish'}
                    </button>
                    <button type="button" aria-label={`Delete “${short}”`} onClick={() => act.mutate({ a, what: 'delete' })}>
                      Delete
                    </button>
                  </li>
                );
              })}
            </ul>
          ) : (
            <p>No announcements.</p>
          )
        }
      </QueryState>
    </Section>
  );
}
