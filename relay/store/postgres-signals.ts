// Signals between relay processes sharing a PostgreSQL database: NOTIFY on one channel, and one
// connection per process that LISTENs to it and hands what arrives to the process's listeners.
import { Client, type ClientConfig, type Notification } from 'pg';
import { deliverSignal, parseSignal } from './common.js';
import type { RelaySignal } from './types.js';

/** The channel every relay process listens on (NOTIFY reaches only the same database). */
export const SIGNAL_CHANNEL = 'hearth_relay';

/** How the listening connection shows in pg_stat_activity. */
export const LISTENER_APPLICATION = 'hearth-relay-listen';

const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5_000;

/**
 * The process's listening connection, opened with the first listener. A connection that drops
 * (a restarted server, a killed backend) is replaced, with back-off, and listens again; signals
 * sent while it was gone are lost, so whoever relies on them also polls now and then.
 */
export class SignalListener {
  private client: Client | null = null;
  private connecting: Promise<void> | null = null;
  private readonly listeners = new Set<(signal: RelaySignal) => void>();
  private retryMs = RETRY_FIRST_MS;
  private retryTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly config: ClientConfig) {}

  /** Adds a listener; resolves once the connection listens, so no later signal is missed. */
  async add(listener: (signal: RelaySignal) => void): Promise<() => Promise<void>> {
    if (this.closed) throw new Error('the relay store is closed');
    // Wrapped, so that the same function may listen twice and stop each listening on its own.
    const own = (signal: RelaySignal) => listener(signal);
    this.listeners.add(own);
    try {
      await this.connect();
    } catch (err) {
      this.listeners.delete(own);
      throw err;
    }
    return async () => {
      this.listeners.delete(own);
    };
  }

  /** Opens the listening connection unless it is open or opening. */
  private connect(): Promise<void> {
    if (this.client) return Promise.resolve();
    this.connecting ??= this.open().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async open(): Promise<void> {
    const client = new Client({ ...this.config, application_name: LISTENER_APPLICATION });
    // Until it is ours, errors surface through connect() and the query below.
    const early = (err: Error) => void err;
    client.on('error', early);
    try {
      await client.connect();
      await client.query(`LISTEN ${SIGNAL_CHANNEL}`);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    client.off('error', early);
    if (this.closed) {
      await client.end();
      return;
    }
    client.on('notification', (message: Notification) => this.received(message));
    client.on('error', (err: Error) => this.lost(client, err));
    client.on('end', () => this.lost(client, null));
    this.client = client;
    this.retryMs = RETRY_FIRST_MS;
  }

  private received(message: Notification): void {
    if (message.channel !== SIGNAL_CHANNEL || message.payload === undefined) return;
    const signal = parseSignal(message.payload);
    if (signal === null) {
      console.error(`relay store: ignored a malformed signal: ${message.payload.slice(0, 200)}`);
      return;
    }
    deliverSignal(this.listeners, signal);
  }

  /** The connection broke: forget it and open another (unless closing). */
  private lost(client: Client, err: Error | null): void {
    if (this.client !== client) return;
    this.client = null;
    client.removeAllListeners('notification');
    // Ending a broken client may fail in turn; it is gone either way.
    void client.end().catch(() => undefined);
    if (this.closed) return;
    console.error(`relay store: the signal connection to PostgreSQL was lost${err ? ` (${err.message})` : ''}; reconnecting`);
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.retryTimer || this.closed) return;
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connect().catch((err: unknown) => {
        console.error(`relay store: reconnecting the signal connection failed (${err instanceof Error ? err.message : String(err)}); retrying`);
        this.scheduleRetry();
      });
    }, delay);
  }

  /** Whether the connection listens now (for tests and health). */
  get listening(): boolean {
    return this.client !== null;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    await this.connecting?.catch(() => undefined);
    const client = this.client;
    this.client = null;
    if (client) {
      client.removeAllListeners('end');
      await client.end();
    }
  }
}
