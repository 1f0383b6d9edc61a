import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { verifyTunnelSignature } from '../keys.js';
import { authMessage, decodeToRelay, encodeFrame, HEARTBEAT_MS, MAX_FRAME_BYTES, PROTOCOL_VERSION, ProtocolError, type Refusal, type ToInstance } from '../protocol.js';
import type { RelaySignal, RelayStore, Tenant } from '../store/types.js';
import { REPLAY_POLL_MS, TenantSession, type SessionContext } from './session.js';

/** How long a new connection has to log in or enrol. */
const LOGIN_TIMEOUT_MS = 10_000;

/** How often sessions check that their tenant still exists (it may be removed from the command line). */
const TENANT_CHECK_MS = 30_000;

/** What the tunnel server needs besides a session's context. */
export interface TunnelServerOptions extends SessionContext {
  /** The relay's own host, part of what tunnel keys sign. */
  domain: string;
  /** This process, as tunnel holder. */
  nodeId: string;
}

/** SHA-256 hex of an enrolment code: what the store keeps instead of the code. */
export function hashCode(code: string): string {
  return createHash('sha256').update(code.trim().toUpperCase()).digest('hex');
}

function refuse(ws: WebSocket, reason: Refusal, message: string): void {
  ws.send(encodeFrame({ t: 'refused', reason, message } satisfies ToInstance));
  ws.close(4000, reason);
}

/**
 * The relay's end of the tunnels: instances dial in, answer a fresh challenge (enrolling once with a
 * one-time code and their Ed25519 tunnel key, then logging in by signing the challenge with it),
 * and get a session. One tunnel per tenant: a newer login replaces the older one, here or in
 * another relay process (told through the store's signals).
 */
