// Real processes for the relay's acceptance tests: a relay, an instance that federates through it,
// and a peer instance, each a `hearth` process. Where the machine allows it (root, `ip netns`), the
// instance and the peer live in network namespaces of their own, joined to this one by veth pairs,
// with no route between them: the peer cannot reach the instance at all, and the instance reaches
// nothing but the relay. Elsewhere they use loopback addresses, and the peer is never told the
// instance's.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestClient } from '../helpers/client.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin/hearth.js');

/** Where each party lives. */
export interface Net {
  kind: 'netns' | 'loopback';
  /** The relay's address on the instance's side (the tunnel is dialled there). */
  relayForInstance: string;
  /** The relay's address on the peer's side (tenant hosts are there). */
  relayForPeer: string;
  instance: string;
  peer: string;
  /** Command prefix to run a program in the instance's or the peer's namespace. */
  prefix(side: 'instance' | 'peer'): string[];
  cleanup(): void;
}

function run(cmd: string, args: string[]): void {
  execFileSync(cmd, args, { stdio: 'pipe' });
}

/**
 * Sets up the namespaces (or the loopback fallback) for one test file. Two test files running at
 * once may draw the same subnet: a few draws are tried before falling back to loopback.
 */
export function makeNet(): Net {
  for (let attempt = 0; attempt < 5; attempt++) {
    const net = tryNet(20 + Math.floor(Math.random() * 200));
    if (net.kind === 'netns' || attempt === 4 || !canMakeNamespaces()) return net;
    net.cleanup();
  }
  throw new Error('unreachable');
}

/** Whether this process may make network namespaces (root with iproute2). */
function canMakeNamespaces(): boolean {
  try {
    run('ip', ['netns', 'list']);
    return process.getuid?.() === 0;
  } catch {
    return false;
  }
}

function tryNet(n: number): Net {
  const tag = `${process.pid % 10000}${n}`.slice(-6);
  const nsA = `hA${tag}`;
  const nsP = `hP${tag}`;
  try {
    run('ip', ['netns', 'add', nsA]);
    run('ip', ['netns', 'add', nsP]);
    for (const [ns, net, side] of [[nsA, `10.77.${n}`, 'a'], [nsP, `10.78.${n}`, 'p']] as const) {
      const outer = `v${side}${tag}`;
      const inner = `w${side}${tag}`;
      run('ip', ['link', 'add', outer, 'type', 'veth', 'peer', 'name', inner]);
      run('ip', ['link', 'set', inner, 'netns', ns]);
      run('ip', ['addr', 'add', `${net}.1/24`, 'dev', outer]);
      run('ip', ['link', 'set', outer, 'up']);
      run('ip', ['-n', ns, 'addr', 'add', `${net}.2/24`, 'dev', inner]);
      run('ip', ['-n', ns, 'link', 'set', inner, 'up']);
      run('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
    }
    return {
      kind: 'netns',
      relayForInstance: `10.77.${n}.1`,
      relayForPeer: `10.78.${n}.1`,
      instance: `10.77.${n}.2`,
      peer: `10.78.${n}.2`,
      prefix: (side) => ['ip', 'netns', 'exec', side === 'instance' ? nsA : nsP],
      cleanup() {
        for (const ns of [nsA, nsP]) {
          try {
            run('ip', ['netns', 'del', ns]);
          } catch {
            // already gone
          }
        }
        for (const side of ['a', 'p']) {
          try {
            run('ip', ['link', 'del', `v${side}${tag}`]);
          } catch {
            // removed with its namespace
          }
        }
      },
    };
  } catch {
    // No namespaces here (not root, no iproute2): loopback addresses the peer is never told.
    for (const ns of [nsA, nsP]) {
      try {
        run('ip', ['netns', 'del', ns]);
      } catch {
        // never made
      }
    }
    for (const side of ['a', 'p']) {
      try {
        run('ip', ['link', 'del', `v${side}${tag}`]);
      } catch {
        // never made, or gone with its namespace
      }
    }
    return {
      kind: 'loopback',
      relayForInstance: '127.0.0.1',
      relayForPeer: `127.0.${n}.1`,
      instance: `127.0.${n}.2`,
      peer: `127.0.${n}.3`,
      prefix: () => [],
      cleanup() {},
    };
  }
}

/** A free port (the same number is free on every address of this machine, namespaces aside). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '0.0.0.0', () => {
      const address = s.address();
      s.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** A `hearth` process with its output kept for failures. */
export interface Proc {
  child: ChildProcess;
  output(): string;
  /** SIGTERM and wait (graceful), or SIGKILL. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Runs `hearth ARGS` (in a namespace when `prefix` says so) in the background. */
export function startProc(prefix: string[], args: string[], env: Record<string, string> = {}): Proc {
  const [cmd, ...rest] = [...prefix, process.execPath, bin, ...args];
  const child = spawn(cmd as string, rest, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  // HEARTH_TEST_LOGS=DIR keeps every process's output in a file there as well (for debugging).
  const logDir = process.env.HEARTH_TEST_LOGS;
  const log = logDir ? createWriteStream(join(logDir, `${args[0] === 'relay' ? 'relay' : 'instance'}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}.log`)) : null;
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
    log?.write(d);
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
    log?.write(d);
  });
  return {
    child,
    output: () => out,
    stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      return new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill(signal);
      });
    },
  };
}

