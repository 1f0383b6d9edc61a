import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { QueryState, Section } from '../../components/layout/section';
import { useAdminChange, useAdminFetch, useAdminList } from './data';

interface Webhook {
  id: string;
  url: string;
  events: string[];
  secret: string;
  enabled: boolean;
}

const EVENTS = ['account.approved', 'account.created', 'account.updated', 'report.created', 'report.updated', 'status.created', 'status.updated'];

/** Staff > Webhooks: create with events, enable or disable, rotate the secret, delete. */
export function Webhooks(): JSX.Element {
  const call = useAdminFetch();
  const query = useAdminList<Webhook>('webhooks', '/api/v1/admin/webhooks');
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const create = useAdminChange<Webhook, void>('webhooks', () => call('/api/v1/admin/webhooks', 'POST', { url: url.trim(), events }), () => 'Creating the webhook');
  const act = useAdminChange<Webhook, { w: Webhook; what: 'enable' | 'disable' | 'rotate_secret' | 'delete' }>(
    'webhooks',
    ({ w, what }) => (what === 'delete' ? call(`/api/v1/admin/webhooks/${w.id}`, 'DELETE') : call(`/api/v1/admin/webhooks/${w.id}/${what}`, 'POST')),
    ({ w, what }) => `${what.replace('_', ' ')} ${w.url}`,
    (list, { w, what }) => (what === 'delete' ? list.filter((x) => x.id !== w.id) : what === 'rotate_secret' ? list : list.map((x) => (x.id === w.id ? { ...x, enabled: what === 'enable' } : x))),
  );
  return (
    <Section title="Webhooks">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate(undefined, {
            onSuccess: () => {
              setUrl('');
              setEvents([]);
            },
          });
        }}
      >
        <label for="webhook-url">Endpoint URL</label>
        <input id="webhook-url" type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        <fieldset>
          <legend>Events</legend>
          {EVENTS.map((ev) => (
            <label class="check" key={ev}>
              <input type="checkbox" checked={events.includes(ev)} onChange={(e) => setEvents(e.currentTarget.checked ? [...events, ev] : events.filter((x) => x !== ev))} />
              {ev}
            </label>
          ))}
        </fieldset>
        <div class="actions">
          <button type="submit" class="primary" disabled={create.isPending || events.length === 0}>
            Create webhook
          </button>
        </div>
      </form>
      <QueryState query={query} label="webhooks">
        {() =>
          query.data?.length ? (
            <ul class="rows" aria-label="Webhooks">
              {query.data.map((w) => (
                <li key={w.id}>
                  <span class="grow">
                    <strong>{w.url}</strong> <span class="hint">{w.enabled ? 'enabled' : 'disabled'} · {w.events.join(', ')}</span>
                    <br />
                    <span class="hint">
                      Secret: <code>{w.secret}</code>
                    </span>
                  </span>
                  <button type="button" aria-pressed={w.enabled} aria-label={`Enabled: ${w.url}`} onClick={() => act.mutate({ w, what: w.enabled ? 'disable' : 'enable' })}>
                    {w.enabled ? 'Enabled' : 'Disabled'}
                  </button>
                  <button type="button" aria-label={`Rotate the secret of ${w.url}`} onClick={() => act.mutate({ w, what: 'rotate_secret' })}>
                    Rotate secret
                  </button>
                  <button type="button" aria-label={`Delete ${w.url}`} onClick={() => act.mutate({ w, what: 'delete' })}>
                    Delete
                  </button>
                </li>
              ))}
            </ul>
          ) : (
            <p>No webhooks.</p>
          )
        }
      </QueryState>
    </Section>
  );
}
