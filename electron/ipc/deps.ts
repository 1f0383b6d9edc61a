import type { DesktopInfo, DesktopSettings, EventChannel, EventChannels } from '../contract/ipc.js';
import type { SettingsStore } from '../settings/store.js';
import type { CommandRunner, TrustEnvironment } from './certificate.js';

/*
 * What the IPC handlers need from Electron, the server host and the data module: small
 * interfaces the main process's glue fills with the real things (dialog, shell, app, the host,
 * backup and restore), and tests with trivial stand-ins for Electron's part.
 */

/** What the host knows; the handlers add the certificate fields of `DesktopInfo` themselves. */
export type HostInfo = Omit<DesktopInfo, 'canTrustCertificate' | 'certificateHelp'>;

/** Progress as the data module reports it (`electron/data/progress.ts`). */
export interface ProgressUpdate {
  fraction: number;
  stage: string;
}

export interface IpcDeps {
  /** The settings (electron-store through `SettingsStore`). */
  settings: SettingsStore;
  /** The instance's local origin the window shows (`http://127.0.0.1:PORT`), null while none runs. */
  appOrigin(): string | null;
  /** Version, platform, data directory in use, addresses and the CA file. */
  hostInfo(): HostInfo | Promise<HostInfo>;
  /** Where the certificate tools are (`{ platform: process.platform, homeDir: os.homedir(), systemRoot: process.env.SystemRoot }`). */
  trustEnvironment: TrustEnvironment;
  /** Runs the certificate tool; defaults to execFile (tests pass their own). */
  runCommand?: CommandRunner;
  /** `dialog.showOpenDialog(win, { properties: ['openDirectory', 'createDirectory'] })`: the folder, or null when cancelled. */
  chooseFolder(): Promise<string | null>;
  /** `dialog.showSaveDialog` for a backup archive (suggested file name given): the path, or null. */
  chooseBackupTarget(suggestedName: string): Promise<string | null>;
  /** `dialog.showOpenDialog` for a backup archive: the path, or null. */
  chooseBackupSource(): Promise<string | null>;
  /** Writes a backup of the running instance's data to `target` (electron/data), reporting progress. */
  backup(target: string, onProgress: (update: ProgressUpdate) => void): Promise<void>;
  /**
   * Checks the archive, stops the server, replaces the data with it and starts the server again
   * (electron/data and the host), reporting progress. Throws with a sentence when refused.
   */
  restore(source: string, onProgress: (update: ProgressUpdate) => void): Promise<void>;
  /** Restarts the server (on the data directory and port the settings now hold). */
  restartServer(): Promise<void>;
  /** `shell.openPath(logFile)` (reject when it answers an error). */
  openLog(): Promise<void>;
  /** `app.setLoginItemSettings({ openAtLogin: enabled })`. */
  setLoginItem(enabled: boolean): void | Promise<void>;
  /** Sends an event to the window (`win.webContents.send(wireName(channel), payload)`). */
  emit<C extends EventChannel>(channel: C, payload: EventChannels[C]): void;
  /** Told after the settings changed (tray behaviour, notifier), with the settings before and after. */
  settingsChanged?(after: DesktopSettings, before: DesktopSettings): void;
  /** The date for the suggested backup file name (tests fix it). */
  now?(): Date;
}
