import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createApp, type HearthApp } from './app.js';
import type { Config } from './config.js';
import { setRestartHandler } from './core/reach.js';

/** A server that `hearth serve` runs, and can restart in its own process. */
export interface RunningServer {
  /** The app serving now (a new one after each restart). */
  readonly app: HearthApp;
  /** Its local URL. */
  readonly url: string;
  /**
   * Closes the app and starts it again with the configuration read afresh (flags, environment and
   * the config file, as at start), on the same port. When the new configuration cannot start (a
   * relay refusing its enrolment code…), the config file the server last started with is put back
   * and the server starts as it was; the error is kept for `GET /api/hearth/reach`.
   */
  restart(): Promise<void>;
  close(): Promise<void>;
}

interface Running {
  app: HearthApp;
  url: string;
  config: Config;
  /** The config file's text when this app started (null: there was none). */
  file: string | null;
}

/**
 * Starts a server from `load` (which resolves the configuration) and lets `POST /api/hearth/restart`
 * restart it: each app it starts gets the restart handler. `onStart` is told of each start.
 */
export async function startServer(load: () => Config, onStart: (app: HearthApp, url: string, restarted: boolean) => void = () => {}): Promise<RunningServer> {
  let lastError: string | null = null;
  let restarting: Promise<void> | null = null;

  const launch = async (config: Config, restarted: boolean): Promise<Running> => {
    const file = existsSync(config.configFile) ? readFileSync(config.configFile, 'utf8') : null;
    const app = await createApp(config);
    let url: string;
    try {
      url = await app.listen();
    } catch (err) {
      await app.close();
      throw err;
    }
    setRestartHandler(app.deps, {
      restart: () => void server.restart(),
      get lastError() {
        return lastError;
      },
    });
    onStart(app, url, restarted);
    return { app, url, config, file };
  };

  // Port 0 (tests) picked a port at the first start: a restart keeps it, so clients find the server again.
  const samePorts = (config: Config, before: Running): Config => ({
    ...config,
    port: config.port === 0 ? Number(new URL(before.url).port) : config.port,
    httpsPort: config.httpsPort === 0 && before.app.https ? before.app.https.port : config.httpsPort,
  });

  let current = await launch(load(), false);

  const restartNow = async (): Promise<void> => {
    const before = current;
    let next: Config;
    try {
      next = samePorts(load(), before);
    } catch (err) {
      // A config file that cannot be read: the server stays as it is.
      lastError = (err as Error).message;
      console.error('restart: the configuration cannot be read', err);
      return;
    }
    await before.app.close();
    try {
      current = await launch(next, true);
      lastError = null;
    } catch (err) {
      lastError = (err as Error).message;
      console.error('restart: the new configuration does not start; starting as before', err);
      if (before.file === null) rmSync(before.config.configFile, { force: true });
      else writeFileSync(before.config.configFile, before.file);
      current = await launch(samePorts(before.config, before), true);
    }
  };

  const server: RunningServer = {
    get app() {
      return current.app;
    },
    get url() {
      return current.url;
    },
    restart() {
      restarting ??= restartNow().finally(() => {
        restarting = null;
      });
      return restarting;
    },
    async close() {
      await restarting;
      await current.app.close();
    },
  };
  return server;
}
