import type { JSX } from 'preact';
import { lazy } from 'preact-iso';
import { useCredentials } from '../settings/account';
import { QueryState, SubNav } from '../../components/layout/section';
import { allows, PERMISSION } from './data';
import '../settings/settings.css';

const Approvals = lazy(() => import('./accounts').then((m) => m.Approvals));
const Accounts = lazy(() => import('./accounts').then((m) => m.Accounts));
const Reports = lazy(() => import('./reports').then((m) => m.Reports));
const Domains = lazy(() => import('./domains').then((m) => m.Domains));
const Roles = lazy(() => import('./roles').then((m) => m.Roles));
const Announcements = lazy(() => import('./announcements').then((m) => m.Announcements));
const Webhooks = lazy(() => import('./webhooks').then((m) => m.Webhooks));

const SECTIONS: { id: string; label: string; permission: number; component: () => JSX.Element }[] = [
  { id: 'approvals', label: 'Sign-up approvals', permission: PERMISSION.manageUsers, component: Approvals },
  { id: 'accounts', label: 'Accounts', permission: PERMISSION.manageUsers, component: Accounts },
  { id: 'reports', label: 'Reports', permission: PERMISSION.manageReports, component: Reports },
  { id: 'domains', label: 'Domains', permission: PERMISSION.manageFederation, component: Domains },
  { id: 'roles', label: 'Roles', permission: PERMISSION.manageRoles, component: Roles },
  { id: 'announcements', label: 'Announcements', permission: PERMISSION.manageAnnouncements, component: Announcements },
  { id: 'webhooks', label: 'Webhooks', permission: PERMISSION.manageWebhooks, component: Webhooks },
];

/**
 * Administration: the staff screens on the admin API, only those the account's role allows
 * (`role.permissions`), with a sub-navigation (`/admin/<section>`).
 */
export function Admin(props: { section?: string }): JSX.Element {
  const me = useCredentials();
  const id = (props.section ?? '').split('/')[0] ?? '';
  return (
    <section aria-labelledby="screen-title" class="settings">
      <h1 id="screen-title">Administration</h1>
      <QueryState query={me} label="your role">
        {() => {
          const permissions = me.data?.role?.permissions;
          const mine = SECTIONS.filter((s) => allows(permissions, s.permission));
          if (mine.length === 0) return <p>Your role does not include any staff tasks.</p>;
          const section = mine.find((s) => s.id === id) ?? (id ? undefined : mine[0]);
          const Screen = section?.component;
          return (
            <>
              <SubNav label="Administration sections" base="/admin" current={section?.id ?? id} sections={mine} />
              {Screen ? <Screen /> : <p>There is no such section, or your role does not allow it.</p>}
            </>
          );
        }}
      </QueryState>
    </section>
  );
}