export class TunnelServer {
  readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false });
  private readonly sessions = new Map<string, TenantSession>();
  private readonly alive = new WeakSet<WebSocket>();
  private readonly heartbeat: NodeJS.Timeout;
  private readonly sweeper: NodeJS.Timeout;
  private readonly tenantCheck: NodeJS.Timeout;
  /** Each session's claim of its tunnel in the store, once made (see takenElsewhere). */
  private readonly claims = new WeakMap<TenantSession, Promise<void>>();
  /** The last `clients` choice of each tenant seen here, kept while it is offline. */
  private readonly clientsOf = new Map<string, boolean>();

  constructor(private readonly options: TunnelServerOptions) {
    this.heartbeat = setInterval(() => this.beat(), HEARTBEAT_MS);
    this.sweeper = setInterval(() => void this.sweep(), REPLAY_POLL_MS);
    this.sweeper.unref();
    this.heartbeat.unref();
    this.tenantCheck = setInterval(() => void this.dropRemovedTenants(), TENANT_CHECK_MS);
    this.tenantCheck.unref();
  }

  /** Tunnels this process holds. */
  get connected(): number {
    return this.sessions.size;
  }

  /** The session of a tenant connected to this process. */
  session(tenantId: string): TenantSession | undefined {
    return this.sessions.get(tenantId);
  }

  /** Whether the tenant asked for its client API to be carried, as last seen here. */
  clientsWanted(tenant: Tenant): boolean {
    return this.clientsOf.get(tenant.id) ?? tenant.clients;
  }

  /** Takes an upgrade request for the tunnel path. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
  }

  private accept(ws: WebSocket): void {
    this.alive.add(ws);
    ws.on('pong', () => this.alive.add(ws));
    ws.on('error', () => ws.terminate());
    const nonce = randomBytes(32).toString('base64url');
    let session: TenantSession | null = null;
    let answered = false;
    const timer = setTimeout(() => {
      if (!answered) refuse(ws, 'protocol', 'no login in time');
    }, LOGIN_TIMEOUT_MS);
    ws.on('close', () => {
      clearTimeout(timer);
      if (session) void this.end(session);
    });
    ws.on('message', (data, isBinary) => {
      if (!isBinary) {
        ws.close(1003, 'frames are binary');
        return;
      }
      let decoded;
      try {
        decoded = decodeToRelay(Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]));
      } catch (err) {
        if (err instanceof ProtocolError) refuse(ws, 'protocol', err.message);
        else ws.terminate();
        return;
      }
      if (session) {
        session.handle(decoded.frame, decoded.body);
        return;
      }
      // The first frame must log in or enrol; the nonce is good for this one attempt only.
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      // The session takes this connection's frames from the moment it exists (the instance may
      // answer a live request before the login's bookkeeping is done).
      void this.authenticate(ws, nonce, decoded.frame, (s) => {
        session = s;
      }).catch((err: unknown) => {
        console.error('relay: login failed', err);
        refuse(ws, 'protocol', 'login failed');
      });
    });
    ws.send(encodeFrame({ t: 'challenge', version: PROTOCOL_VERSION, relay: this.options.domain, nonce } satisfies ToInstance));
  }

  private async authenticate(ws: WebSocket, nonce: string, frame: ReturnType<typeof decodeToRelay>['frame'], bind: (session: TenantSession) => void): Promise<TenantSession | null> {
    const { store, domain } = this.options;
    let tenant: Tenant | null;
    if (frame.t === 'enrol') {
      // The signature is checked before the code is used: a bad one does not burn the code.
      if (!verifyTunnelSignature(frame.publicKey, authMessage('enrol', domain, nonce, `${frame.code}\n${frame.publicKey}`), frame.signature)) {
        refuse(ws, 'bad-signature', 'the enrolment is not signed by the key it names');
        return null;
      }
      tenant = await store.enrol(hashCode(frame.code), frame.publicKey, Date.now());
      if (!tenant) {
        refuse(ws, 'bad-code', 'unknown, used or expired enrolment code');
        return null;
      }
      // Enrolled: the instance learns its host and origin, and logs in on a connection of its own
      // (no session here, so that no replay or live request goes to a connection about to close).
      const backlog = await store.backlog(tenant.id);
      if (frame.clients !== tenant.clients) await store.setClients(tenant.id, frame.clients).catch(() => {});
      ws.send(encodeFrame({ t: 'welcome', host: tenant.host, origin: tenant.origin, clients: frame.clients, backlog: backlog.count } satisfies ToInstance));
      ws.close(1000, 'enrolled');
      return null;
    } else if (frame.t === 'login') {
      tenant = await store.tenantByHost(frame.host.toLowerCase());
      if (!tenant || !tenant.publicKey) {
        refuse(ws, 'unknown-host', `no enrolled tenant ${frame.host}`);
        return null;
      }
      if (!verifyTunnelSignature(tenant.publicKey, authMessage('login', domain, nonce, tenant.host), frame.signature)) {
        refuse(ws, 'bad-signature', 'the challenge is not signed with the tunnel key of this host');
        return null;
      }
    } else {
      refuse(ws, 'protocol', 'log in or enrol first');
      return null;
    }
    const backlog = await store.backlog(tenant.id);
    if (ws.readyState !== ws.OPEN) return null;
    const session = new TenantSession(tenant, ws, frame.clients, this.options);
    bind(session);
    const previous = this.sessions.get(tenant.id);
    this.sessions.set(tenant.id, session);
    this.clientsOf.set(tenant.id, frame.clients);
    // Kept with the tenant too, so that another process, or this one after a restart, answers its
    // client paths as it wants while it is offline (503 rather than 404).
    if (tenant.clients !== frame.clients) void store.setClients(tenant.id, frame.clients).catch(() => {});
    // The welcome goes out as the session becomes visible: the instance drops any frame that comes
    // before it, so a live request must not be carried in between.
    session.post({ t: 'welcome', host: tenant.host, origin: tenant.origin, clients: frame.clients, backlog: backlog.count });
    if (previous) this.replace(previous);
    const claimed = store.claimTunnel(tenant.id, this.options.nodeId, Date.now());
    // A tunnel signal from another process that arrives meanwhile waits for this claim (onSignal).
    this.claims.set(session, claimed.catch(() => {}));
    await claimed;
    await store.signal({ kind: 'tunnel', tenantId: tenant.id, nodeId: this.options.nodeId });
    await session.reportBacklog();
    session.pump.pump();
    return session;
  }

  /** An older tunnel of a tenant that logged in again (here or elsewhere): told, then closed. */
  private replace(session: TenantSession): void {
    session.post({ t: 'refused', reason: 'replaced', message: 'a newer tunnel of this instance took over' });
    void this.end(session);
  }

  private async end(session: TenantSession): Promise<void> {
    if (this.sessions.get(session.tenant.id) === session) {
      this.sessions.delete(session.tenant.id);
      await this.options.store.releaseTunnel(session.tenant.id, this.options.nodeId).catch(() => {});
    }
    await session.close();
    session.disconnect();
  }

  /** A signal from the store: new mail wakes the replay; a tunnel taken elsewhere closes ours. */
  onSignal(signal: RelaySignal): void {
    const session = this.sessions.get(signal.tenantId);
    if (!session) return;
    if (signal.kind === 'inbound') session.pump.pump();
    else if (signal.nodeId !== this.options.nodeId) void this.takenElsewhere(session).catch((err: unknown) => console.error('relay: could not check who holds a tunnel', err));
  }

  /**
   * Another process says it took the tenant's tunnel. The signal may be an old one: that process's
   * login may have come before ours and its signal late (NOTIFY is not ordered with our claim). So
   * once our own claim is written, the store decides: claims are kept newest first, and only when
   * the holder is no longer this process is ours the older tunnel, replaced.
   */
  private async takenElsewhere(session: TenantSession): Promise<void> {
    await this.claims.get(session);
    if (this.sessions.get(session.tenant.id) !== session) return;
    const holder = await this.options.store.tunnelHolder(session.tenant.id);
    if (holder !== this.options.nodeId && this.sessions.get(session.tenant.id) === session) this.replace(session);
  }

  /**
   * Wakes the replay of connected tenants that have mail nobody woke them for (a lost signal):
   * one query for the whole process, whatever the number of tunnels; sessions with messages in
   * flight are left alone (their acknowledgements pump).
   */
  private async sweep(): Promise<void> {
    if (this.sessions.size === 0) return;
    const waiting = await this.options.store.tenantsWithBacklog().catch(() => new Set<string>());
    for (const [tenantId, session] of this.sessions) {
      if (waiting.has(tenantId) && !session.closed && session.pump.unacknowledged === 0) session.pump.pump();
    }
  }

  private beat(): void {
    for (const ws of this.wss.clients) {
      if (!this.alive.has(ws)) {
        ws.terminate();
        continue;
      }
      this.alive.delete(ws);
      ws.ping();
    }
  }

  private async dropRemovedTenants(): Promise<void> {
    for (const session of [...this.sessions.values()]) {
      const still = await this.options.store.tenantById(session.tenant.id).catch(() => session.tenant);
      if (!still || still.publicKey !== session.tenant.publicKey) {
        session.post({ t: 'refused', reason: 'removed', message: 'this instance is no longer served by the relay' });
        await this.end(session);
      }
    }
  }

  /** Closes every tunnel (the relay is stopping). */
  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    clearInterval(this.sweeper);
    clearInterval(this.tenantCheck);
    await Promise.all([...this.sessions.values()].map((s) => this.end(s)));
    for (const ws of this.wss.clients) ws.terminate();
    this.wss.close();
  }
}
