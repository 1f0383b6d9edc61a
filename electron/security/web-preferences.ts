import type { WebPreferences } from 'electron';

/** What the window's web preferences depend on. */
export interface WebPreferencesOptions {
  /** The bundled preload (`dist/electron/preload.cjs`), an absolute path. */
  preload: string;
  platform: NodeJS.Platform;
  /** Developer tools: on in development, off in the packaged app (`!app.isPackaged`). */
  devTools: boolean;
}

/**
 * The main window's `webPreferences`, every security-relevant one set explicitly (even where it is
 * Electron's default, so an upgrade that changed a default changes nothing here):
 * - sandbox, context isolation, no Node in the page, its workers or its subframes;
 * - web security on, no insecure content, no experimental or extra Blink features, no <webview>;
 * - dropping a file on the window does not navigate to it;
 * - spell checking where the operating system's checker is used (macOS, Windows). On Linux,
 *   Chromium's checker would download dictionaries from Google's servers: off there.
 */
export function windowWebPreferences(options: WebPreferencesOptions): WebPreferences {
  return {
    preload: options.preload,
    sandbox: true,
    contextIsolation: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    safeDialogs: true,
    spellcheck: options.platform === 'darwin' || options.platform === 'win32',
    devTools: options.devTools,
  };
}
