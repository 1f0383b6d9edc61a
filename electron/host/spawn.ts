import { fork } from 'node:child_process';
import type { HostMessage } from './messages.js';

/**
 * What the server host needs from a child process, whatever starts it: Electron's utilityProcess
 * in the app, Node's child_process.fork in tests and benchmarks. The glue for Electron is a few
 * lines in electron/main/ (utilityProcess emits 'message' with the message itself and 'exit' with
 * a code only; its kill() ends the process gracefully, SIGTERM on POSIX):
 *
 * ```ts
 * const electronSpawner: ProcessSpawner = {
 *   spawn({ entry, args, env }) {
 *     const child = utilityProcess.fork(entry, args, { env, stdio: 'pipe', serviceName: 'Hearth server' });
 *     return {
 *       get pid() { return child.pid; },
 *       postMessage: (message) => child.postMessage(message),
 *       onMessage: (listener) => void child.on('message', listener),
 *       onExit: (listener) => void child.once('exit', (code) => listener(code, null)),
 *       kill: (signal) => (signal === 'SIGKILL' && child.pid ? process.kill(child.pid, 'SIGKILL') : child.kill()),
 *       stdout: child.stdout,
 *       stderr: child.stderr,
 *     };
 *   },
 * };
 * ```
 */
export interface HostedChild {
  /** The process id, once the process runs (undefined before, or when it could not start). */
  readonly pid: number | undefined;
  /** Sends a message to the child (dropped when the child is gone). */
  postMessage(message: HostMessage): void;
  /** Listens to the child's messages (unchecked: the host parses them). */
  onMessage(listener: (message: unknown) => void): void;
  /**
   * Listens for the end of the process, told once: its exit code, or the signal that ended it (when
   * the platform says; utilityProcess gives a code only). A process that could not start ends too.
   */
  onExit(listener: (code: number | null, signal: string | null) => void): void;
  /** SIGTERM (the default) asks the child to stop gracefully; SIGKILL ends it at once. */
  kill(signal?: 'SIGTERM' | 'SIGKILL'): void;
  /** Its output, when piped (the host writes it to the log file). */
  readonly stdout: NodeJS.ReadableStream | null;
  readonly stderr: NodeJS.ReadableStream | null;
}

/** What the host asks to run: the child's entry module, its arguments and its whole environment. */
export interface SpawnRequest {
  entry: string;
  args: string[];
  env: Record<string, string>;
}

/** Starts child processes for the host. */
export interface ProcessSpawner {
  spawn(request: SpawnRequest): HostedChild;
}

/**
 * The spawner for Node (tests, benchmarks, `npm start` without Electron): child_process.fork with
 * piped output and JSON messages. `execArgv` is empty unless given, so the child does not inherit
 * the parent's flags (a test runner's loaders, an inspector port).
 */
export function nodeSpawner(options: { execArgv?: string[]; execPath?: string } = {}): ProcessSpawner {
  return {
    spawn({ entry, args, env }) {
      const child = fork(entry, args, {
        env,
        execArgv: options.execArgv ?? [],
        ...(options.execPath ? { execPath: options.execPath } : {}),
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
        serialization: 'json',
      });
      let exited = false;
      const exitListeners: ((code: number | null, signal: string | null) => void)[] = [];
      const exit = (code: number | null, signal: string | null) => {
        if (exited) return;
        exited = true;
        for (const listener of exitListeners) listener(code, signal);
      };
      child.once('exit', (code, signal) => exit(code, signal));
      // A process that cannot be started emits 'error' and never 'exit'; a failed kill or send
      // emits 'error' too, while the process lives on (its 'exit' comes later, or never was due).
      child.on('error', (err) => {
        if (child.pid === undefined) {
          console.error('the server process could not start:', err);
          exit(null, null);
        }
      });
      return {
        get pid() {
          return child.pid;
        },
        postMessage(message) {
          if (!child.connected) return;
          // With a callback, a failed send (the child just went) is reported here, not as 'error'.
          child.send(message, (err) => {
            if (err && child.connected) console.error('could not send to the server process:', err);
          });
        },
        onMessage(listener) {
          child.on('message', listener);
        },
        onExit(listener) {
          exitListeners.push(listener);
        },
        kill(signal = 'SIGTERM') {
          if (!exited) child.kill(signal);
        },
        stdout: child.stdout,
        stderr: child.stderr,
      };
    },
  };
}
