import type { ServerInfo } from './messages.js';
import type { ProcessSpawner } from './spawn.js';

// The server host's public types (electron/host/server-host.ts): its states and its options.

/** Where the host is; every change is told to the listeners (see ServerHost.on). */
export type HostState =
  | { state: 'idle' }
  | { state: 'starting'; attempt: number }
  /** Serving: the child said ready and `GET /health` answered 200 (told again, with the new info, after an in-process restart). */
  | { state: 'ready'; info: ServerInfo; pid: number | undefined; startMs: number }
  /** The child failed, ended unexpectedly or could not start; `restarting` or `failed` follows. */
  | { state: 'crashed'; message: string }
  /** A new child starts after `delayMs` (after a crash, or at once when asked to restart). */
  | { state: 'restarting'; delayMs: number; reason: 'crash' | 'request' }
  /** Too many crashes: the host stopped trying. `message` is for the person, and names the log. */
  | { state: 'failed'; message: string; logFile: string }
  | { state: 'stopping' }
  /** Stopped: as asked (stop), or from outside (the child closed and exited 0 on a SIGTERM not the host's). */
  | { state: 'stopped' };

/** What the server runs on; `restart` may change it. */
export interface ServerPlace {
  /** The instance's data directory. */
  dataDir: string;
  /**
   * The local port; 0 (the default) picks a free one at the first start, kept for the restarts that
   * follow (after a crash, or asked for on the same data directory) so the window finds the server
   * where it was; a start that fails lets it go.
   */
  port?: number;
  /** `127.0.0.1` by default. */
  bind?: string;
  /** The HTTPS port for other apps (0: any), null for none; undefined: the data directory's config file decides. */
  httpsPort?: number | null;
}

export interface ServerHostOptions extends ServerPlace {
  /** The child's entry module; the compiled server-entry.js beside this module by default. */
  entry?: string;
  /** How children are started: `nodeSpawner()` by default; Electron's utilityProcess in the app. */
  spawner?: ProcessSpawner;
  /** The log file; `hearth-server.log` beside the data directory by default. */
  logFile?: string;
  /** A log larger than this when the host starts is moved to `<log>.1` (5 MiB). */
  maxLogBytes?: number;
  /** How long a start may take, to ready and healthy (120 s: a large migration takes time). */
  readyTimeoutMs?: number;
  /** How long a graceful stop may take before the child is killed (30 s). */
  stopTimeoutMs?: number;
  /** Pauses before restarting after a crash: `initialMs` doubled for each crash in a row, at most `maxMs` (0.5 s, 30 s). */
  backoff?: { initialMs: number; maxMs: number };
  /** After `count` crashes within `windowMs` the host gives up (5 in 2 minutes). */
  crashLimit?: { count: number; windowMs: number };
  /** A run that served this long before crashing starts the count afresh (a minute). */
  healthyResetMs?: number;
  /** The environment the child starts from (process.env by default). */
  env?: NodeJS.ProcessEnv;
  /** The clock (tests). */
  now?: () => number;
}
