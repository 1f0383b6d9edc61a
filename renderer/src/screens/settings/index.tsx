import type { JSX } from 'preact';
import { lazy } from 'preact-iso';
import { allows, PERMISSION } from '../admin/data';
import { useCredentials } from './account';
import { SubNav } from '../../components/layout/section';
import { desktopBridge } from './desktop/bridge';
import './settings.css';

const Profile = lazy(() => import('./profile').then((m) => m.ProfileSettings));
const Preferences = lazy(() => import('./preferences').then((m) => m.PreferencesSettings));
const Filters = lazy(() => import('./filters').then((m) => m.FiltersSettings));
const Mutes = lazy(() => import('./relationships').then((m) => m.MutedAccounts));
const Blocks = lazy(() => import('./relationships').then((m) => m.BlockedAccounts));
const DomainBlocks = lazy(() => import('./relationships').then((m) => m.BlockedDomains));
const Apps = lazy(() => import('./apps').then((m) => m.AuthorizedApps));
const Instance = lazy(() => import('./instance').then((m) => m.InstanceSettings));
const Export = lazy(() => import('./export').then((m) => m.ExportSettings));
const Import = lazy(() => import('./import').then((m) => m.ImportSettings));
const Moving = lazy(() => import('./moving').then((m) => m.MovingSettings));
const Desktop = lazy(() => import('./desktop').then((m) => m.DesktopSettings));

const SECTIONS: { id: string; label: string; component: () => JSX.Element }[] = [
  { id: 'profile', label: 'Profile', component: Profile },
  { id: 'preferences', label: 'Preferences', component: Preferences },
  { id: 'filters', label: 'Filters', component: Filters },
  { id: 'mutes', label: 'Muted accounts', component: Mutes },
  { id: 'blocks', label: 'Blocked accounts', component: Blocks },
  { id: 'domain_blocks', label: 'Blocked domains', component: DomainBlocks },
  { id: 'apps', label: 'Authorized apps', component: Apps },
  { id: 'instance', label: 'Instance', component: Instance },
  { id: 'export', label: 'Export', component: Export },
  { id: 'import', label: 'Import', component: Import },
  { id: 'moving', label: 'Moving accounts', component: Moving },
  // The desktop app's own settings: only in its window (the preload's bridge), never in a browser.
  ...(desktopBridge() ? [{ id: 'desktop', label: 'Desktop', component: Desktop }] : []),
];

/**
 * Settings: a sub-navigation of sections (`/settings/<section>`), each its own chunk. The first
 * section, the profile, is shown at `/settings`.
 */
export function Settings(props: { section?: string }): JSX.Element {
  const id = (props.section ?? '').split('/')[0] || 'profile';
  const section = SECTIONS.find((s) => s.id === id);
  const Screen = section?.component;
  const role = useCredentials().data?.role;
  const staff = Object.values(PERMISSION).some((flag) => allows(role?.permissions, flag));
  return (
    <section aria-labelledby="screen-title" class="settings">
      <h1 id="screen-title">Settings{section ? `: ${section.label}` : ''}</h1>
      <SubNav label="Settings sections" base="/settings" current={id} sections={SECTIONS} />
      {staff && (
        <p>
          <a href="/admin">Administration</a>
        </p>
      )}
      <div class="settings-body">{Screen ? <Screen /> : <p>There is no such settings section.</p>}</div>
    </section>
  );
}
