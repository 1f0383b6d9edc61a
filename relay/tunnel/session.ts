import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebSocket } from 'ws';
import { CHUNK_BYTES, encodeFrame, HOP_BY_HOP, type ToInstance, type ToRelay } from '../protocol.js';
import type { RelayStore, StoredInbound, Tenant } from '../store/types.js';
import type { RelayMetrics } from '../metrics.js';
import { requestOnce, send, type Agents } from '../egress.js';
import { HOP_HEADER } from '../nodes.js';
import { TenantPublishes } from './publishes.js';
import { ReplayPump } from './replay.js';
import { TunnelledSockets } from './sockets.js';

/** How long the relay waits for the head of an instance's answer to a live request. */
export const LIVE_HEAD_TIMEOUT_MS = 20_000;

/** Sends queued per tenant beyond this wait for one to finish. */
const SENDS_AT_ONCE = 32;

/** Above this many bytes waiting in the WebSocket, streaming to the instance pauses. */
const HIGH_WATER = 4 * 1024 * 1024;

/**
 * How often the relay looks for mail nobody woke a session for (see TunnelServer.sweep). Signals
 * wake the replay at once, but they can be lost (PostgreSQL: while a process's listening
 * connection is being replaced), so a connected instance's mail must not wait for the next one:
 * at worst it waits this long.
 */
export const REPLAY_POLL_MS = 5000;

/** What a session needs from the relay around it. */
export interface SessionContext {
  store: RelayStore;
  metrics: RelayMetrics;
  agents: Agents;
  allowPrivate: boolean;
}

/** A live request waiting for (or streaming) the instance's answer. */
interface LiveExchange {
  res: ServerResponse;
  onHead: (ok: boolean) => void;
  headSent: boolean;
}

/**
 * One instance's connected tunnel: replays its queue, carries live requests to it and their
 * answers back, sends its deliveries and signed GETs, and stores what it publishes. Everything it
 * does is for this tenant only: frames name no tenant, the connection is the tenant.
 */
