import Conf from 'conf';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventChannel, EventChannels } from '../../electron/contract/ipc.js';
import type { CommandRunner } from '../../electron/ipc/certificate.js';
import type { HostInfo, IpcDeps, ProgressUpdate } from '../../electron/ipc/deps.js';
import { createIpcHandlers, type IpcHandlers } from '../../electron/ipc/handlers.js';
import type { Sender } from '../../electron/ipc/sender.js';
import type { StoredSettings } from '../../electron/settings/schema.js';
import { SETTINGS_FILE_NAME, SettingsStore, settingsStoreOptions } from '../../electron/settings/store.js';

/*
 * The rig of the IPC handler tests: the real settings store (conf in a temp directory) and the
 * handlers built on it, with the parts Electron would provide (dialogs, login item, shell, the
 * window's event sink) as trivial recorders whose answers a test sets.
 */

export const APP_ORIGIN = 'http://127.0.0.1:7470';
export const APP: Sender = { frameUrl: `${APP_ORIGIN}/settings/desktop`, isMainFrame: true };

/** Senders every handler must refuse. */
export const STRANGERS: [string, Sender][] = [
  ['another site', { frameUrl: 'https://evil.example/settings/desktop', isMainFrame: true }],
  ['the same host on another port', { frameUrl: 'http://127.0.0.1:7471/', isMainFrame: true }],
  ['localhost instead of 127.0.0.1', { frameUrl: 'http://localhost:7470/', isMainFrame: true }],
  ['a file: page', { frameUrl: 'file:///home/kim/page.html', isMainFrame: true }],
  ['about:blank', { frameUrl: 'about:blank', isMainFrame: true }],
  ['a data: document', { frameUrl: 'data:text/html,<p>hi</p>', isMainFrame: true }],
  ['a blob: document of the app', { frameUrl: `blob:${APP_ORIGIN}/0b7e0a5c-3c2f-4f0e-9d7e-2f1d8a0b1c2d`, isMainFrame: true }],
  ['a subframe of the app’s own origin', { frameUrl: `${APP_ORIGIN}/`, isMainFrame: false }],
  ['a frame that is gone', { frameUrl: '', isMainFrame: false }],
];

export interface Rig {
  dir: string;
  settings: SettingsStore;
  handlers: IpcHandlers;
  /** What the stand-ins were asked, in order. */
  calls: string[];
  events: { channel: EventChannel; payload: unknown }[];
  commands: { file: string; args: string[] }[];
  /** Answers the stand-ins give (tests change them). */
  answers: {
    appOrigin: string | null;
    folder: string | null;
    backupTarget: string | null;
    backupSource: string | null;
    loginItemError: Error | null;
    restartErrors: Error[];
    openLogError: Error | null;
    commandResult: { exitCode: number; stdout: string; stderr: string };
    info: HostInfo;
    backup: (target: string, onProgress: (u: ProgressUpdate) => void) => Promise<void>;
    restore: (source: string, onProgress: (u: ProgressUpdate) => void) => Promise<void>;
  };
  platform: NodeJS.Platform;
  /** The settings file's bytes (to check nothing was written). */
  file(): string;
  close(): void;
}

/** A rig on a fresh settings file, for `platform`. */
export function createRig(platform: NodeJS.Platform = 'darwin'): Rig {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-ipc-'));
  const settings = new SettingsStore(new Conf<StoredSettings>({ ...settingsStoreOptions(platform), cwd: dir, configName: SETTINGS_FILE_NAME }));
  const calls: string[] = [];
  const events: Rig['events'] = [];
  const commands: Rig['commands'] = [];
  const answers: Rig['answers'] = {
    appOrigin: APP_ORIGIN,
    folder: null,
    backupTarget: null,
    backupSource: null,
    loginItemError: null,
    restartErrors: [],
    openLogError: null,
    commandResult: { exitCode: 0, stdout: '', stderr: '' },
    info: {
      version: '0.1.0',
      platform,
      dataDir: join(dir, 'data'),
      localUrl: `${APP_ORIGIN}/`,
      httpsUrl: 'https://hearth.localhost:7471',
      caFile: null,
      publicOrigin: null,
    },
    backup: async () => undefined,
    restore: async () => undefined,
  };
  const runCommand: CommandRunner = async (file, args) => {
    commands.push({ file, args });
    return answers.commandResult;
  };
  const deps: IpcDeps = {
    settings,
    appOrigin: () => answers.appOrigin,
    hostInfo: () => answers.info,
    trustEnvironment: { platform, homeDir: '/Users/kim', systemRoot: 'C:\\Windows' },
    runCommand,
    chooseFolder: async () => {
      calls.push('chooseFolder');
      return answers.folder;
    },
    chooseBackupTarget: async (name) => {
      calls.push(`chooseBackupTarget ${name}`);
      return answers.backupTarget;
    },
    chooseBackupSource: async () => {
      calls.push('chooseBackupSource');
      return answers.backupSource;
    },
    backup: (target, onProgress) => {
      calls.push(`backup ${target}`);
      return answers.backup(target, onProgress);
    },
    restore: (source, onProgress) => {
      calls.push(`restore ${source}`);
      return answers.restore(source, onProgress);
    },
    restartServer: async () => {
      calls.push(`restartServer ${settings.get().dataDir}`);
      const error = answers.restartErrors.shift();
      if (error) throw error;
    },
    openLog: async () => {
      calls.push('openLog');
      if (answers.openLogError) throw answers.openLogError;
    },
    setLoginItem: (enabled) => {
      calls.push(`setLoginItem ${enabled}`);
      if (answers.loginItemError) throw answers.loginItemError;
    },
    emit: <C extends EventChannel>(channel: C, payload: EventChannels[C]) => {
      events.push({ channel, payload });
    },
    settingsChanged: (after, before) => calls.push(`settingsChanged ${JSON.stringify(before) !== JSON.stringify(after)}`),
    now: () => new Date('2026-11-26T12:00:00Z'),
  };
  return {
    dir,
    settings,
    handlers: createIpcHandlers(deps),
    calls,
    events,
    commands,
    answers,
    platform,
    file: () => readFileSync(join(dir, `${SETTINGS_FILE_NAME}.json`), 'utf8'),
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}
