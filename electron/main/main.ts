// The desktop app's main process (issue 17): one instance per person; the instance server in a
// utilityProcess (electron/host); the window on its app; the tray, native notifications and the
// badge (electron/notify); links (electron/links); settings (electron/settings) and the window's
// IPC (electron/ipc); backup and restore (electron/data). This folder is the thin part that calls
// Electron's own API: every decision lives in the plain modules, tested under Node.
import { app, BrowserWindow, dialog, ipcMain, Notification, shell } from 'electron';
import Store from 'electron-store';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wireName, type EventChannel, type EventChannels } from '../contract/ipc.js';
import { backupDataDir, checkArchive, recoverDataDir, restoreDataDir } from '../data/index.js';
import type { ServerInfo } from '../host/messages.js';
import { ServerHost, type HostState } from '../host/server-host.js';
import { createIpcHandlers } from '../ipc/handlers.js';
import { registerIpcHandlers } from '../ipc/register.js';
import { LINK_SCHEMES, linkFromArgv, parseProtocolLink } from '../links/protocol.js';
import type { NotificationDecision } from '../notify/decide.js';
import { NotificationStream } from '../notify/stream.js';
import { SETTINGS_FILE_NAME, SettingsStore, settingsStoreOptions } from '../settings/store.js';
import type { StoredSettings } from '../settings/schema.js';
import { installMenu } from './menu.js';
import { portOrAny, rememberedPorts, rememberPorts } from './ports.js';
import { HearthTray } from './tray.js';
import { utilitySpawner } from './utility-spawner.js';
import { createMainWindow, installSessionPolicy } from './window.js';

const here = dirname(fileURLToPath(import.meta.url));
/** The bundled preload (scripts/build-electron.mjs) and the server's entry, beside this folder in dist/electron. */
const PRELOAD = join(here, '..', 'preload.cjs');
const SERVER_ENTRY = join(here, '..', 'host', 'server-entry.js');
/** Icons shipped with the app (build/ in the checkout, and in the package: see build/electron-builder.yml). */
const RESOURCES = fileURLToPath(new URL('../../../build/', import.meta.url));

// Started as `electron dist/electron/main/main.js` (npm start), Electron would call the app
// "Electron" and keep its data under that name; the packaged app has its name from package.json.
app.setName('Hearth');
// Windows shows notifications only for an app with a user model id (the installer's app id).
if (process.platform === 'win32') app.setAppUserModelId('social.hearth.app');

let win: BrowserWindow | null = null;
let host: ServerHost | null = null;
let settings: SettingsStore | null = null;
let tray: HearthTray | null = null;
let stream: NotificationStream | null = null;
let quitting = false;
let stopped = false;
let stopping: Promise<void> | null = null;
/** A path to show once the window exists (a link the app was started with). */
let pendingPath: string | null = linkFromArgv(process.argv);
/** Notifications on screen, kept so their click handlers are not collected. */
const shown = new Map<string, Notification>();

const dataDir = (): string => settings?.get().dataDir ?? join(app.getPath('userData'), 'hearth');
const appOrigin = (): string | null => (host?.info ? new URL(host.info.url).origin : null);

function showWindow(): void {
  if (!win) return;
  if (win.isMinimized()) win.restore();
  win.show();
  win.focus();
}

/** Shows an app path in the window (through the app's router: no reload). */
function navigate(path: string): void {
  if (!win) {
    pendingPath = path;
    return;
  }
  showWindow();
  win.webContents.send(wireName('navigate'), path);
}

function openLink(raw: string): void {
  const link = parseProtocolLink(raw);
  if (link.ok) navigate(link.path);
  else console.warn(`hearth: refused link: ${link.error}`);
}

function emit<C extends EventChannel>(channel: C, payload: EventChannels[C]): void {
  if (win && !win.isDestroyed()) win.webContents.send(wireName(channel), payload);
}

/** The path the window shows, for the notifications' "already on screen" rule. */
function windowPath(): string | null {
  if (!win || win.isDestroyed()) return null;
  try {
    return new URL(win.webContents.getURL()).pathname;
  } catch {
    return null;
  }
}

function showNotification(decision: NotificationDecision): void {
  if (!Notification.isSupported()) return;
  shown.get(decision.tag)?.close();
  const note = new Notification({ title: decision.title, body: decision.body, groupId: decision.tag });
  note.on('click', () => navigate(decision.path));
  note.on('close', () => {
    if (shown.get(decision.tag) === note) shown.delete(decision.tag);
  });
  shown.set(decision.tag, note);
  note.show();
}

