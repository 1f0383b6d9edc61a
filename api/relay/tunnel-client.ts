import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import WebSocket from 'ws';
import {
  authMessage,
  decodeToInstance,
  encodeFrame,
  HEARTBEAT_MS,
  MAX_FRAME_BYTES,
  PROTOCOL_VERSION,
  TUNNEL_PATH,
  type Refusal,
  type ToInstance,
  type ToRelay,
} from '../../relay/protocol.js';

/** HEARTH_DEBUG_RELAY=1 logs the tunnel's connections and drops (for debugging). */
const debug = process.env.HEARTH_DEBUG_RELAY === '1' ? (...args: unknown[]) => console.log('relay tunnel:', ...args) : null;

/** How the instance proves who it is on a new connection. */
export type TunnelCredentials =
  | { kind: 'login'; host: string; privateKey: KeyObject }
  | { kind: 'enrol'; code: string; publicKey: string; privateKey: KeyObject };

/** What the relay said when it let the instance in. */
export interface Welcome {
  host: string;
  origin: string;
  clients: boolean;
  backlog: number;
}

/** The tunnel as the status shows it. */
export interface TunnelState {
  connected: boolean;
  /** When the current connection was made (ms), or null. */
  since: number | null;
  lastError: string | null;
  lastErrorAt: number | null;
  /** Connection attempts since the last successful one. */
  attempts: number;
}

/** Thrown (and kept as the last error) when the relay refuses the instance. */
export class TunnelRefused extends Error {
  constructor(
    readonly reason: Refusal,
    message: string,
  ) {
    super(`relay refused the tunnel (${reason}): ${message}`);
    this.name = 'TunnelRefused';
  }
}

/** The tunnel's WebSocket URL for a relay address (`https://relay.example` → `wss://relay.example/.hearth/tunnel`). */
export function tunnelUrl(relayUrl: string): string {
  const url = new URL(TUNNEL_PATH, relayUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.href;
}

/**
 * Opens one tunnel connection and logs in (or enrols). Resolves with the open WebSocket and the
 * relay's welcome; rejects with TunnelRefused when the relay says no, or with the network error.
 * Frames after the welcome go to `onFrame`.
 */
export function connectTunnel(
  relayUrl: string,
  credentials: TunnelCredentials,
  clients: boolean,
  onFrame: (frame: ToInstance, body: Buffer) => void,
): Promise<{ ws: WebSocket; welcome: Welcome }> {
  const relayHost = new URL(relayUrl).host;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(tunnelUrl(relayUrl), { perMessageDeflate: false, maxPayload: MAX_FRAME_BYTES, handshakeTimeout: 15_000 });
    let welcomed = false;
    const fail = (err: Error) => {
      if (welcomed) return;
      welcomed = true;
      ws.terminate();
      reject(err);
    };
    const timer = setTimeout(() => fail(new Error('the relay did not let the tunnel in within 20 s')), 20_000);
    ws.on('error', (err) => fail(err));
    ws.on('close', (code, reason) => {
      clearTimeout(timer);
      fail(new Error(`tunnel closed before login (${code} ${reason.toString()})`));
    });
    ws.on('message', (data, isBinary) => {
      if (!isBinary) return fail(new Error('the relay sent a text frame'));
      let decoded;
      try {
        decoded = decodeToInstance(Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]));
      } catch (err) {
        return fail(err as Error);
      }
      const { frame, body } = decoded;
      if (welcomed) return onFrame(frame, body);
      if (frame.t === 'challenge') {
        if (frame.version !== PROTOCOL_VERSION) return fail(new Error(`the relay speaks tunnel protocol ${frame.version}, this instance ${PROTOCOL_VERSION}`));
        // The relay's host as this instance dialled it, not as the challenge names it: a signature
        // is only ever good for the relay the instance meant to reach.
        const answer: ToRelay =
          credentials.kind === 'enrol'
            ? {
                t: 'enrol',
                code: credentials.code,
                publicKey: credentials.publicKey,
                clients,
                signature: sign(null, authMessage('enrol', relayHost, frame.nonce, `${credentials.code}\n${credentials.publicKey}`), credentials.privateKey).toString('base64'),
              }
            : { t: 'login', host: credentials.host, clients, signature: sign(null, authMessage('login', relayHost, frame.nonce, credentials.host), credentials.privateKey).toString('base64') };
        ws.send(encodeFrame(answer));
      } else if (frame.t === 'welcome') {
        welcomed = true;
        clearTimeout(timer);
        ws.removeAllListeners('close');
        ws.removeAllListeners('error');
        resolve({ ws, welcome: { host: frame.host, origin: frame.origin, clients: frame.clients, backlog: frame.backlog } });
      } else if (frame.t === 'refused') {
        fail(new TunnelRefused(frame.reason, frame.message));
      }
    });
  });
}

/** Reconnection delays: full jitter over a doubling ceiling, 1 s to 60 s; longer after a refusal. */
export function reconnectDelay(attempt: number, refused: Refusal | null): number {
  if (refused === 'replaced') return 30_000 + Math.random() * 30_000;
  if (refused) return 5 * 60_000 + Math.random() * 60_000;
  const ceiling = Math.min(60_000, 1000 * 2 ** Math.min(attempt, 6));
  return 500 + Math.random() * ceiling;
}

