import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitForHealth } from './health.js';
import type { HostState, ServerHostOptions, ServerPlace } from './host-types.js';
import { LogFile } from './log-file.js';
import { OPTIONS_ENV, parseChildMessage, type ChildOptions, type ServerInfo } from './messages.js';
import { nodeSpawner, type HostedChild, type ProcessSpawner } from './spawn.js';

export type { HostState, ServerHostOptions, ServerPlace } from './host-types.js';

/**
 * The server host: runs the instance server in a child process (electron/host/server-entry.ts),
 * says when it serves, restarts it after a crash with growing pauses, gives up with a clear message
 * after repeated crashes, and stops it gracefully. The app's main process makes one and follows its
 * states (the window, the tray); tests and benchmarks run it under Node with `nodeSpawner`.
 */

interface TokenRequest {
  resolve: (token: string | null) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/** One child process and what the host knows of it. */
interface Run {
  child: HostedChild;
  spawnedAt: number;
  /** When it became ready and healthy (null: still starting), and how long that took. */
  readyAt: number | null;
  startMs: number;
  info: ServerInfo | null;
  /** The reason it gave for failing (its `fatal` message). */
  fatal: string | null;
  /** Whether the host asked it to end (its exit is no crash). */
  expected: boolean;
  exit: { code: number | null; signal: string | null } | null;
  exited: Promise<void>;
  /** Its `ready` message, once. */
  ready: Promise<ServerInfo>;
  output: Promise<void>;
  tokens: Map<number, TokenRequest>;
}

/** The compiled child entry beside this module (dist/electron/host/server-entry.js when built). */
export function defaultEntry(): string {
  return fileURLToPath(new URL('./server-entry.js', import.meta.url));
}

/** Runs the instance server in a child process and keeps it running; see the module comment. */
export class ServerHost {
  readonly logFile: string;
  private place: Required<Omit<ServerPlace, 'httpsPort'>> & Pick<ServerPlace, 'httpsPort'>;
  private readonly entry: string;
  private readonly spawner: ProcessSpawner;
  private readonly log: LogFile;
  private readonly now: () => number;
  private readonly listeners = new Set<(state: HostState) => void>();
  private current: HostState = { state: 'idle' };
  private run: Run | null = null;
  /** Bumped by stop and restart: a start or a timer of an earlier generation gives up. */
  private generation = 0;
  private attempts = 0;
  /** When the recent crashes happened. */
  private crashes: number[] = [];
  /** The port a port-0 start got, kept so that a restarted server is found at the same address. */
  private stickyPort: number | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private waiters: { resolve: (info: ServerInfo) => void; reject: (err: Error) => void }[] = [];
  /** Stops and restarts, one after the other (two at once would leave two children). */
  private transitions: Promise<void> = Promise.resolve();
  private pendingTransitions = 0;
  private requestIds = 0;

  constructor(private readonly options: ServerHostOptions) {
    this.place = { dataDir: options.dataDir, port: options.port ?? 0, bind: options.bind ?? '127.0.0.1', httpsPort: options.httpsPort };
    this.entry = options.entry ?? defaultEntry();
    this.spawner = options.spawner ?? nodeSpawner();
    this.now = options.now ?? Date.now;
    this.logFile = options.logFile ?? join(dirname(options.dataDir), 'hearth-server.log');
    this.log = new LogFile(this.logFile, options.maxLogBytes ?? 5 * 1024 * 1024, this.now);
  }

  /** The current state. */
  get state(): HostState {
    return this.current;
  }

  /** Where the server is reached while it is ready; null otherwise. */
  get info(): ServerInfo | null {
    return this.current.state === 'ready' ? this.current.info : null;
  }

  /** The child's process id, while there is a child. */
  get pid(): number | undefined {
    return this.run?.child.pid;
  }

