import type { HearthApp } from './app.js';
import { resolveConfig, type Config, type ConfigInput } from './config.js';
import { listUsers } from './core/accounts/admin.js';
import type { Deps } from './core/deps.js';
import { internalApplication } from './core/oauth/apps.js';
import { listAuthorizedApps, revokeAuthorizedApp } from './core/oauth/authorized-apps.js';
import { authenticate, issueToken } from './core/oauth/tokens.js';
import type { AppRow } from './db/repos/oauth.js';
import type { RunningServer } from './serve.js';

/**
 * The api's start function for the desktop app: the one entry of `api/` that `electron/` uses (its
 * server host runs it in a child process, electron/host/server-entry.ts). It runs the server as
 * `hearth serve` does (same configuration rules, `POST /api/hearth/restart` restarts it in its
 * process), with the desktop's own choices as flags, and gives the desktop an access token of the
 * owner for its own use (notifications, unread count, pausing federation).
 */

/** What the desktop asks for. */
export interface DesktopServerOptions {
  /** The instance's data directory (its `hearth.json`, if any, is honoured as under `hearth serve`). */
  dataDir: string;
  /** The local port; 0 (the default) picks a free one. Wins over the config file. */
  port?: number;
  /** The address to bind; `127.0.0.1` by default. Wins over the config file. */
  bind?: string;
  /**
   * The HTTPS listener for other apps: a port (0: a free one), or null for none. When not given,
   * the config file's `httpsPort` decides (off by default).
   */
  httpsPort?: number | null;
  /** Where the server's start lines go (the host's log file through stdout by default). */
  log?: (line: string) => void;
  /** Told when the server restarted in its process (`POST /api/hearth/restart`), with what it serves now. */
  onRestart?: (info: DesktopServerInfo) => void;
}

/** Where the running instance is reached. */
export interface DesktopServerInfo {
  /** The local HTTP address (`http://127.0.0.1:PORT`): what the window loads. */
  url: string;
  /** The HTTPS address for other apps (`https://hearth.localhost:PORT`), when the listener runs. */
  httpsUrl: string | null;
  /** The local certificate authority to trust for `httpsUrl`. */
  caFile: string | null;
  /** The public origin (its own, or the relay's), or null when the instance is local-only. */
  publicOrigin: string | null;
}

/** The running server. Its info may change when it restarts in its process: read it when needed. */
export interface DesktopServer extends DesktopServerInfo {
  /** The info as one plain object (what the child sends its host). */
  info(): DesktopServerInfo;
  /**
   * An access token of the instance's owner for the desktop app itself (scopes DESKTOP_TOKEN_SCOPES,
   * application "Hearth desktop"), or null while the instance has no owner. Issued at the first call
   * and then given again while it stays valid. Only the token's hash is stored, so a new server
   * process issues a new one; the earlier tokens of the desktop application are revoked then, so at
   * most one is live.
   */
  ownerToken(): string | null;
  /** Stops the server; waits for its queues, then closes the database. */
  close(): Promise<void>;
}

/**
 * What the desktop's own token may do: read (the streaming API for notifications, the unread count)
 * and write (the owner's settings, such as pausing federation, are `write` routes). Not `follow`,
 * `push` or `admin:*`.
 */
export const DESKTOP_TOKEN_SCOPES: readonly string[] = ['read', 'write'];

/** The client id of the desktop app's own application (its tokens show as "Hearth desktop"). */
export const DESKTOP_CLIENT_ID = 'hearth-desktop';

/** The desktop app's application ("Hearth desktop"), made on first use. */
function desktopApplication(deps: Deps): AppRow {
  return internalApplication(deps, DESKTOP_CLIENT_ID, 'Hearth desktop', DESKTOP_TOKEN_SCOPES);
}

/**
 * The desktop's configuration, resolved as `hearth serve` resolves it but with no HEARTH_*
 * environment variables (a shell's settings for a headless server must not leak into the app, nor
 * make the reach read-only in the app's settings): the desktop's options are the flags, then the
 * data directory's `hearth.json`, then the defaults.
 */
export function desktopConfig(options: DesktopServerOptions): Config {
  const flags: ConfigInput = { dataDir: options.dataDir, port: options.port ?? 0, bind: options.bind ?? '127.0.0.1' };
  const config = resolveConfig(flags, {});
  return options.httpsPort === undefined ? config : { ...config, httpsPort: options.httpsPort };
}

function infoOf(app: HearthApp, url: string): DesktopServerInfo {
  return {
    url,
    httpsUrl: app.https?.url ?? null,
    caFile: app.https?.caFile ?? null,
    publicOrigin: app.deps.config.origin,
  };
}

/**
 * Starts the instance server for the desktop app (see DesktopServerOptions) and resolves once it
 * listens. Rejects when it cannot start (a data directory that cannot be opened, a config file
 * that cannot be read, the port taken…), with the reason as the error's message.
 */
export async function startDesktopServer(options: DesktopServerOptions): Promise<DesktopServer> {
  const log = options.log ?? ((line: string) => console.log(line));
  // A configuration that cannot be right fails here, before the server's hundreds of modules load.
  desktopConfig(options);
  const { startServer } = await import('./serve.js');
  let info: DesktopServerInfo | null = null;
  const server: RunningServer = await startServer(
    () => desktopConfig(options),
    (app, url, restarted) => {
      info = infoOf(app, url);
      log(`${restarted ? 'Hearth restarted' : 'Hearth is listening'} on ${url}${info.httpsUrl ? `; HTTPS for other apps: ${info.httpsUrl}` : ''}`);
      log(info.publicOrigin ? `Public origin: ${info.publicOrigin}` : 'Local-only: no public origin is set, federation is off.');
      if (restarted) options.onRestart?.(info);
    },
  );
  const current = (): DesktopServerInfo => info ?? infoOf(server.app, server.url);
  let token: string | null = null;

  const ownerToken = (): string | null => {
    const deps = server.app.deps;
    const owner = listUsers(deps).find((u) => u.role === 'owner' && !u.disabled);
    if (!owner) return null;
    const app = desktopApplication(deps);
    if (token !== null) {
      // Still the owner's, and not revoked (the owner may revoke it under "Authorized apps").
      const auth = authenticate(deps, token);
      if (auth?.user?.id === owner.userId && auth.applicationId === app.id) return token;
    }
    if (listAuthorizedApps(deps, owner.userId, null).some((a) => a.id === app.id)) revokeAuthorizedApp(deps, owner.userId, app.id);
    token = issueToken(deps, { applicationId: app.id, userId: owner.userId, scopes: DESKTOP_TOKEN_SCOPES }).accessToken;
    return token;
  };

  return {
    get url() {
      return current().url;
    },
    get httpsUrl() {
      return current().httpsUrl;
    },
    get caFile() {
      return current().caFile;
    },
    get publicOrigin() {
      return current().publicOrigin;
    },
    info: () => ({ ...current() }),
    ownerToken,
    close: () => server.close(),
  };
}
