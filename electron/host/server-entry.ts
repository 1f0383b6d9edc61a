// The entry of the server's child process (the server host spawns it: electron/host/server-host.ts).
// In the app it runs in Electron's utilityProcess, whose channel to the main process is
// `process.parentPort` (messages arrive as `{ data }` events); under Node (tests, benchmarks) it runs
// in child_process.fork, whose channel is `process.send` and `process.on('message')`. It reads its
// options from HEARTH_DESKTOP_SERVER (JSON; see messages.ts), starts the instance through
// api/desktop.ts, says `ready`, and answers the host's requests. On `stop`, SIGTERM, SIGINT or the
// host's channel closing, it closes the server gracefully (the server's close waits for its queues
// and closes the database) and exits 0. When the server cannot start it says `fatal` and exits 1.
import v8 from 'node:v8';
import type { DesktopServer } from '../../api/desktop.js';
import { parseChildOptions, parseHostMessage, type ChildMessage, type ChildOptions } from './messages.js';

// As bin/hearth.js does for `hearth serve`: V8 would size its young generation for the start-up
// burst and keep it (about 10 MiB more resident memory while idle), so it does not grow while
// starting, and grows again as load asks afterwards.
v8.setFlagsFromString('--semi-space-growth-factor=1');
setTimeout(() => v8.setFlagsFromString('--semi-space-growth-factor=2'), 5000).unref();

/** Electron's port to the main process in a utilityProcess (not typed here: no 'electron' import). */
interface ParentPort {
  on(event: 'message', listener: (event: { data: unknown }) => void): unknown;
  postMessage(message: unknown): void;
}

/** The channel to the host, whichever process kind this is. */
interface Channel {
  send(message: ChildMessage): void;
  /** Resolves once what was sent has left (before an exit). */
  flush(): Promise<void>;
  onMessage(listener: (message: unknown) => void): void;
  /** Told when the host is gone (Node's IPC channel closed); utilityProcess ends with its parent. */
  onClose(listener: () => void): void;
}

function hostChannel(): Channel {
  const port = (process as unknown as { parentPort?: ParentPort }).parentPort;
  if (port) {
    return {
      send: (message) => port.postMessage(message),
      // No delivery callback here: a short pause lets the last messages leave.
      flush: () => new Promise((resolve) => setTimeout(resolve, 50)),
      onMessage: (listener) => void port.on('message', (event) => listener(event.data)),
      onClose: () => {},
    };
  }
  if (process.send) {
    let sent: Promise<void> = Promise.resolve();
    return {
      send: (message) => {
        if (!process.connected || !process.send) return;
        const send = process.send.bind(process);
        // Messages leave in order: each flush waits for the last one's callback.
        sent = new Promise((resolve) => send(message, undefined, {}, () => resolve()));
      },
      flush: () => sent,
      onMessage: (listener) => void process.on('message', listener),
      onClose: (listener) => void process.once('disconnect', listener),
    };
  }
  // Run by hand (no host): messages go to the output.
  return {
    send: (message) => console.log(JSON.stringify(message)),
    flush: async () => {},
    onMessage: () => {},
    onClose: () => {},
  };
}

const channel = hostChannel();
let server: DesktopServer | null = null;
let starting: Promise<DesktopServer | null> | null = null;
let stopping = false;

async function fail(message: string): Promise<never> {
  console.error(`hearth: ${message}`);
  channel.send({ type: 'fatal', message });
  await channel.flush();
  process.exit(1);
}

/** Closes the server (once it has started, if it is starting) and exits 0. */
async function stop(reason: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`Stopping the server (${reason})`);
  try {
    const running = server ?? (await starting);
    await running?.close();
  } catch (err) {
    // Closing failed half-way: exit 1 so the host's log shows it; committed writes are on disk.
    await fail(`the server did not close cleanly: ${(err as Error).message}`);
  }
  console.log('Server stopped');
  channel.send({ type: 'stopped' });
  await channel.flush();
  process.exit(0);
}

channel.onMessage((raw) => {
  const message = parseHostMessage(raw);
  if (!message) return;
  if (message.type === 'stop') {
    void stop('asked by the host');
    return;
  }
  let token: string | null = null;
  let error: string | null = null;
  if (!server) error = 'the server is not running';
  else {
    try {
      token = server.ownerToken();
    } catch (err) {
      error = (err as Error).message;
    }
  }
  channel.send({ type: 'owner-token', id: message.id, token, error });
});
channel.onClose(() => void stop('the host is gone'));
process.once('SIGTERM', () => void stop('SIGTERM'));
process.once('SIGINT', () => void stop('SIGINT'));
// An error nothing caught ends the process, as it would anyway, but the host is told why first.
process.on('uncaughtException', (err) => {
  console.error(err);
  void fail(`the server failed: ${err.message}`);
});

/** Reads the options, loads and starts the server, and says ready. */
async function main(): Promise<void> {
  let options: ChildOptions;
  try {
    options = parseChildOptions(process.env, process.argv.slice(2));
  } catch (err) {
    return fail((err as Error).message);
  }
  // Loaded only now: the handlers above are in place first, so a stop asked while the server
  // loads (hundreds of modules) is heard.
  const { startDesktopServer } = await import('../../api/desktop.js');
  // Asked to stop while loading: that stop exits; nothing is started.
  if (stopping) return;
  starting = startDesktopServer({
    ...options,
    onRestart: (info) => channel.send({ type: 'ready', info }),
  }).then(
    (started) => started,
    async (err: unknown) => {
      await fail(`the server could not start: ${err instanceof Error ? err.message : String(err)}`);
      return null;
    },
  );
  server = await starting;
  if (server && !stopping) {
    console.log(`Ready ${Math.round(process.uptime() * 1000)} ms after the process started`);
    channel.send({ type: 'ready', info: server.info() });
  }
}

void main();
