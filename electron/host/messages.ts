// The messages between the server host (electron/host/server-host.ts, in the app's main process)
// and the server's child process (electron/host/server-entry.ts). Plain JSON objects, so they cross
// Electron's utilityProcess port (structured clone) and Node's fork IPC alike. Each side checks
// what it receives with the parser here: a message that does not fit is dropped, never trusted.
import type { DesktopServerInfo } from '../../api/desktop.js';

/** Where the running instance is reached: url, httpsUrl, caFile, publicOrigin (see api/desktop.ts). */
export type ServerInfo = DesktopServerInfo;

/** What the child sends its host. */
export type ChildMessage =
  /** The server listens (sent again, with what it serves now, after it restarted in its process). */
  | { type: 'ready'; info: ServerInfo }
  /** The answer to an owner-token request with the same id (`token` null: no owner yet). */
  | { type: 'owner-token'; id: number; token: string | null; error: string | null }
  /** The server closed gracefully; the child exits 0 next. */
  | { type: 'stopped' }
  /** The server could not start, or failed; the child exits 1 next. */
  | { type: 'fatal'; message: string };

/** What the host sends its child. */
export type HostMessage =
  /** Asks for the owner's token; answered by an `owner-token` message with the same id. */
  | { type: 'owner-token'; id: number }
  /** Close the server gracefully (waiting for its queues), then exit 0. */
  | { type: 'stop' };

/** The options the host gives the child, in the HEARTH_DESKTOP_SERVER environment variable (JSON). */
export interface ChildOptions {
  dataDir: string;
  port: number;
  bind: string;
  /** Undefined: the data directory's config file decides. */
  httpsPort?: number | null;
}

/** The environment variable that carries ChildOptions to the child. */
export const OPTIONS_ENV = 'HEARTH_DESKTOP_SERVER';

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);
const isNullableString = (value: unknown): value is string | null => value === null || typeof value === 'string';

function parseInfo(value: unknown): ServerInfo | null {
  if (!isObject(value)) return null;
  const { url, httpsUrl, caFile, publicOrigin } = value;
  if (typeof url !== 'string' || !isNullableString(httpsUrl) || !isNullableString(caFile) || !isNullableString(publicOrigin)) return null;
  return { url, httpsUrl, caFile, publicOrigin };
}

/** Checks a message from the child; null when it is not one. */
export function parseChildMessage(value: unknown): ChildMessage | null {
  if (!isObject(value)) return null;
  switch (value.type) {
    case 'ready': {
      const info = parseInfo(value.info);
      return info ? { type: 'ready', info } : null;
    }
    case 'owner-token':
      if (typeof value.id !== 'number' || !isNullableString(value.token) || !isNullableString(value.error)) return null;
      return { type: 'owner-token', id: value.id, token: value.token, error: value.error };
    case 'stopped':
      return { type: 'stopped' };
    case 'fatal':
      return typeof value.message === 'string' ? { type: 'fatal', message: value.message } : null;
    default:
      return null;
  }
}

/** Checks a message from the host; null when it is not one. */
export function parseHostMessage(value: unknown): HostMessage | null {
  if (!isObject(value)) return null;
  if (value.type === 'stop') return { type: 'stop' };
  if (value.type === 'owner-token' && typeof value.id === 'number') return { type: 'owner-token', id: value.id };
  return null;
}

/** Reads the child's options from its environment (or, failing that, its first argument, as JSON). */
export function parseChildOptions(env: NodeJS.ProcessEnv, argv: readonly string[]): ChildOptions {
  const text = env[OPTIONS_ENV] ?? argv[0];
  if (!text) throw new Error(`the server's options are missing (${OPTIONS_ENV} or the first argument, as JSON)`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`the server's options are not JSON: ${text.slice(0, 200)}`);
  }
  if (!isObject(value) || typeof value.dataDir !== 'string' || value.dataDir === '') throw new Error('the server\'s options name no data directory');
  const port = value.port ?? 0;
  const bind = value.bind ?? '127.0.0.1';
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port: ${String(port)}`);
  if (typeof bind !== 'string') throw new Error('invalid bind address');
  const options: ChildOptions = { dataDir: value.dataDir, port, bind };
  if (value.httpsPort === null || typeof value.httpsPort === 'number') options.httpsPort = value.httpsPort;
  return options;
}
