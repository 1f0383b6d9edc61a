// The desktop's client of the instance's streaming API (issue 17, item 3): the owner's
// `user:notification` stream, kept open with reconnection and back-off, turned into native
// notifications (decide.ts), plus what the tray shows (tray-state.ts): the unread count and the
// relay's connection and whether federation is paused, read from the instance's REST API.
// Plain Node (the `ws` package and fetch): the main process makes one, passes callbacks that call
// Electron (Notification, Tray, app.setBadgeCount), and tells it when things change.
import WebSocket from 'ws';
import type { NotificationKinds } from '../contract/ipc.js';
import { decideNotification, type NotificationDecision, type WindowFocus } from './decide.js';
import type { RelayConnection, TrayInput } from './tray-state.js';

/** What the tray needs, and whether the stream is open. */
export interface NotifyState extends TrayInput {
  /** Whether the stream is connected (notifications arrive). */
  streaming: boolean;
  /** Why the stream or the last refresh failed, in words (null: no problem). */
  error: string | null;
}

/** How a NotificationStream is set up. */
export interface NotificationStreamOptions {
  /** The instance's local address, e.g. `http://127.0.0.1:7470` (the server host's `info.url`). */
  baseUrl: string;
  /**
   * The owner's access token (the desktop's own, api/desktop.ts): `read` for the stream, the unread
   * count, the relay state and the federation switch; `write` to flip the switch (`setFederationPaused`).
   */
  token: string;
  /** The notification kinds the settings turn on, read at each event (they may change meanwhile). */
  kinds(): NotificationKinds;
  /** What the window shows at the moment (no notification for what is on screen). */
  focus(): WindowFocus;
  /** A notification to show (Electron's Notification; a click navigates the window to `path`). */
  onNotification(decision: NotificationDecision): void;
  /** The state changed (redraw the tray and the badge from `trayState(state)`). */
  onState?(state: NotifyState): void;
  /** Reconnection pauses: `initialMs`, doubled after each failed attempt, at most `maxMs` (1 s, 30 s). */
  backoff?: { initialMs: number; maxMs: number };
  /** How often the count and the relay state are read again without an event (60 s; the relay can drop quietly). */
  pollMs?: number;
}

/** How long a REST call to the local server may take. */
const REQUEST_TIMEOUT_MS = 10_000;

/** A WebSocket message of Mastodon's streaming API: `payload` is JSON text. */
interface StreamMessage {
  event?: unknown;
  payload?: unknown;
}

/**
 * The owner's notification stream. `start()` connects (and keeps reconnecting after drops, as when
 * the server restarts, with doubling pauses reset by a successful connection); each `notification`
 * event goes through `decideNotification` and, when it should be shown, to `onNotification`, and
 * the unread count is read again. The count, the relay's connection and the federation switch are
 * read when the stream opens, after each notification, every `pollMs`, and on `refresh()`.
 */
export class NotificationStream {
  private ws: WebSocket | null = null;
  private stopped = true;
  private attempts = 0;
  private retry: NodeJS.Timeout | null = null;
  private poll: NodeJS.Timeout | null = null;
  /** Refreshes answer in order: an older answer arriving late does not overwrite a newer one. */
  private refreshSeq = 0;
  private current: NotifyState = { unread: null, relay: 'unknown', federationPaused: null, streaming: false, error: null };
  private baseUrl: string;
  private token: string;

  constructor(private readonly options: NotificationStreamOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.token = options.token;
  }

  /** The state as it stands. */
  get state(): NotifyState {
    return { ...this.current };
  }

  /** Connects, and keeps connected until `stop`. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.attempts = 0;
    this.connect();
    this.poll = setInterval(() => void this.refresh(), this.options.pollMs ?? 60_000);
    this.poll.unref();
  }

  /** Closes the stream and stops reconnecting; resolves once the socket is closed. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    if (this.poll) clearInterval(this.poll);
    this.retry = null;
    this.poll = null;
    await this.closeSocket();
    this.update({ streaming: false });
  }

  /**
   * Points the stream at another address or token (the server restarted on another port, the owner
   * signed in again): reconnects at once when either changed.
   */
  reconfigure(change: { baseUrl?: string; token?: string }): void {
    const baseUrl = change.baseUrl?.replace(/\/+$/, '') ?? this.baseUrl;
    const token = change.token ?? this.token;
    if (baseUrl === this.baseUrl && token === this.token) return;
    this.baseUrl = baseUrl;
    this.token = token;
    if (this.stopped) return;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    this.attempts = 0;
    void this.closeSocket().then(() => {
      if (!this.stopped && !this.ws && !this.retry) this.connect();
    });
  }

  /**
   * Reads the unread count, the relay's connection and the federation switch again (call it when
   * the notifications marker moved, e.g. the window showed the notifications, and on focus).
   */
  async refresh(): Promise<NotifyState> {
    const seq = ++this.refreshSeq;
    const [unread, relay, federation] = await Promise.allSettled([
      this.getJson<{ count?: unknown }>('/api/v1/notifications/unread_count'),
      this.getJson<{ enabled?: unknown; connected?: unknown }>('/api/hearth/relay'),
      this.getJson<{ paused?: unknown }>('/api/hearth/federation'),
    ]);
    if (seq !== this.refreshSeq) return this.state;
    const change: Partial<NotifyState> = {};
    if (unread.status === 'fulfilled' && typeof unread.value.count === 'number') change.unread = unread.value.count;
    change.relay = relayConnection(relay);
    change.federationPaused = federation.status === 'fulfilled' && typeof federation.value.paused === 'boolean' ? federation.value.paused : null;
    const failed = [unread, relay, federation].find((r): r is PromiseRejectedResult => r.status === 'rejected');
    change.error = failed ? describe(failed.reason) : this.current.streaming ? null : this.current.error;
    this.update(change);
    return this.state;
  }