/** What the long-lived tunnel reports to the connector. */
export interface TunnelEvents {
  onFrame(frame: ToInstance, body: Buffer): void;
  onOpen(welcome: Welcome): void;
  onClose(): void;
  onState(state: TunnelState): void;
}

/**
 * The instance's tunnel to its relay, kept open: it logs in with the tunnel key, answers the
 * relay's pings and pings it too (a silent connection, as after the computer slept, is dropped
 * and made again), and reconnects after any drop with back-off and jitter. A removed tenant stops
 * trying.
 */
export class TunnelClient {
  private ws: WebSocket | null = null;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private beat: NodeJS.Timeout | null = null;
  private lastHeard = 0;
  readonly state: TunnelState = { connected: false, since: null, lastError: null, lastErrorAt: null, attempts: 0 };
  private waiters: (() => void)[] = [];
  /** Why the relay ended the current connection, when it said (a newer tunnel, a removed tenant). */
  private refusal: Refusal | null = null;
  /** A connection attempt is under way (a start after a stop does not make a second one beside it). */
  private connecting = false;

  constructor(
    private readonly relayUrl: string,
    private readonly host: string,
    privateKeyPem: string,
    private readonly clients: boolean,
    private readonly events: TunnelEvents,
  ) {
    this.privateKey = createPrivateKey(privateKeyPem);
  }

  private readonly privateKey: KeyObject;

  /**
   * Starts connecting (and keeps connected until `stop`); may be called again after `stop` (federation
   * paused and resumed). An attempt still under way after a stop carries on instead of a new one.
   */
  start(): void {
    this.stopped = false;
    if (this.ws || this.connecting || this.timer) return;
    void this.connect();
  }

  /** Sends a frame; false when there is no connection (the caller decides what waits). */
  send(frame: ToRelay, body?: Uint8Array): boolean {
    if (!this.ws || !this.state.connected) return false;
    this.ws.send(encodeFrame(frame, body));
    return true;
  }

  /** Bytes queued in the WebSocket, not yet written to the network. */
  get buffered(): number {
    return this.ws?.bufferedAmount ?? 0;
  }

  /** Resolves true once connected (at once if it is), false after `timeoutMs`. */
  whenConnected(timeoutMs: number): Promise<boolean> {
    if (this.state.connected) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve(false);
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.waiters.push(done);
    });
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    this.state.attempts += 1;
    let refused: Refusal | null = null;
    this.connecting = true;
    try {
      const { ws, welcome } = await connectTunnel(this.relayUrl, { kind: 'login', host: this.host, privateKey: this.privateKey }, this.clients, (frame, body) => {
        this.lastHeard = Date.now();
        if (frame.t === 'refused') {
          this.recordError(new TunnelRefused(frame.reason, frame.message));
          this.refusal = frame.reason;
          if (frame.reason === 'removed') this.stopped = true;
          return;
        }
        this.events.onFrame(frame, body);
      });
      this.connecting = false;
      if (this.stopped) {
        ws.close(1000);
        return;
      }
      this.ws = ws;
      this.lastHeard = Date.now();
      Object.assign(this.state, { connected: true, since: Date.now(), attempts: 0 });
      ws.on('pong', () => {
        this.lastHeard = Date.now();
      });
      ws.on('ping', () => {
        this.lastHeard = Date.now();
      });
      ws.on('close', () => this.dropped());
      ws.on('error', (err) => {
        this.recordError(err);
        ws.terminate();
      });
      this.beat = setInterval(() => {
        if (Date.now() - this.lastHeard > HEARTBEAT_MS * 3) {
          this.recordError(new Error('the relay stopped answering'));
          ws.terminate();
          return;
        }
        ws.ping();
      }, HEARTBEAT_MS);
      this.beat.unref();
      debug?.('tunnel open', welcome.host);
      this.events.onOpen(welcome);
      this.events.onState(this.state);
      for (const w of this.waiters.splice(0)) w();
      return;
    } catch (err) {
      this.connecting = false;
      if (err instanceof TunnelRefused) refused = err.reason;
      this.recordError(err as Error);
      if (refused === 'removed') this.stopped = true;
    }
    this.schedule(refused);
  }

  private recordError(err: Error): void {
    debug?.('tunnel error', err.message);
    this.state.lastError = err.message;
    this.state.lastErrorAt = Date.now();
    this.events.onState(this.state);
  }

  private dropped(): void {
    debug?.('tunnel dropped');
    if (this.beat) clearInterval(this.beat);
    this.beat = null;
    this.ws = null;
    const was = this.state.connected;
    Object.assign(this.state, { connected: false, since: null });
    if (was) this.events.onClose();
    this.events.onState(this.state);
    const refusal = this.refusal;
    this.refusal = null;
    this.schedule(refusal);
  }

  private schedule(refused: Refusal | null): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.connect();
    }, reconnectDelay(this.state.attempts, refused));
    this.timer.unref();
  }

  /** Closes the tunnel and stops reconnecting. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const ws = this.ws;
    if (!ws) return;
    await new Promise<void>((resolve) => {
      ws.once('close', () => resolve());
      ws.close(1000, 'instance stopping');
      setTimeout(() => {
        ws.terminate();
        resolve();
      }, 2000).unref();
    });
  }
}
