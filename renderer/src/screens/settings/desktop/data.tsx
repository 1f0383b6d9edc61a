import { useQueryClient } from '@tanstack/preact-query';
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { DataProgress } from '../../../../../electron/contract/ipc';
import { Dialog } from '../../../components/dialog/Dialog';
import { Section } from '../../../components/layout/section';
import { desktopBridge, desktopError, invokeOutcome, type DesktopInfo } from './bridge';

/** The data module's stages, in words. */
const STAGES: Record<string, string> = {
  database: 'Copying the database',
  files: 'Writing the archive',
  reading: 'Reading the backup',
  checking: 'Checking the backup',
  replacing: 'Replacing the data',
  done: 'Finishing',
};

type Result = { ok: boolean; text: string } | null;

/** Backup and restore, with a progress bar fed by the main process's `progress` events. */
export function DataSection(): JSX.Element {
  const client = useQueryClient();
  const [progress, setProgress] = useState<DataProgress | null>(null);
  const [running, setRunning] = useState<DataProgress['operation'] | null>(null);
  const [result, setResult] = useState<Result>(null);
  const [confirming, setConfirming] = useState(false);

  useEffect(() => desktopBridge()?.on('progress', (update) => setProgress(update)), []);

  const run = async (operation: DataProgress['operation']): Promise<void> => {
    setRunning(operation);
    setProgress(null);
    setResult(null);
    try {
      const path = await invokeOutcome(operation === 'backup' ? 'backup:create' : 'backup:restore');
      if (path !== null) {
        setResult({ ok: true, text: operation === 'backup' ? `The backup is saved in ${path}.` : `Hearth now runs on the data of ${path}.` });
        if (operation === 'restore') await client.invalidateQueries();
      }
    } catch (error) {
      setResult({ ok: false, text: desktopError(error) });
    } finally {
      setRunning(null);
      setProgress(null);
    }
  };

  const percent = progress ? Math.round(progress.fraction * 100) : 0;
  const label = running === 'restore' ? 'Restore progress' : 'Backup progress';
  return (
    <Section title="Backup and restore">
      <p>
        A backup is one file with everything of this instance: its database, media and certificates. Restoring one replaces everything here with it, which is also how
        you move Hearth to another computer.
      </p>
      <div class="actions">
        <button type="button" onClick={() => void run('backup')} disabled={running !== null}>
          Back up…
        </button>
        <button type="button" onClick={() => setConfirming(true)} disabled={running !== null}>
          Restore from a backup…
        </button>
      </div>
      {running && (
        <div class="desktop-progress">
          <progress aria-label={label} max={1} value={progress?.fraction ?? 0} />
          <p role="status">{progress ? `${STAGES[progress.stage] ?? progress.stage}: ${percent}%` : running === 'backup' ? 'Preparing the backup…' : 'Preparing the restore…'}</p>
        </div>
      )}
      {result && (
        <p class={result.ok ? 'desktop-ok' : 'desktop-error'} role={result.ok ? 'status' : 'alert'}>
          {result.text}
        </p>
      )}
      {confirming && (
        <Dialog title="Restore from a backup?" onClose={() => setConfirming(false)}>
          <p>Everything on this instance is replaced by the backup you choose next: posts, follows and media made since that backup are lost.</p>
          <div class="actions">
            <button
              type="button"
              class="primary"
              onClick={() => {
                setConfirming(false);
                void run('restore');
              }}
            >
              Choose a backup and restore
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </Dialog>
      )}
    </Section>
  );
}

const PLATFORMS: Record<string, string> = { darwin: 'macOS', win32: 'Windows', linux: 'Linux' };

/** The version, and the server's log one click away. */
export function AboutSection(props: { info: DesktopInfo }): JSX.Element {
  const [error, setError] = useState<string | null>(null);
  const openLog = async (): Promise<void> => {
    setError(null);
    try {
      await invokeOutcome('log:open');
    } catch (e) {
      setError(desktopError(e));
    }
  };
  return (
    <Section title="About Hearth">
      <p>
        Hearth {props.info.version} on {PLATFORMS[props.info.platform] ?? props.info.platform}. The window shows <code>{props.info.localUrl}</code>.
      </p>
      <div class="actions">
        <button type="button" onClick={() => void openLog()}>
          Open the log
        </button>
      </div>
      {error && (
        <p class="desktop-error" role="alert">
          {error}
        </p>
      )}
    </Section>
  );
}
