// The typed IPC contract between the desktop app's main process and its window (ARCHITECTURE.md,
// "Security"): the one module both sides import. The preload exposes exactly `DesktopBridge` as
// `window.hearthDesktop`; the main process answers each invoke channel with a handler that checks
// the sender's frame URL and validates the payload (electron/ipc/). The renderer imports this file
// only as `import type`.

/** Which notifications the desktop shows natively, by Mastodon notification type. */
export interface NotificationKinds {
  mention: boolean;
  direct: boolean;
  follow: boolean;
  follow_request: boolean;
}

/** The desktop app's own settings (electron-store); the instance's settings stay in the instance. */
export interface DesktopSettings {
  /** The window's last place and size (null: centred, default size). */
  windowBounds: { x: number; y: number; width: number; height: number; maximized: boolean } | null;
  /** Open Hearth when the person logs in (off by default). */
  startAtLogin: boolean;
  /** Closing the window keeps Hearth running in the tray. */
  closeToTray: boolean;
  notifications: NotificationKinds;
  /** The instance's data directory (null: `hearth` in the app's user-data folder). */
  dataDir: string | null;
  /** The instance's local port (null: the port of the last start, 7470 at first, or another free one when it is taken: electron/main/ports.ts). */
  port: number | null;
}

/**
 * What a settings change may touch from the window: any of these keys, each optional; the
 * notification kinds one by one (those left out keep their value). The data directory has its own
 * call (it restarts the server); the window's bounds are the main process's own.
 */
export interface SettingsChange {
  startAtLogin?: boolean;
  closeToTray?: boolean;
  notifications?: Partial<NotificationKinds>;
  port?: number | null;
}

/** What the window shows under "Use Hearth from other apps" and "About". */
export interface DesktopInfo {
  version: string;
  platform: string;
  /** The data directory in use. */
  dataDir: string;
  /** The instance's local address (what the window shows). */
  localUrl: string;
  /** The local HTTPS address for other apps, when the instance serves one. */
  httpsUrl: string | null;
  /** The certificate authority file to trust for `httpsUrl`. */
  caFile: string | null;
  /** Whether this platform can trust the certificate in one click (else the window shows how). */
  canTrustCertificate: boolean;
  /** Where one click is not possible (Linux): how to trust `caFile` by hand, in sentences. */
  certificateHelp: string | null;
  /** The instance's public origin (through the relay or its own), for phones (shown as a QR code). */
  publicOrigin: string | null;
}

/** Progress of a backup or restore, pushed on the `progress` event channel. */
export interface DataProgress {
  operation: 'backup' | 'restore';
  /** 0..1 */
  fraction: number;
  stage: string;
}

/** The outcome of a call that can fail for a reason the person should read. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: string };

/** Invoke channels: request and response of each. */
export interface InvokeChannels {
  'settings:get': { request: null; response: DesktopSettings };
  'settings:set': { request: SettingsChange; response: Outcome<DesktopSettings> };
  'info:get': { request: null; response: DesktopInfo };
  /** Opens a folder chooser; the server restarts on the chosen directory (null: cancelled). */
  'data-dir:choose': { request: null; response: Outcome<string | null> };
  /** Trusts `caFile` for the person (one click where the platform allows it); the value says what was done. */
  'certificate:trust': { request: null; response: Outcome<string> };
  /** Asks where to save, then writes the archive (null: cancelled). */
  'backup:create': { request: null; response: Outcome<string | null> };
  /** Asks for an archive, checks it, then replaces the data and restarts the server (null: cancelled). */
  'backup:restore': { request: null; response: Outcome<string | null> };
  'log:open': { request: null; response: Outcome<null> };
}

/** Events the main process sends to the window. */
export interface EventChannels {
  progress: DataProgress;
  /** Show this path of the app (a notification or a web+ap:// link was opened). */
  navigate: string;
}

export type InvokeChannel = keyof InvokeChannels;
export type EventChannel = keyof EventChannels;

/** Every invoke channel, for the preload and the main process's registration. */
export const INVOKE_CHANNELS: readonly InvokeChannel[] = [
  'settings:get',
  'settings:set',
  'info:get',
  'data-dir:choose',
  'certificate:trust',
  'backup:create',
  'backup:restore',
  'log:open',
];

export const EVENT_CHANNELS: readonly EventChannel[] = ['progress', 'navigate'];

/** The IPC channel name on the wire: prefixed so nothing else collides with it. */
export function wireName(channel: InvokeChannel | EventChannel): string {
  return `hearth:${channel}`;
}

/** What the preload exposes as `window.hearthDesktop`. */
export interface DesktopBridge {
  invoke<C extends InvokeChannel>(channel: C, request: InvokeChannels[C]['request']): Promise<InvokeChannels[C]['response']>;
  /** Subscribes to an event; returns the unsubscribe function. */
  on<C extends EventChannel>(channel: C, listener: (payload: EventChannels[C]) => void): () => void;
}