export class TenantSession {
  readonly pump: ReplayPump;
  closed = false;
  private nextId = 1;
  private readonly live = new Map<string, LiveExchange>();
  private readonly sockets: TunnelledSockets;
  private readonly publishes: TenantPublishes;
  private sending = 0;
  private readonly sendQueue: (() => void)[] = [];
  private readonly aborter = new AbortController();
  private backlogTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly tenant: Tenant,
    private readonly ws: WebSocket,
    readonly clients: boolean,
    private readonly ctx: SessionContext,
  ) {
    this.pump = new ReplayPump(ctx.store, tenant.id, this, (n) => {
      ctx.metrics.countReplayed(tenant.host, n);
      this.reportBacklogSoon();
    });
    this.publishes = new TenantPublishes(ctx.store, tenant, (frame) => this.post(frame));
    this.sockets = new TunnelledSockets((frame, body) => this.post(frame, body));
  }

  /** Sends a frame to the instance (dropped once the connection is gone). */
  post(frame: ToInstance, body?: Uint8Array): void {
    if (this.closed) return;
    this.ws.send(encodeFrame(frame, body));
  }

  /** ReplayTarget: one stored message as an `inbound` frame. */
  send(message: StoredInbound): void {
    this.post(
      { t: 'inbound', seq: message.seq, receivedAt: message.receivedAt, method: message.method, path: message.path, headers: message.headers },
      message.body,
    );
  }

  /** Tells the instance its backlog and shed counts (on login, and a little after acknowledgements). */
  async reportBacklog(): Promise<void> {
    const [backlog, shed] = await Promise.all([this.ctx.store.backlog(this.tenant.id), this.ctx.store.shedCounts(this.tenant.id)]);
    this.post({ t: 'backlog', count: backlog.count, bytes: backlog.bytes, oldestAt: backlog.oldestAt, shed });
  }

  private reportBacklogSoon(): void {
    if (this.backlogTimer) return;
    this.backlogTimer = setTimeout(() => {
      this.backlogTimer = null;
      this.reportBacklog().catch(() => {});
    }, 2000);
    this.backlogTimer.unref();
  }

  /** Handles a frame from the instance. */
  handle(frame: ToRelay, body: Buffer): void {
    switch (frame.t) {
      case 'ack':
        this.pump.ack(frame.seq);
        return;
      case 'defer':
        this.pump.defer(frame.seq, frame.retryInMs);
        return;
      case 'response':
        this.onResponseHead(frame.id, frame.status, frame.headers);
        return;
      case 'chunk': {
        if (this.publishes.chunk(frame.id, body)) return;
        const exchange = this.live.get(frame.id);
        if (exchange?.headSent) exchange.res.write(body);
        return;
      }
      case 'end': {
        if (this.publishes.end(frame.id, frame.error)) return;
        const exchange = this.live.get(frame.id);
        if (!exchange) return;
        this.live.delete(frame.id);
        if (frame.error) exchange.res.destroy(new Error(frame.error));
        else exchange.res.end();
        return;
      }
      case 'send':
        this.queueSend(() => this.doSend(frame.id, frame.url, frame.headers, body, frame.validUntil));
        return;
      case 'fetch':
        void this.doFetch(frame.id, frame.url, frame.headers);
        return;
      case 'publish':
        this.publishes.start(frame, body);
        return;
      case 'unpublish':
        this.publishes.unpublish(frame);
        return;
      case 'ws-opened':
      case 'ws-data':
      case 'ws-close':
        this.sockets.fromInstance(frame, body);
        return;
      case 'ping':
        this.post({ t: 'pong', at: frame.at });
        return;
      case 'pong':
        return;
      case 'enrol':
      case 'login':
        // Logged in already: a second login on the same connection is a protocol error.
        this.ws.close(1002, 'already logged in');
        return;
    }
  }

  /**
   * Carries a live request to the instance and streams its answer back. Resolves true once the
   * instance's answer has begun (the caller must not touch `res` then), false when the instance
   * did not answer in time or the tunnel dropped first (the caller may answer from the cache).
   */
  forward(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
    const id = `r${this.nextId++}`;
    const headers: [string, string][] = [];
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i] as string;
      // The hop header carries the secret the relay's processes share: never the instance's to see.
      if (!HOP_BY_HOP.has(name.toLowerCase()) && name.toLowerCase() !== HOP_HEADER) headers.push([name, req.rawHeaders[i + 1] as string]);
    }
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    return new Promise<boolean>((resolve) => {
      let settled = false;
      const timer = setTimeout(() => finish(false), LIVE_HEAD_TIMEOUT_MS);
      const finish = (ok: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (!ok) {
          this.live.delete(id);
          this.post({ t: 'cancel', id });
        }
        resolve(ok);
      };
      this.live.set(id, { res, onHead: finish, headSent: false });
      res.on('close', () => {
        if (this.live.delete(id)) this.post({ t: 'cancel', id });
      });
      this.post({ t: 'request', id, method: req.method ?? 'GET', path, headers, streamed: hasBody });
      if (hasBody) void this.streamBody(id, req);
    });
  }

  /** Streams a request body to the instance as chunks, pausing while the WebSocket is backed up. */
  private async streamBody(id: string, req: IncomingMessage): Promise<void> {
    try {
      for await (const piece of req as AsyncIterable<Buffer>) {
        for (let at = 0; at < piece.length; at += CHUNK_BYTES) {
          while (this.ws.bufferedAmount > HIGH_WATER && !this.closed) await new Promise((r) => setTimeout(r, 5));
          this.post({ t: 'chunk', id }, piece.subarray(at, at + CHUNK_BYTES));
        }
      }
      this.post({ t: 'end', id, error: null });
    } catch (err) {
      this.post({ t: 'end', id, error: (err as Error).message });
    }
  }

  private onResponseHead(id: string, status: number, headers: [string, string][]): void {
    const exchange = this.live.get(id);
    if (!exchange || exchange.headSent) return;
    exchange.headSent = true;
    const out: [string, string][] = headers.filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase()));
    exchange.res.writeHead(status, out.flat());
    exchange.onHead(true);
  }

  /** Opens a client's WebSocket (the streaming API) through the tunnel. */
  openSocket(...args: Parameters<TunnelledSockets['open']>): void {
    this.sockets.open(...args);
  }

  private queueSend(job: () => Promise<void>): void {
    const run = () => {
      this.sending += 1;
      void job().finally(() => {
        this.sending -= 1;
        this.sendQueue.shift()?.();
      });
    };
    if (this.sending < SENDS_AT_ONCE) run();
    else this.sendQueue.push(run);
  }

  private async doSend(id: string, url: string, headers: [string, string][], body: Buffer, validUntil: number): Promise<void> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      this.post({ t: 'sent', id, status: null, error: 'not a URL', attempts: 0, answer: '' });
      return;
    }
    const outcome = await send(target, headers, body, validUntil, { allowPrivate: this.ctx.allowPrivate, agents: this.ctx.agents, signal: this.aborter.signal });
    this.ctx.metrics.countSent(outcome.status !== null && outcome.status >= 200 && outcome.status < 300 ? 'ok' : 'failed');
    this.post({ t: 'sent', id, status: outcome.status, error: outcome.error, attempts: outcome.attempts, answer: outcome.answer.slice(0, 512) });
  }

  /** A signed GET for the instance: the answer streams back as `fetched`, chunks and `end`. */
  private async doFetch(id: string, url: string, headers: [string, string][]): Promise<void> {
    try {
      const target = new URL(url);
      const res = await requestOnce(target, 'GET', headers, null, { allowPrivate: this.ctx.allowPrivate, timeoutMs: 30_000, agents: this.ctx.agents });
      this.post({ t: 'fetched', id, status: res.status, headers: res.headers, url: target.href });
      for await (const piece of res.body as AsyncIterable<Buffer>) {
        if (this.closed) {
          res.body.destroy();
          return;
        }
        for (let at = 0; at < piece.length; at += CHUNK_BYTES) this.post({ t: 'chunk', id }, piece.subarray(at, at + CHUNK_BYTES));
      }
      this.post({ t: 'end', id, error: null });
    } catch (err) {
      this.post({ t: 'fetched', id, status: 0, headers: [], url });
      this.post({ t: 'end', id, error: (err as Error).message });
    }
  }

  /** Closes the WebSocket (after `close`, or to end a replaced session). */
  disconnect(): void {
    if (this.ws.readyState === this.ws.OPEN || this.ws.readyState === this.ws.CONNECTING) this.ws.close(4000, 'closed');
  }

  /** Ends the session: live requests still waiting fall back (their callers answer), sends stop retrying. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.aborter.abort();
    if (this.backlogTimer) clearTimeout(this.backlogTimer);
    for (const [id, exchange] of this.live) {
      this.live.delete(id);
      if (exchange.headSent) exchange.res.destroy(new Error('tunnel closed'));
      else exchange.onHead(false);
    }
    this.sockets.closeAll();
    this.publishes.close();
    await this.pump.close().catch((err: unknown) => console.error('relay: could not record acknowledgements on close', err));
  }
}

