import type { Configuration } from 'electron-builder';

/** electron-builder's `electronFuses` option. */
export type ElectronFuses = NonNullable<Configuration['electronFuses']>;

/**
 * The Electron fuses flipped in the packaged app (electron-builder's `electronFuses`, used by
 * build/): switches compiled into the Electron binary that no environment variable, flag or file
 * can turn back on.
 * - runAsNode off: `ELECTRON_RUN_AS_NODE` cannot turn Hearth into a plain Node that runs any
 *   script (the server runs in a `utilityProcess`, which does not need it).
 * - cookie encryption on: Chromium's cookie store is encrypted with the system's keys.
 * - NODE_OPTIONS and NODE_EXTRA_CA_CERTS ignored; `--inspect` flags (and SIGUSR1) ignored: no
 *   code injected at start, no debugger attached from outside.
 * - ASAR integrity checked (macOS, Windows) and the app loaded only from `app.asar`: the code
 *   that runs is the code that was signed.
 * - file: pages get no extra privileges (Hearth never loads file: pages).
 * - the browser process's own V8 snapshot is not used (Hearth ships none).
 */
export const electronFuses: ElectronFuses = {
  runAsNode: false,
  enableCookieEncryption: true,
  enableNodeOptionsEnvironmentVariable: false,
  enableNodeCliInspectArguments: false,
  enableEmbeddedAsarIntegrityValidation: true,
  onlyLoadAppFromAsar: true,
  loadBrowserProcessSpecificV8Snapshot: false,
  grantFileProtocolExtraPrivileges: false,
};