  /** Listens to state changes; returns the function that stops listening. */
  on(listener: (state: HostState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Starts the server; resolves once it is ready and healthy (after restarts, if the first tries
   * crash), rejects when the host gives up (the `failed` message) or is stopped first. While it
   * runs already, resolves as soon as it is ready. Its rejection need not be handled: the states
   * say the same.
   */
  start(): Promise<ServerInfo> {
    if (this.current.state === 'ready') return Promise.resolve(this.current.info);
    const waiting = this.waitForReady();
    if (this.run === null && this.restartTimer === null && this.pendingTransitions === 0) {
      this.crashes = [];
      this.log.open();
      void this.launch();
    }
    return waiting;
  }

  /**
   * Stops the server gracefully: asks the child to close (it waits for its queues and closes the
   * database), waits for it to exit, and kills it after `stopTimeoutMs`. A start waiting for ready
   * is rejected.
   */
  stop(): Promise<void> {
    return this.queue(() => this.stopNow());
  }

  /**
   * Stops the server gracefully and starts it again, on a changed place if given (another data
   * directory, a restored one, another port); resolves once it serves again. Stops and restarts
   * run one after the other, in the order asked.
   */
  restart(changes: Partial<ServerPlace> = {}): Promise<ServerInfo> {
    const restarted = new Promise<ServerInfo>((resolve, reject) => {
      this.queue(async () => {
        // The wait begins here, not at the call: a stop queued ahead must not reject this restart.
        this.waitForReady().then(resolve, reject);
        await this.restartNow(changes);
      }).catch(reject);
    });
    // As with start(): the states say the same, so an unawaited restart leaves no unhandled rejection.
    restarted.catch(() => {});
    return restarted;
  }

  private async restartNow(changes: Partial<ServerPlace>): Promise<void> {
    this.generation++;
    this.clearTimer();
    const run = this.run;
    this.run = null;
    this.emit({ state: 'restarting', delayMs: 0, reason: 'request' });
    if (run) await this.end(run);
    if (changes.port !== undefined && changes.port !== this.place.port) this.stickyPort = null;
    if (changes.dataDir !== undefined && changes.dataDir !== this.place.dataDir) this.stickyPort = null;
    this.place = {
      dataDir: changes.dataDir ?? this.place.dataDir,
      port: changes.port ?? this.place.port,
      bind: changes.bind ?? this.place.bind,
      httpsPort: 'httpsPort' in changes ? changes.httpsPort : this.place.httpsPort,
    };
    this.crashes = [];
    this.log.open();
    void this.launch();
  }

  private queue(step: () => Promise<void>): Promise<void> {
    this.pendingTransitions++;
    const next = this.transitions.then(step).finally(() => this.pendingTransitions--);
    this.transitions = next.catch(() => {});
    return next;
  }

  /**
   * An access token of the instance's owner for the app's own use (null while there is no owner),
   * asked of the running server. A new server process gives a new token (the one before is then
   * revoked): ask again after each `ready`.
   */
  ownerToken(timeoutMs = 10_000): Promise<string | null> {
    const run = this.run;
    if (!run || run.readyAt === null || run.exit) return Promise.reject(new Error('The Hearth server is not running'));
    const id = ++this.requestIds;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        run.tokens.delete(id);
        reject(new Error('The Hearth server did not answer'));
      }, timeoutMs);
      run.tokens.set(id, { resolve, reject, timer });
      run.child.postMessage({ type: 'owner-token', id });
    });
  }

  private emit(state: HostState): void {
    this.current = state;
    for (const listener of [...this.listeners]) {
      try {
        listener(state);
      } catch (err) {
        console.error('hearth: a server state listener failed:', err);
      }
    }
  }

  private waitForReady(): Promise<ServerInfo> {
    const waiting = new Promise<ServerInfo>((resolve, reject) => this.waiters.push({ resolve, reject }));
    // The states tell the same story: a caller that does not wait for this promise (the app
    // follows the states) must not leave an unhandled rejection behind.
    waiting.catch(() => {});
    return waiting;
  }

  private settle(result: ServerInfo | Error): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) {
      if (result instanceof Error) w.reject(result);
      else w.resolve(result);
    }
  }

  private clearTimer(): void {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
  }

  /** Starts a child and follows it until it serves, or counts its failure as a crash. */
  private async launch(): Promise<void> {
    const generation = this.generation;
    const attempt = ++this.attempts;
    this.emit({ state: 'starting', attempt });
    const childOptions: ChildOptions = { dataDir: this.place.dataDir, port: this.stickyPort ?? this.place.port, bind: this.place.bind };
    if (this.place.httpsPort !== undefined) childOptions.httpsPort = this.place.httpsPort;
    this.log.line(`starting the server (attempt ${attempt}): ${JSON.stringify(childOptions)}`);
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(this.options.env ?? process.env)) if (value !== undefined) env[key] = value;
    env[OPTIONS_ENV] = JSON.stringify(childOptions);
    let child: HostedChild;
    try {
      child = this.spawner.spawn({ entry: this.entry, args: [], env });
    } catch (err) {
      // Nothing was started (Electron not ready, no such entry): trying again would not help.
      return this.giveUp(`The Hearth server could not be started: ${(err as Error).message}. Its log: ${this.logFile}`);
    }
    const run = this.follow(child);
    this.run = run;
    let info: ServerInfo;
    try {
      info = await this.serving(run);
    } catch (err) {
      if (run.expected || generation !== this.generation) return;
      if (this.endedCleanly(run)) return this.stoppedFromOutside(run);
      // A start that failed (exited, not ready in time, not healthy) is a crash; a port kept from
      // an earlier run is let go, in case something else took it.
      run.expected = true;
      if (!run.exit) run.child.kill('SIGKILL');
      await run.exited;
      this.stickyPort = null;
      this.crashed(run, (err as Error).message);
      return;
    }
    if (run.expected || generation !== this.generation || run.exit) return;
    run.readyAt = this.now();
    if (this.place.port === 0) this.stickyPort = Number(new URL(info.url).port);
    const startMs = run.readyAt - run.spawnedAt;
    run.startMs = startMs;
    this.log.line(`the server is ready at ${info.url} (pid ${run.child.pid}), ${startMs} ms after it was started`);
    this.emit({ state: 'ready', info, pid: run.child.pid, startMs });
    this.settle(info);
  }

  /** Wires a new child: output to the log, messages, exit. */
  private follow(child: HostedChild): Run {
    let exited!: () => void;
    let ready!: (info: ServerInfo) => void;
    const run: Run = {
      child,
      spawnedAt: this.now(),
      readyAt: null,
      startMs: 0,
      info: null,
      fatal: null,
      expected: false,
      exit: null,
      exited: new Promise<void>((resolve) => (exited = resolve)),
      ready: new Promise<ServerInfo>((resolve) => (ready = resolve)),
      output: Promise.all([this.log.follow(child.stdout), this.log.follow(child.stderr)]).then(() => {}),
      tokens: new Map(),
    };
    child.onMessage((raw) => {
      const message = parseChildMessage(raw);
      if (!message) return this.log.line(`an unknown message from the server was dropped: ${JSON.stringify(raw)?.slice(0, 200)}`);
      if (message.type === 'ready') {
        run.info = message.info;
        if (run.readyAt === null) ready(message.info);
        // Restarted in its process (POST /api/hearth/restart): what it serves may have changed.
        else if (this.run === run) this.emit({ state: 'ready', info: message.info, pid: child.pid, startMs: run.startMs });
      } else if (message.type === 'owner-token') {
        const request = run.tokens.get(message.id);
        if (!request) return;
        run.tokens.delete(message.id);
        clearTimeout(request.timer);
        if (message.error !== null) request.reject(new Error(message.error));
        else request.resolve(message.token);
      } else if (message.type === 'fatal') run.fatal = message.message;
    });
    child.onExit((code, signal) => {
      run.exit = { code, signal };
      this.log.line(`the server (pid ${child.pid ?? 'none'}) ended: ${signal ? `signal ${signal}` : `code ${code}`}${run.expected ? '' : ', unexpectedly'}`);
      for (const request of run.tokens.values()) {
        clearTimeout(request.timer);
        request.reject(new Error('The Hearth server stopped'));
      }
      run.tokens.clear();
      exited();
      // A crash while starting is handled where the start is followed (launch).
      if (run.expected || this.run !== run || run.readyAt === null) return;
      if (this.endedCleanly(run)) this.stoppedFromOutside(run);
      else this.crashed(run, this.exitReason(run));
    });
    return run;
  }

  /**
   * Whether the child closed the server and exited 0 on its own: stopped from outside (SIGTERM from
   * the system or a task manager, Ctrl-C in a terminal), which is no crash.
   */
  private endedCleanly(run: Run): boolean {
    return run.exit !== null && run.exit.code === 0 && run.exit.signal === null && run.fatal === null;
  }

  /** A child stopped from outside: the host is stopped too, and restarts it only when asked. */
  private stoppedFromOutside(run: Run): void {
    if (this.run === run) this.run = null;
    this.log.line('the server was stopped from outside; it is not restarted');
    this.emit({ state: 'stopped' });
    this.settle(new Error('The Hearth server was stopped from outside before it was ready'));
  }

  private exitReason(run: Run): string {
    if (run.fatal) return run.fatal;
    const exit = run.exit;
    if (!exit) return 'the server ended';
    return exit.signal ? `the server was ended by ${exit.signal}` : `the server exited with code ${exit.code}`;
  }

  /** Resolves when the child said ready and /health answers 200; rejects on exit or timeout. */
  private async serving(run: Run): Promise<ServerInfo> {
    const timeoutMs = this.options.readyTimeoutMs ?? 120_000;
    const deadline = this.now() + timeoutMs;
    const tooLate = new Error(`the server was not ready within ${timeoutMs / 1000} s`);
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      run.ready,
      run.exited.then(() => null),
      new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs))),
    ]);
    clearTimeout(timer);
    if (outcome === 'late') throw tooLate;
    if (outcome === null) throw new Error(this.exitReason(run));
    await waitForHealth(outcome.url, deadline, this.now, () => run.exit !== null || run.expected);
    if (run.exit) throw new Error(this.exitReason(run));
    return outcome;
  }

  private giveUp(message: string): void {
    this.log.line(`giving up: ${message}`);
    this.emit({ state: 'failed', message, logFile: this.logFile });
    this.settle(new Error(message));
  }

  /** Counts a crash; restarts after a pause, or gives up after too many. */
  private crashed(run: Run, message: string): void {
    if (this.run === run) this.run = null;
    const at = this.now();
    const healthyResetMs = this.options.healthyResetMs ?? 60_000;
    const { count, windowMs } = this.options.crashLimit ?? { count: 5, windowMs: 120_000 };
    const { initialMs, maxMs } = this.options.backoff ?? { initialMs: 500, maxMs: 30_000 };
    if (run.readyAt !== null && at - run.readyAt >= healthyResetMs) this.crashes = [];
    this.crashes = this.crashes.filter((t) => at - t < windowMs);
    this.crashes.push(at);
    this.log.line(`crash ${this.crashes.length} within ${windowMs / 1000} s (giving up at ${count}): ${message}`);
    this.emit({ state: 'crashed', message });
    if (this.crashes.length >= count) {
      return this.giveUp(`The Hearth server stopped ${count === 1 ? 'once' : `${count} times`} within ${Math.round(windowMs / 1000)} seconds, so it is not started again. The last time: ${message}. Its log: ${this.logFile}`);
    }
    const pause = Math.min(initialMs * 2 ** (this.crashes.length - 1), maxMs);
    this.emit({ state: 'restarting', delayMs: pause, reason: 'crash' });
    const generation = this.generation;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (generation === this.generation) void this.launch();
    }, pause);
  }

  /** Asks a child to stop, waits for it (killing it after the timeout), and for its last output. */
  private async end(run: Run): Promise<void> {
    run.expected = true;
    if (!run.exit) {
      run.child.postMessage({ type: 'stop' });
      // A child still starting may not listen to messages yet: SIGTERM, which it handles as a stop
      // once it can (and which ends it before that). Not once it serves: on Windows it is no signal
      // but the end of the process.
      if (run.readyAt === null) run.child.kill('SIGTERM');
      const timeoutMs = this.options.stopTimeoutMs ?? 30_000;
      let timer: NodeJS.Timeout | undefined;
      const ended = await Promise.race([run.exited.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)))]);
      clearTimeout(timer);
      if (!ended && !run.exit) {
        this.log.line(`the server did not stop within ${timeoutMs / 1000} s; killing it`);
        run.child.kill('SIGKILL');
        await run.exited;
      }
    }
    await Promise.race([run.output, new Promise((resolve) => setTimeout(resolve, 1000))]);
  }

  private async stopNow(): Promise<void> {
    this.generation++;
    this.clearTimer();
    const run = this.run;
    this.run = null;
    if (run === null && (this.current.state === 'idle' || this.current.state === 'stopped')) return;
    this.emit({ state: 'stopping' });
    if (run) await this.end(run);
    this.emit({ state: 'stopped' });
    this.settle(new Error('The Hearth server was stopped before it was ready'));
    await this.log.close();
  }
}
