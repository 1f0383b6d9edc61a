// The main window: the instance's own app (served by the local server), with the security policy
// of electron/security applied: sandboxed, no Node, navigation kept on the app's origin, new
// windows refused (links open in the system's browser after a check), permissions refused except
// notifications. Its place and size are remembered.
import { BrowserWindow, nativeTheme, screen, session, shell } from 'electron';
import { createNavigationGuard, isAllowedNavigation, permissionDecision } from '../security/policy.js';
import { windowWebPreferences } from '../security/web-preferences.js';
import type { SettingsStore } from '../settings/store.js';

/** What the window needs. */
export interface WindowOptions {
  settings: SettingsStore;
  /** The local origin of the app (changes when the server restarts on another port). */
  appOrigin(): string | null;
  preload: string;
  icon: string | undefined;
  devTools: boolean;
}

/**
 * Applies the session-wide policy once: permission requests and checks are refused unless they are
 * notifications asked by the app's own origin.
 */
export function installSessionPolicy(appOrigin: () => string | null): void {
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((_contents, permission, callback, details) => callback(permissionDecision(permission, details.requestingUrl, appOrigin())));
  ses.setPermissionCheckHandler((_contents, permission, requestingOrigin) => permissionDecision(permission, requestingOrigin, appOrigin()));
  // Nothing is downloaded into the app's profile without the person choosing where.
  ses.on('will-download', (event) => event.preventDefault());
}

/** Bounds that still fall on one of the screens (a screen may have been unplugged since). */
function visibleBounds(saved: { x: number; y: number; width: number; height: number }): boolean {
  return screen.getAllDisplays().some(({ workArea: a }) => saved.x < a.x + a.width && saved.x + saved.width > a.x && saved.y < a.y + a.height && saved.y + saved.height > a.y);
}

/** Makes the main window on `url`, shown once it has painted. */
export function createMainWindow(url: string, options: WindowOptions): BrowserWindow {
  nativeTheme.themeSource = 'system';
  const saved = options.settings.get().windowBounds;
  const place = saved && visibleBounds(saved) ? { x: saved.x, y: saved.y, width: saved.width, height: saved.height } : { width: 1100, height: 800 };
  const win = new BrowserWindow({
    ...place,
    minWidth: 360,
    minHeight: 400,
    show: false,
    title: 'Hearth',
    icon: options.icon,
    backgroundColor: nativeTheme.shouldUseDarkColors ? '#16161a' : '#ffffff',
    webPreferences: windowWebPreferences({ preload: options.preload, platform: process.platform, devTools: options.devTools }),
  });
  if (saved?.maximized) win.maximize();
  win.once('ready-to-show', () => win.show());

  const guard = createNavigationGuard({
    appOrigin: options.appOrigin,
    openExternal: (target) => shell.openExternal(target),
    refused: (target, reason) => console.warn(`refused to open ${target}: ${reason}`),
  });
  win.webContents.on('will-navigate', (event) => {
    if (!guard.onWillNavigate(event.url)) event.preventDefault();
  });
  win.webContents.on('will-redirect', (event) => {
    if (!guard.onWillNavigate(event.url)) event.preventDefault();
  });
  // A subframe (the CSP allows none) never sends anything to the system's browser: it is just stopped.
  win.webContents.on('will-frame-navigate', (event) => {
    if (!event.isMainFrame && !isAllowedNavigation(event.url, options.appOrigin())) event.preventDefault();
  });
  win.webContents.setWindowOpenHandler(({ url: target }) => guard.onWindowOpen(target));
  win.webContents.on('will-attach-webview', (event) => event.preventDefault());

  // The place and size, written when they settle (not at every pixel of a drag).
  let timer: NodeJS.Timeout | null = null;
  const remember = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      if (win.isDestroyed() || win.isMinimized() || win.isFullScreen()) return;
      const b = win.getNormalBounds();
      options.settings.setWindowBounds({ ...b, maximized: win.isMaximized() });
    }, 500);
  };
  for (const event of ['resize', 'move', 'maximize', 'unmaximize'] as const) win.on(event as 'resize', remember);
  void win.loadURL(url);
  return win;
}
