import { useMutation, useQuery } from '@tanstack/preact-query';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { toast } from '../../components/layout/toasts';
import { useConfirm } from '../../components/dialog/confirm';
import { QueryState, Section } from '../../components/layout/section';

/**
 * Settings > Moving accounts, on the aliases and move API Hearth has (Pleroma's): "Moving from
 * another account" adds that account as an alias (so it may move here); "Move to another
 * account" moves this one there (the target must list this account as an alias), with the password.
 */
export function MovingSettings(): JSX.Element {
  return (
    <>
      <Aliases />
      <MoveAway />
    </>
  );
}

function Aliases(): JSX.Element {
  const api = useApi();
  const query = useQuery({ queryKey: ['settings', 'aliases'], queryFn: () => api.fetchJson<{ aliases: string[] }>('/api/pleroma/aliases') });
  const [handle, setHandle] = useState('');
  const change = useMutation({
    mutationFn: (v: { alias: string; add: boolean }) => api.fetchJson('/api/pleroma/aliases', { method: v.add ? 'PUT' : 'DELETE', body: JSON.stringify({ alias: v.alias }) }),
    onSuccess: (_r, v) => {
      if (v.add) setHandle('');
      void query.refetch();
    },
    onError: (error, v) => toast(`${v.add ? 'Adding' : 'Removing'} the alias failed: ${describeError(error)}`, { retry: () => change.mutate(v) }),
  });
  return (
    <Section title="Moving from another account">
      <p class="hint">Name the account you are moving from (user@server). It can then move its followers here.</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (handle.trim()) change.mutate({ alias: handle.trim().replace(/^@/, ''), add: true });
        }}
      >
        <label for="alias-handle">Old account’s address</label>
        <input id="alias-handle" type="text" required value={handle} onInput={(e) => setHandle(e.currentTarget.value)} />
        <div class="actions">
          <button type="submit" disabled={change.isPending}>
            Add alias
          </button>
        </div>
      </form>
      <QueryState query={query} label="aliases">
        {() =>
          query.data?.aliases.length ? (
            <ul class="rows" aria-label="Aliases">
              {query.data.aliases.map((a) => (
                <li key={a}>
                  <span class="grow">{a}</span>
                  <button type="button" aria-label={`Remove alias ${a}`} onClick={() => change.mutate({ alias: a, add: false })}>
                    Remove
                  </button>
                </li>
              ))}
            </ul>
          ) : (
            <p>No aliases.</p>
          )
        }
      </QueryState>
    </Section>
  );
}

function MoveAway(): JSX.Element {
  const api = useApi();
  const [target, setTarget] = useState('');
  const [password, setPassword] = useState('');
  const [confirmation, ask] = useConfirm();
  const move = useMutation({
    mutationFn: () => api.fetchJson('/api/pleroma/move_account', { method: 'POST', body: JSON.stringify({ target_account: target.trim().replace(/^@/, ''), password }) }),
    onSuccess: () => setPassword(''),
  });
  return (
    <Section title="Move to another account">
      <p class="hint">
        Your followers are moved to the new account and this one shows where you went. First add this account as an alias on the new one.
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          ask('Move this account?', `Your followers will follow ${target.trim()} instead, and this account will show that you moved.`, 'Move', () => move.mutate());
        }}
      >
        <label for="move-target">New account’s address</label>
        <input id="move-target" type="text" required value={target} onInput={(e) => setTarget(e.currentTarget.value)} />
        <label for="move-password">Your password</label>
        <input id="move-password" type="password" required autoComplete="current-password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        {move.isError && <p role="alert">{describeError(move.error)}</p>}
        {move.isSuccess && <p role="status">This account has moved to {target.trim()}.</p>}
        <div class="actions">
          <button type="submit" class="primary" disabled={move.isPending}>
            Move account
          </button>
        </div>
      </form>
      {confirmation}
    </Section>
  );
}
