import { useQueryClient } from '@tanstack/preact-query';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { NotificationKinds } from '../../../../../electron/contract/ipc';
import { Section } from '../../../components/layout/section';
import { toast } from '../../../components/layout/toasts';
import { desktopError, INFO_KEY, invokeOutcome, SETTINGS_KEY, useChangeSettings, type DesktopInfo, type DesktopSettings } from './bridge';

/** Startup and the window: each switch saved at once. */
export function StartupSection(props: { settings: DesktopSettings }): JSX.Element {
  const change = useChangeSettings();
  return (
    <Section title="Startup and window">
      <label class="check">
        <input type="checkbox" checked={props.settings.startAtLogin} onChange={(e) => change.mutate({ startAtLogin: e.currentTarget.checked })} />
        Open Hearth when I log in to this computer
      </label>
      <label class="check">
        <input type="checkbox" checked={props.settings.closeToTray} onChange={(e) => change.mutate({ closeToTray: e.currentTarget.checked })} />
        Keep Hearth running in the tray when I close its window
      </label>
      <p class="hint">While Hearth runs, your instance stays reachable and keeps receiving posts.</p>
    </Section>
  );
}

const KINDS: [keyof NotificationKinds, string][] = [
  ['mention', 'Mentions'],
  ['direct', 'Direct messages'],
  ['follow', 'New followers'],
  ['follow_request', 'Follow requests'],
];

/** Which notifications the desktop shows, kind by kind. */
export function NotificationsSection(props: { settings: DesktopSettings }): JSX.Element {
  const change = useChangeSettings();
  return (
    <Section title="Desktop notifications">
      <fieldset>
        <legend>Show a notification for</legend>
        {KINDS.map(([kind, label]) => (
          <label class="check" key={kind}>
            <input type="checkbox" checked={props.settings.notifications[kind]} onChange={(e) => change.mutate({ notifications: { [kind]: e.currentTarget.checked } })} />
            {label}
          </label>
        ))}
      </fieldset>
    </Section>
  );
}

/** The port as typed: null for "any free port", a number, or the sentence saying what is wrong. */
function parsePort(text: string): { port: number | null } | { error: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { port: null };
  if (!/^\d+$/.test(trimmed)) return { error: 'The port must be a whole number from 1024 to 65535, or empty for the port Hearth used last.' };
  const port = Number(trimmed);
  if (port < 1024 || port > 65535) return { error: 'The port must be from 1024 to 65535.' };
  return { port };
}

/** The instance's port and data directory. */
export function InstanceSection(props: { settings: DesktopSettings; info: DesktopInfo }): JSX.Element {
  const change = useChangeSettings();
  const client = useQueryClient();
  const [port, setPort] = useState(props.settings.port === null ? '' : String(props.settings.port));
  const [portError, setPortError] = useState<string | null>(null);
  const [dirError, setDirError] = useState<string | null>(null);
  const [choosing, setChoosing] = useState(false);

  const savePort = (): void => {
    const parsed = parsePort(port);
    if ('error' in parsed) return setPortError(parsed.error);
    setPortError(null);
    change.mutate(
      { port: parsed.port },
      {
        onSuccess: () => toast('The port is saved. Hearth uses it the next time it starts.', { kind: 'info' }),
        onError: (error) => setPortError(desktopError(error)),
      },
    );
  };

  const chooseDir = async (): Promise<void> => {
    setChoosing(true);
    setDirError(null);
    try {
      const dir = await invokeOutcome('data-dir:choose');
      if (dir !== null) {
        toast(`Hearth now keeps its data in ${dir}.`, { kind: 'info' });
        await Promise.all([client.invalidateQueries({ queryKey: INFO_KEY }), client.invalidateQueries({ queryKey: SETTINGS_KEY })]);
      }
    } catch (error) {
      setDirError(desktopError(error));
    } finally {
      setChoosing(false);
    }
  };

  return (
    <Section title="This instance on this computer">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          savePort();
        }}
      >
        <label for="desktop-port">Port</label>
        <input
          id="desktop-port"
          type="text"
          inputMode="numeric"
          autoComplete="off"
          value={port}
          aria-describedby={portError ? 'desktop-port-hint desktop-port-error' : 'desktop-port-hint'}
          aria-invalid={portError ? 'true' : undefined}
          onInput={(e) => setPort(e.currentTarget.value)}
        />
        <p class="hint" id="desktop-port-hint">
          Leave it empty to keep the port Hearth used last (another free one when that one is taken). A fixed port is always the same, or Hearth does not start.
        </p>
        {portError && (
          <p class="desktop-error" id="desktop-port-error" role="alert">
            {portError}
          </p>
        )}
        <div class="actions">
          <button type="submit" disabled={change.isPending}>
            Save port
          </button>
        </div>
      </form>
      <h3 class="desktop-subheading">Data folder</h3>
      <p class="desktop-path">
        <code>{props.info.dataDir}</code>
      </p>
      <p class="hint">
        Hearth restarts on the folder you choose. An empty folder starts a new, empty instance: to take this one along, make a backup first and restore it after the
        move.
      </p>
      {dirError && (
        <p class="desktop-error" role="alert">
          {dirError}
        </p>
      )}
      <div class="actions">
        <button type="button" onClick={() => void chooseDir()} disabled={choosing}>
          {choosing ? 'Choosing…' : 'Choose another folder…'}
        </button>
      </div>
    </Section>
  );
}