/**
 * Starts the notifications once the instance has an owner (on a first run, after setup), and
 * gives the stream the new server's address and token after each restart.
 */
async function followNotifications(info: ServerInfo): Promise<void> {
  let token: string | null = null;
  while (!quitting && host?.state.state === 'ready') {
    token = await host.ownerToken().catch(() => null);
    if (token) break;
    await new Promise((resolve) => setTimeout(resolve, 5000));
  }
  if (!token || quitting) return;
  if (stream) {
    stream.reconfigure({ baseUrl: info.url, token });
    return;
  }
  stream = new NotificationStream({
    baseUrl: info.url,
    token,
    kinds: () => settings?.get().notifications ?? { mention: true, direct: true, follow: true, follow_request: true },
    focus: () => ({ focused: Boolean(win && !win.isDestroyed() && win.isVisible() && win.isFocused()), path: windowPath() }),
    onNotification: showNotification,
    onState: (state) => tray?.show(state),
    pollMs: 15_000,
  });
  stream.start();
}

/** Follows the server host: a new address after a restart, and a clear message when it gave up. */
function onHostState(state: HostState): void {
  if (state.state === 'ready') {
    const origin = new URL(state.info.url).origin;
    if (win && !win.isDestroyed() && new URL(win.webContents.getURL() || state.info.url).origin !== origin) void win.loadURL(`${state.info.url}/`);
    void followNotifications(state.info);
  } else if (state.state === 'failed' && !quitting) {
    void dialog
      .showMessageBox({
        type: 'error',
        title: 'Hearth',
        message: 'Hearth’s server keeps stopping.',
        detail: `${state.message}\n\nThe log may say why.`,
        buttons: ['Open Log', 'Try Again', 'Quit'],
        defaultId: 1,
        cancelId: 2,
      })
      .then(({ response }) => {
        if (response === 0) {
          void shell.openPath(state.logFile);
          onHostState(state);
        } else if (response === 1) void host?.start().catch(() => undefined);
        else app.quit();
      });
  }
}

async function restore(source: string, onProgress: (update: { fraction: number; stage: string }) => void): Promise<void> {
  if (!host) throw new Error('Hearth’s server is not running.');
  // Checked while the server still runs: a bad archive changes nothing.
  await checkArchive(source);
  await stream?.stop();
  stream = null;
  await host.stop();
  try {
    await restoreDataDir({ archivePath: source, dataDir: dataDir(), onProgress });
  } finally {
    // On the restored data, or on the old data if the restore put it back.
    await host.restart({ dataDir: dataDir() });
  }
}

/**
 * Makes Hearth the handler of web+mastodon: and web+ap: links (the installers declare them too;
 * macOS reads them from the bundle). Run from a checkout, the system must start Electron with the
 * app's script, so it is given as the argument.
 */
function registerLinkSchemes(): void {
  for (const scheme of LINK_SCHEMES) {
    if (process.defaultApp && process.argv[1]) app.setAsDefaultProtocolClient(scheme, process.execPath, [process.argv[1]]);
    else app.setAsDefaultProtocolClient(scheme);
  }
}