/** Runs `hearth ARGS` to the end; resolves with its standard output. */
export function hearth(args: string[], prefix: string[] = []): string {
  const [cmd, ...rest] = [...prefix, process.execPath, bin, ...args];
  return execFileSync(cmd as string, rest, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Waits until `url` answers /health with 200. */
export async function waitHealthy(url: string, proc: Proc, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(`${url}/health`);
      if (res.status === 200) return;
    } catch {
      // not yet
    }
    if (proc.child.exitCode !== null) throw new Error(`process exited (${proc.child.exitCode}):\n${proc.output()}`);
    if (Date.now() > deadline) throw new Error(`not healthy in ${timeoutMs} ms:\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A relay process. */
export interface RelayProc {
  proc: Proc;
  dataDir: string;
  port: number;
  /** Tunnel address as the instance dials it. */
  url: string;
  /** The relay's data directory stays; starts the process again (after a kill). */
  restart(): Promise<void>;
  /** `hearth relay tenant add`: the enrolment code. */
  addTenant(host: string, quota?: string): string;
  close(): Promise<void>;
}

/** Starts `hearth relay serve` on all addresses, its own domain the address the instance dials. */
export async function startRelayProc(net: Net, databaseUrl?: string): Promise<RelayProc> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-relay-proc-'));
  const url = `http://${net.relayForInstance}:${port}`;
  const args = ['relay', 'serve', '--data', dataDir, '--port', String(port), '--bind', '0.0.0.0', '--domain', `${net.relayForInstance}:${port}`, '--allow-loopback'];
  if (databaseUrl) args.push('--database', databaseUrl);
  const self: RelayProc = {
    proc: startProc([], args),
    dataDir,
    port,
    url,
    async restart() {
      self.proc = startProc([], args);
      await waitHealthy(url, self.proc);
    },
    addTenant(host, quota) {
      const extra = databaseUrl ? ['--database', databaseUrl] : [];
      return hearth(['relay', 'tenant', 'add', '--data', dataDir, '--host', host, ...extra, ...(quota ? ['--quota', quota] : [])]).trim();
    },
    async close() {
      await self.proc.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  await waitHealthy(url, self.proc);
  return self;
}

/** An instance process and what tests need to drive it. */
export interface InstanceProc {
  proc: Proc;
  dataDir: string;
  /** Where this test process reaches its API. */
  url: string;
  /** Its public origin. */
  origin: string;
  /** A client with the token of a user made before start. */
  client(username: string): TestClient;
  /** Starts the process again on its data (after stop or kill). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts an instance process: users made first with the CLI (with tokens), then `hearth serve`
 * with `serveArgs` (its origin or its relay).
 */
export async function startInstanceProc(
  net: Net,
  side: 'instance' | 'peer',
  users: string[],
  serveArgs: (port: number) => string[],
  originOf: (port: number) => string,
): Promise<InstanceProc> {
  const port = await freePort();
  const address = side === 'instance' ? net.instance : net.peer;
  const dataDir = mkdtempSync(join(tmpdir(), `hearth-${side}-proc-`));
  const tokens = new Map<string, string>();
  for (const name of users) {
    hearth(['account', 'create', '--data', dataDir, '--username', name, '--password', `${name}-password-123`, '--role', name === users[0] ? 'owner' : 'user']);
    tokens.set(name, hearth(['token', '--data', dataDir, '--username', name]).trim());
  }
  const args = ['serve', '--data', dataDir, '--port', String(port), '--bind', address, '--federation-allow-loopback', ...serveArgs(port)];
  const url = `http://${address}:${port}`;
  const self: InstanceProc = {
    proc: startProc(net.prefix(side), args),
    dataDir,
    url,
    origin: originOf(port),
    client(username) {
      const token = tokens.get(username);
      if (!token) throw new Error(`no user ${username}`);
      return new TestClient(url, token);
    },
    async restart() {
      self.proc = startProc(net.prefix(side), args);
      await waitHealthy(url, self.proc);
    },
    async close() {
      await self.proc.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  await waitHealthy(url, self.proc);
  return self;
}