  /** Alias of `refresh()` for the moment the notifications marker moved: the count is read again. */
  markerMoved(): Promise<NotifyState> {
    return this.refresh();
  }

  /**
   * Pauses or resumes federation (the tray's menu item): `PUT /api/hearth/federation`, then the
   * state is read again. Rejects with a sentence when the server refuses or cannot be reached.
   */
  async setFederationPaused(paused: boolean): Promise<NotifyState> {
    const res = await fetch(`${this.baseUrl}/api/hearth/federation`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ paused }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    if (!res.ok) throw new Error(`Hearth could not ${paused ? 'pause' : 'resume'} federation: ${await errorText(res)}`);
    await res.arrayBuffer();
    return this.refresh();
  }

  private connect(): void {
    if (this.stopped) return;
    const url = new URL('/api/v1/streaming', this.baseUrl);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.searchParams.set('stream', 'user:notification');
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${this.token}` }, handshakeTimeout: REQUEST_TIMEOUT_MS, perMessageDeflate: false });
    this.ws = ws;
    ws.on('open', () => {
      if (this.ws !== ws) return;
      this.attempts = 0;
      this.update({ streaming: true, error: null });
      void this.refresh();
    });
    ws.on('message', (data, isBinary) => {
      if (isBinary || this.ws !== ws) return;
      this.handle(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(data as Buffer[]).toString('utf8'));
    });
    ws.on('unexpected-response', (_req, res) => {
      // 401: the token is not (or no longer) good; the pauses grow to their longest meanwhile.
      this.update({ error: res.statusCode === 401 ? 'The app is signed out of Hearth' : `The streaming API answered ${res.statusCode ?? 'nothing'}` });
      res.resume();
      ws.terminate();
    });
    ws.on('error', (err) => {
      if (this.ws === ws && !this.current.error) this.update({ error: describe(err) });
    });
    ws.on('close', () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.update({ streaming: false });
      this.scheduleReconnect();
    });
  }

  private handle(text: string): void {
    let message: StreamMessage;
    try {
      message = JSON.parse(text) as StreamMessage;
    } catch {
      return;
    }
    if (message.event !== 'notification' || typeof message.payload !== 'string') return;
    let payload: unknown;
    try {
      payload = JSON.parse(message.payload);
    } catch {
      return;
    }
    const decision = decideNotification(payload, this.options.kinds(), this.options.focus());
    if (decision) {
      try {
        this.options.onNotification(decision);
      } catch (err) {
        console.error('notify: showing a notification failed', err);
      }
    }
    void this.refresh();
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.retry) return;
    const { initialMs, maxMs } = this.options.backoff ?? { initialMs: 1000, maxMs: 30_000 };
    const delay = Math.min(maxMs, initialMs * 2 ** Math.min(this.attempts, 16));
    this.attempts += 1;
    // A little jitter, so that a restart does not meet every client at the same instant.
    this.retry = setTimeout(() => {
      this.retry = null;
      this.connect();
    }, delay * (1 + Math.random() * 0.1));
    this.retry.unref();
  }

  private async closeSocket(): Promise<void> {
    const ws = this.ws;
    this.ws = null;
    if (!ws || ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        ws.terminate();
        resolve();
      }, 2000);
      timer.unref();
      ws.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
      else ws.close(1000);
    });
  }

  private async getJson<T>(path: string): Promise<T> {
    const res = await fetch(`${this.baseUrl}${path}`, { headers: { authorization: `Bearer ${this.token}` }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    if (!res.ok) throw new HttpError(res.status, await errorText(res));
    return (await res.json()) as T;
  }

  private update(change: Partial<NotifyState>): void {
    const next = { ...this.current, ...change };
    const same = (Object.keys(next) as (keyof NotifyState)[]).every((k) => next[k] === this.current[k]);
    this.current = next;
    if (!same) this.options.onState?.({ ...next });
  }
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The relay's connection from `GET /api/hearth/relay` (`none` without a relay). */
function relayConnection(result: PromiseSettledResult<{ enabled?: unknown; connected?: unknown }>): RelayConnection {
  if (result.status === 'rejected') return 'unknown';
  if (result.value.enabled !== true) return 'none';
  return result.value.connected === true ? 'connected' : 'disconnected';
}

/** The `error` of a Mastodon error body, or the status. */
async function errorText(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === 'string') return body.error;
  } catch {
    // Not JSON: the status says enough.
  }
  return `HTTP ${res.status}`;
}

/** An error in words for the tray's tooltip or a log. */
function describe(err: unknown): string {
  if (err instanceof HttpError) return err.status === 401 ? 'The app is signed out of Hearth' : err.message;
  if (err instanceof Error) return err.cause instanceof Error ? `${err.message}: ${err.cause.message}` : err.message;
  return String(err);
}
