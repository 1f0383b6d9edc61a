import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { useApi } from '../../instance/client';
import { describeError, statusOf } from '../../instance/errors';
import { toast } from '../../components/layout/toasts';
import { InstanceEmojis } from './emojis';
import { QueryState, Section } from '../../components/layout/section';

/** The owner's view of the instance (`/api/hearth/instance`). */
interface OwnerSettings {
  title: string;
  short_description: string;
  description: string;
  registrations: 'open' | 'approval' | 'closed';
  rules: { id: string; text: string; hint: string }[];
}

const KEY = ['settings', 'instance'];

/** Settings > Instance (the owner's): name, descriptions, sign-ups, rules and custom emojis. */
export function InstanceSettings(): JSX.Element {
  const api = useApi();
  const query = useQuery({ queryKey: KEY, queryFn: () => api.fetchJson<OwnerSettings>('/api/hearth/instance'), retry: false });
  if (query.isError && statusOf(query.error) === 403) return <p>Only the owner of this instance can change its settings.</p>;
  return (
    <QueryState query={query} label="the instance’s settings">
      {() =>
        query.data && (
          <>
            <About settings={query.data} />
            <Rules rules={query.data.rules} />
            <InstanceEmojis />
          </>
        )
      }
    </QueryState>
  );
}

function About(props: { settings: OwnerSettings }): JSX.Element {
  const api = useApi();
  const client = useQueryClient();
  const [title, setTitle] = useState(props.settings.title);
  const [short, setShort] = useState(props.settings.short_description);
  const [registrations, setRegistrations] = useState(props.settings.registrations);
  const save = useMutation({
    mutationFn: () => api.fetchJson<OwnerSettings>('/api/hearth/instance', { method: 'PATCH', body: JSON.stringify({ title, short_description: short, registrations }) }),
    onSuccess: (saved) => {
      client.setQueryData(KEY, saved);
      toast('Instance settings saved.', { kind: 'info' });
    },
    onError: (error) => toast(`The instance settings were not saved: ${describeError(error)}`, { retry: () => save.mutate() }),
  });
  return (
    <Section title="About this instance">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <label for="instance-title">Instance name</label>
        <input id="instance-title" type="text" required value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
        <label for="instance-description">Description</label>
        <textarea id="instance-description" rows={3} value={short} onInput={(e) => setShort(e.currentTarget.value)} />
        <label for="instance-registrations">Who can sign up</label>
        <select id="instance-registrations" value={registrations} onChange={(e) => setRegistrations(e.currentTarget.value as OwnerSettings['registrations'])}>
          <option value="open">Anyone</option>
          <option value="approval">Anyone, after approval</option>
          <option value="closed">Nobody</option>
        </select>
        <div class="actions">
          <button type="submit" class="primary" disabled={save.isPending}>
            Save instance settings
          </button>
        </div>
      </form>
    </Section>
  );
}

function Rules(props: { rules: OwnerSettings['rules'] }): JSX.Element {
  const api = useApi();
  const client = useQueryClient();
  const [text, setText] = useState('');
  const refresh = () => client.invalidateQueries({ queryKey: KEY });
  const add = useMutation({
    mutationFn: (t: string) => api.fetchJson('/api/hearth/instance/rules', { method: 'POST', body: JSON.stringify({ text: t }) }),
    onSuccess: () => {
      setText('');
      void refresh();
    },
    onError: (error, t) => toast(`The rule was not added: ${describeError(error)}`, { retry: () => add.mutate(t) }),
  });
  const remove = useMutation({
    mutationFn: (id: string) => api.fetchJson(`/api/hearth/instance/rules/${id}`, { method: 'DELETE' }),
    onMutate: async (id) => {
      await client.cancelQueries({ queryKey: KEY });
      const before = client.getQueryData<OwnerSettings>(KEY);
      client.setQueryData<OwnerSettings>(KEY, (old) => old && { ...old, rules: old.rules.filter((r) => r.id !== id) });
      return { before };
    },
    onError: (error, id, context) => {
      client.setQueryData(KEY, context?.before);
      toast(`The rule was not removed: ${describeError(error)}`, { retry: () => remove.mutate(id) });
    },
  });
  return (
    <Section title="Rules">
      {props.rules.length ? (
        <ol class="rows" aria-label="Rules">
          {props.rules.map((r) => (
            <li key={r.id}>
              <span class="grow">{r.text}</span>
              <button type="button" aria-label={`Remove the rule “${r.text}”`} onClick={() => remove.mutate(r.id)}>
                Remove
              </button>
            </li>
          ))}
        </ol>
      ) : (
        <p>No rules yet.</p>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (text.trim()) add.mutate(text.trim());
        }}
      >
        <label for="rule-text">New rule</label>
        <input id="rule-text" type="text" maxLength={300} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        <div class="actions">
          <button type="submit" disabled={add.isPending}>
            Add rule
          </button>
        </div>
      </form>
    </Section>
  );
}
