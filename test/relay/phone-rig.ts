import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { newEnrolmentCode } from '../../relay/cli.js';
import { resolveRelayConfig, type RelayConfig } from '../../relay/config.js';
import { tenantOrigin } from '../../relay/hosts.js';
import { createRelay } from '../../relay/server.js';
import { hashCode } from '../../relay/tunnel/server.js';
import { eventually, freePort } from '../federation/helpers.js';
import type { TestRelay } from './rig.js';

// The rig for phones through the relay. The instance runs in a child process (`hearth serve`, as
// built in dist/), as on a desktop: an instance started in the test process would route that
// process's fetch through its relay (egress), so the masto client's requests to the public host
// would themselves be tunnelled before reaching the relay, and its POSTs would be taken for
// deliveries. In a child, the test is a phone: its requests reach the relay like anyone's.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HEARTH = join(ROOT, 'bin/hearth.js');
const run = promisify(execFile);

/** Like rig.ts startRelay (same loopback set-up), with settings of the relay's config changed. */
export async function startRelayWith(overrides: Partial<RelayConfig>): Promise<TestRelay> {
  const port = await freePort('127.0.0.1');
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-relay-'));
  const relay = await createRelay({ ...resolveRelayConfig({ dataDir, port, bind: '0.0.0.0', domain: `127.0.0.1:${port}`, allowLoopback: true }), ...overrides });
  await relay.listen();
  return {
    relay,
    url: `http://127.0.0.1:${port}`,
    port,
    dataDir,
    async addTenant(host, quotaBytes = 1024 * 1024 * 1024) {
      const code = newEnrolmentCode();
      const now = Date.now();
      await relay.store.addTenant({ host, origin: tenantOrigin(host, true), codeHash: hashCode(code), codeExpiresAt: now + 3_600_000, quotaBytes, now });
      return code;
    },
    async close() {
      await relay.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A `hearth` command on a data directory; resolves to its standard output. */
export async function hearth(dataDir: string, ...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [HEARTH, ...args, '--data', dataDir], { cwd: ROOT, env: cleanEnv() });
  return stdout.trim();
}

function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('HEARTH_')));
}

/** An instance in a child process, federating through a relay at `origin`. */
export interface ChildInstance {
  /** Its own listener (`http://127.0.0.1:PORT`), as on the desktop; a restart may change it. */
  readonly url: string;
  /** Its public origin at the relay. */
  origin: string;
  dataDir: string;
  /** A new access token for a user, from `hearth token`. */
  token(username: string, scopes?: string): Promise<string>;
  /** Stops it as the desktop does (SIGTERM: a clean shutdown); resolves once it exited. */
  stop(): Promise<void>;
  /** Starts it again on the same data (enrolled: it logs in); resolves once the relay holds its tunnel. */
  restart(options?: { onStarted?: () => void }): Promise<void>;
  /** Stops it and removes its data. */
  close(): Promise<void>;
}

/**
 * Adds a tenant at `host` (an address with the relay's port), creates the users with the CLI, and
 * runs `hearth serve --relay … --relay-code …` (with `--relay-clients` when asked) until it reports
 * its tunnel connected (`hearth relay status`, as the desktop shows it).
 */
export async function spawnRelayedInstance(
  relay: TestRelay,
  host: string,
  options: { clients: boolean; users: { username: string; password: string }[] },
): Promise<ChildInstance> {
  const tenantHost = `${host}:${relay.port}`;
  const code = await relay.addTenant(tenantHost);
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-child-'));
  for (const user of options.users) {
    await hearth(dataDir, 'account', 'create', '--username', user.username, '--password', user.password, '--email', `${user.username}@example.test`);
  }
  const args = ['serve', '--data', dataDir, '--port', '0', '--relay', relay.url, '--federation-allow-loopback'];
  if (options.clients) args.push('--relay-clients');
  let running = await serve([...args, '--relay-code', code]);
  await connected(dataDir);
  let stopped: Promise<void> | null = null;
  const stop = () => (stopped ??= exited(running.child));
  return {
    get url() {
      return running.url;
    },
    origin: `http://${tenantHost}`,
    dataDir,
    token: (username, scopes = 'read write follow push') => hearth(dataDir, 'token', '--username', username, '--scopes', scopes),
    stop,
    async restart(restartOptions = {}) {
      await stop();
      running = await serve(args);
      stopped = null;
      restartOptions.onStarted?.();
      await connected(dataDir);
    },
    async close() {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs `hearth serve …` until it listens. */
async function serve(args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [HEARTH, ...args], { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr?.on('data', (c: Buffer) => (output += c.toString('utf8')));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`hearth serve did not start:\n${output}`)), 20_000);
    child.stdout?.on('data', (c: Buffer) => {
      output += c.toString('utf8');
      const m = /Hearth is listening on (http:\/\/\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1] as string);
      }
    });
    child.once('exit', (code) => reject(new Error(`hearth serve exited (${String(code)}):\n${output}`)));
  });
  return { child, url };
}

/** Resolves once the instance's connector reports its tunnel connected. */
async function connected(dataDir: string): Promise<void> {
  await eventually(async () => (JSON.parse(await hearth(dataDir, 'relay', 'status')) as { connected: boolean }).connected, 20_000);
}

/** Sends SIGTERM (a clean shutdown, as when the desktop quits) and resolves once the child exited. */
function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}

/** An answer read whole. */
export interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  text: string;
}

/**
 * A request as a phone makes it (node:http, so exactly the path and Host given are sent), from
 * `localAddress` when given: the relay counts client requests per address.
 */
export function phoneRequest(
  url: string,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: string; localAddress?: string } = {},
): Promise<Answer> {
  const target = new URL(url);
  return new Promise((done, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        method: options.method ?? 'GET',
        path: options.path ?? `${target.pathname}${target.search}`,
        headers: { host: target.host, ...options.headers },
        localAddress: options.localAddress,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A server-sent events stream kept open: its status, the text so far, and how it ended. */
export interface EventStream {
  status: number;
  headers: IncomingMessage['headers'];
  text(): string;
  /** Resolves once the text matches. */
  until(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Resolves once the server ended the stream (normally or not). */
  ended: Promise<void>;
  close(): void;
}

/** Opens `GET url` with `Accept: text/event-stream` and keeps reading. */
export function openEventStream(url: string, headers: Record<string, string>): Promise<EventStream> {
  const target = new URL(url);
  return new Promise((done, reject) => {
    const req = request(
      { host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, headers: { host: target.host, accept: 'text/event-stream', ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        const ended = new Promise<void>((end) => {
          res.on('close', () => end());
          res.on('error', () => end());
        });
        done({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: () => text,
          until: (pattern, timeoutMs = 10_000) => eventually(() => pattern.test(text), timeoutMs).then(() => undefined),
          ended,
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