async function start(): Promise<void> {
  const store = new Store<StoredSettings>({ ...settingsStoreOptions(), name: SETTINGS_FILE_NAME });
  settings = new SettingsStore(store);
  const prefs = settings.get();
  registerLinkSchemes();
  app.setLoginItemSettings({ openAtLogin: prefs.startAtLogin });
  installSessionPolicy(appOrigin);

  // A restore cut short by a crash is finished or undone before the server opens the data.
  await recoverDataDir(dataDir());
  const portsFile = join(app.getPath('userData'), 'ports.json');
  const remembered = rememberedPorts(portsFile);
  host = new ServerHost({
    dataDir: dataDir(),
    port: prefs.port ?? (await portOrAny(remembered.http)),
    httpsPort: await portOrAny(remembered.https),
    spawner: utilitySpawner,
    entry: SERVER_ENTRY,
  });
  host.on(onHostState);
  let info: ServerInfo;
  try {
    info = await host.start();
  } catch {
    return; // the `failed` state shows the message
  }
  const https = info.httpsUrl ? Number(new URL(info.httpsUrl).port) : remembered.https;
  rememberPorts(portsFile, { http: Number(new URL(info.url).port), https });

  const icon = join(RESOURCES, 'icons', '512x512.png');
  const openWindow = (path: string) => {
    const current = host?.info ?? info;
    win = createMainWindow(`${current.url}${path}`, { settings: settings as SettingsStore, appOrigin, preload: PRELOAD, icon: existsSync(icon) ? icon : undefined, devTools: !app.isPackaged });
    win.on('close', (event) => {
      if (!quitting && settings?.get().closeToTray) {
        event.preventDefault();
        win?.hide();
      }
    });
    win.on('closed', () => {
      win = null;
    });
    // Reading notifications in the window moves the marker: the count is read again on focus.
    win.on('focus', () => void stream?.refresh().catch(() => undefined));
  };
  openWindow(pendingPath ?? '/');
  pendingPath = null;

  registerIpcHandlers(
    ipcMain,
    createIpcHandlers({
      settings,
      appOrigin,
      hostInfo: () => {
        const now = host?.info ?? info;
        return { version: app.getVersion(), platform: process.platform, dataDir: dataDir(), localUrl: now.url, httpsUrl: now.httpsUrl, caFile: now.caFile, publicOrigin: now.publicOrigin };
      },
      trustEnvironment: { platform: process.platform, homeDir: homedir(), systemRoot: process.env.SystemRoot },
      chooseFolder: async () => {
        const picked = await dialog.showOpenDialog({ properties: ['openDirectory', 'createDirectory'] });
        return picked.canceled ? null : (picked.filePaths[0] ?? null);
      },
      chooseBackupTarget: async (name) => {
        const picked = await dialog.showSaveDialog({ defaultPath: join(app.getPath('documents'), name), filters: [{ name: 'Hearth backup', extensions: ['gz'] }] });
        return picked.canceled ? null : (picked.filePath ?? null);
      },
      chooseBackupSource: async () => {
        const picked = await dialog.showOpenDialog({ properties: ['openFile'], filters: [{ name: 'Hearth backup', extensions: ['gz'] }] });
        return picked.canceled ? null : (picked.filePaths[0] ?? null);
      },
      backup: async (target, onProgress) => {
        await backupDataDir({ dataDir: dataDir(), archivePath: target, onProgress });
      },
      restore,
      restartServer: async () => {
        const now = settings?.get();
        await host?.restart({ dataDir: dataDir(), port: now?.port ?? Number(new URL(host.info?.url ?? info.url).port) });
      },
      openLog: async () => {
        const problem = await shell.openPath(host?.logFile ?? '');
        if (problem) throw new Error(problem);
      },
      setLoginItem: (enabled) => app.setLoginItemSettings({ openAtLogin: enabled }),
      emit,
    }),
  );

  tray = new HearthTray(
    RESOURCES,
    {
      open: () => (win ? showWindow() : openWindow('/')),
      setFederationPaused: (paused) =>
        void stream?.setFederationPaused(paused).catch((err: unknown) => dialog.showErrorBox('Hearth', err instanceof Error ? err.message : String(err))),
      quit: () => app.quit(),
    },
    () => win,
  );
  installMenu({ window: () => win, navigate, openLog: () => void shell.openPath(host?.logFile ?? '') });
}

/** Stops the notifications and the server gracefully (the server waits for its queues) before the app ends. */
function stopAll(): Promise<void> {
  stopping ??= (async () => {
    await stream?.stop().catch(() => undefined);
    await host?.stop().catch((err: unknown) => console.error('hearth: the server did not stop cleanly:', err));
  })();
  return stopping;
}

if (!app.requestSingleInstanceLock()) {
  // Another Hearth runs: it is told of this launch (second-instance) and shows its window.
  app.quit();
} else {
  app.on('second-instance', (_event, argv) => {
    showWindow();
    const path = linkFromArgv(argv);
    if (path) navigate(path);
  });
  // macOS gives links as events, also before the app is ready.
  app.on('open-url', (event, url) => {
    event.preventDefault();
    openLink(url);
  });
  app.on('activate', () => showWindow());
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin' && !settings?.get().closeToTray) app.quit();
  });
  app.on('before-quit', (event) => {
    quitting = true;
    if (stopped) return;
    event.preventDefault();
    void stopAll().finally(() => {
      stopped = true;
      tray?.destroy();
      app.quit();
    });
  });
  void app.whenReady().then(start).catch((err: unknown) => {
    dialog.showErrorBox('Hearth could not start', err instanceof Error ? err.message : String(err));
    app.exit(1);
  });
}
