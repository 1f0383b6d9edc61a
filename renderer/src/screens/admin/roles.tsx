import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { useApi } from '../../instance/client';
import { QueryState, Section } from '../../components/layout/section';
import { PERMISSION, useAdminChange, useAdminFetch, useAdminList } from './data';

interface Role {
  id: string;
  name: string;
  color: string;
  permissions: string;
  highlighted: boolean;
}

const FLAGS: [keyof typeof PERMISSION, string][] = [
  ['administrator', 'Administrator (every permission)'],
  ['manageReports', 'Manage reports'],
  ['manageUsers', 'Manage users'],
  ['manageFederation', 'Manage federation'],
  ['manageSettings', 'Manage settings'],
  ['manageRules', 'Manage rules'],
  ['manageAnnouncements', 'Manage announcements'],
  ['manageCustomEmojis', 'Manage custom emojis'],
  ['manageWebhooks', 'Manage webhooks'],
  ['manageRoles', 'Manage roles'],
];

/** Staff > Roles: the roles, a form to create one with its permissions, and giving a role to an account. */
export function Roles(): JSX.Element {
  const call = useAdminFetch();
  const query = useAdminList<Role>('roles', '/api/v1/admin/roles');
  const [name, setName] = useState('');
  const [flags, setFlags] = useState<number>(0);
  const [highlighted, setHighlighted] = useState(false);
  const create = useAdminChange<Role, void>('roles', () => call('/api/v1/admin/roles', 'POST', { name: name.trim(), permissions: flags, highlighted }), () => `Creating the role ${name}`);
  const remove = useAdminChange<Role, Role>('roles', (r) => call(`/api/v1/admin/roles/${r.id}`, 'DELETE'), (r) => `Deleting the role ${r.name}`, (list, r) => list.filter((x) => x.id !== r.id));
  return (
    <>
      <Section title="Roles">
        <QueryState query={query} label="roles">
          {() => (
            <ul class="rows" aria-label="Roles">
              {(query.data ?? []).map((r) => (
                <li key={r.id}>
                  <span class="grow">
                    <strong>{r.name || 'Everyone'}</strong> <span class="hint">{FLAGS.filter(([f]) => (Number(r.permissions) & PERMISSION[f]) !== 0).map(([, l]) => l).join(', ') || 'no staff permissions'}</span>
                  </span>
                  {Number(r.id) > 3 && (
                    <button type="button" aria-label={`Delete the role ${r.name}`} onClick={() => remove.mutate(r)}>
                      Delete
                    </button>
                  )}
                </li>
              ))}
            </ul>
          )}
        </QueryState>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (name.trim())
              create.mutate(undefined, {
                onSuccess: () => {
                  setName('');
                  setFlags(0);
                },
              });
          }}
        >
          <h3>New role</h3>
          <label for="role-name">Role name</label>
          <input id="role-name" type="text" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <fieldset>
            <legend>Permissions</legend>
            {FLAGS.map(([flag, label]) => (
              <label class="check" key={flag}>
                <input type="checkbox" checked={(flags & PERMISSION[flag]) !== 0} onChange={(e) => setFlags(e.currentTarget.checked ? flags | PERMISSION[flag] : flags & ~PERMISSION[flag])} />
                {label}
              </label>
            ))}
          </fieldset>
          <label class="check">
            <input type="checkbox" checked={highlighted} onChange={(e) => setHighlighted(e.currentTarget.checked)} />
            Show the role on profiles
          </label>
          <div class="actions">
            <button type="submit" class="primary" disabled={create.isPending}>
              Create role
            </button>
          </div>
        </form>
      </Section>
      <AssignRole roles={query.data ?? []} />
    </>
  );
}

function AssignRole(props: { roles: Role[] }): JSX.Element {
  const api = useApi();
  const call = useAdminFetch();
  const [acct, setAcct] = useState('');
  const [roleId, setRoleId] = useState('');
  const [done, setDone] = useState('');
  const assign = useAdminChange<Role, { acct: string; roleId: string }>(
    'accounts',
    async (v) => {
      const account = await api.fetchJson<{ id: string }>(`/api/v1/accounts/lookup?acct=${encodeURIComponent(v.acct.replace(/^@/, ''))}`);
      return call(`/api/v1/admin/accounts/${account.id}/role`, 'POST', { role_id: v.roleId });
    },
    (v) => `Giving @${v.acct.replace(/^@/, '')} a role`,
  );
  const chosen = roleId || props.roles[0]?.id || '';
  return (
    <Section title="Give a role">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setDone('');
          const v = { acct: acct.trim(), roleId: chosen };
          assign.mutate(v, { onSuccess: () => setDone(`@${v.acct.replace(/^@/, '')} now has the role ${props.roles.find((r) => r.id === v.roleId)?.name ?? ''}.`) });
        }}
      >
        <label for="assign-acct">Account (username)</label>
        <input id="assign-acct" type="text" required value={acct} onInput={(e) => setAcct(e.currentTarget.value)} />
        <label for="assign-role">Role</label>
        <select id="assign-role" value={chosen} onChange={(e) => setRoleId(e.currentTarget.value)}>
          {props.roles.map((r) => (
            <option key={r.id} value={r.id}>
              {r.name || 'Everyone'}
            </option>
          ))}
        </select>
        <div class="actions">
          <button type="submit" disabled={assign.isPending}>
            Give role
          </button>
        </div>
        {done && <p role="status">{done}</p>}
      </form>
    </Section>
  );
}
