import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ToInstance, ToRelay } from '../protocol.js';

/** How long a client's WebSocket waits for the instance to accept it. */
const OPEN_TIMEOUT_MS = 15_000;

/** Largest message a client may send (streaming API clients send small JSON subscriptions). */
const CLIENT_MAX_PAYLOAD = 1024 * 1024;

/** Largest error body of a refused upgrade passed on to the client. */
const MAX_REFUSAL_BODY = 4096;

type Post = (frame: ToInstance, body?: Uint8Array) => void;

interface Pending {
  accept: (protocol: string | null) => void;
  refuse: (status: number, body?: Buffer) => void;
}

/**
 * Answers an upgrade request with an HTTP error and closes the connection. The body is a
 * Mastodon-style JSON error (the instance's own, when it refused the upgrade with one).
 */
export function refuseUpgrade(socket: Duplex, status: number, error: string | Buffer, headers: Record<string, string> = {}): void {
  const body = Buffer.isBuffer(error) ? error : Buffer.from(JSON.stringify({ error }), 'utf8');
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Connection: close',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${body.length}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  if (socket.writable) socket.end(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body]));
  else socket.destroy();
}

/**
 * The relay's WebSocket server for clients' sockets (the streaming API for phones), apart from the
 * tunnels' (whose heartbeat would drop sockets that are not tunnels). It completes a client's
 * upgrade with the subprotocol the instance chose, so that the client sees the same handshake as
 * from the instance itself (browsers fail a socket whose offered protocol is not echoed).
 */
export class ClientSocketServer {
  private readonly chosen = new WeakMap<IncomingMessage, string | null>();
  readonly wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: CLIENT_MAX_PAYLOAD,
    handleProtocols: (_offered, req) => this.chosen.get(req) ?? false,
  });

  /** Completes the client's upgrade, answering with `protocol` (null: none). */
  complete(req: IncomingMessage, socket: Duplex, head: Buffer, protocol: string | null, done: (client: WebSocket) => void): void {
    this.chosen.set(req, protocol);
    this.wss.handleUpgrade(req, socket, head, done);
  }

  /** Client sockets open now. */
  get size(): number {
    return this.wss.clients.size;
  }

  /** Ends every client socket (the relay is stopping). */
  close(): void {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
  }
}

/**
 * Client WebSockets carried through a tunnel (the streaming API for phones, with
 * `--relay-clients`): the relay completes the client's upgrade only once the instance accepted the
 * same upgrade, then passes messages both ways until either side closes.
 */
export class TunnelledSockets {
  private nextId = 1;
  private readonly pending = new Map<string, Pending>();
  private readonly open_ = new Map<string, WebSocket>();

  constructor(private readonly post: Post) {}

  /** Asks the instance to accept a client's upgrade request; answers the client either way. */
  open(server: ClientSocketServer, req: IncomingMessage, socket: Duplex, head: Buffer, path: string, headers: [string, string][]): void {
    const id = `w${this.nextId++}`;
    const timer = setTimeout(() => refuse(504), OPEN_TIMEOUT_MS);
    const refuse = (status: number, body?: Buffer) => {
      clearTimeout(timer);
      this.pending.delete(id);
      refuseUpgrade(socket, status, body && body.length > 0 ? body : status === 503 ? 'This instance is offline right now. Try again later.' : (STATUS_CODES[status] ?? 'Error'));
    };
    // A client that gives up while the instance is still deciding: its socket is let go.
    socket.on('error', () => socket.destroy());
    this.pending.set(id, {
      refuse,
      accept: (protocol) => {
        clearTimeout(timer);
        this.pending.delete(id);
        if (socket.destroyed || !socket.writable) {
          this.post({ t: 'ws-close', id, code: 1001 });
          return;
        }
        server.complete(req, socket, head, protocol, (client) => {
          this.open_.set(id, client);
          client.on('message', (data, isBinary) => {
            const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
            this.post({ t: 'ws-data', id, binary: isBinary }, bytes);
          });
          client.on('close', (code) => {
            if (this.open_.delete(id)) this.post({ t: 'ws-close', id, code: typeof code === 'number' ? code : 1000 });
          });
          client.on('error', () => client.terminate());
        });
      },
    });
    this.post({ t: 'ws-open', id, path, headers });
  }

  /** A frame about a tunnelled socket from the instance. */
  fromInstance(frame: Extract<ToRelay, { t: 'ws-opened' | 'ws-data' | 'ws-close' }>, body: Buffer): void {
    if (frame.t === 'ws-opened') {
      const pending = this.pending.get(frame.id);
      if (pending) {
        if (frame.ok) pending.accept(frame.protocol);
        else pending.refuse(frame.status, body.subarray(0, MAX_REFUSAL_BODY));
      } else if (frame.ok) {
        // Accepted after the client was answered (timed out): the instance's socket is closed again.
        this.post({ t: 'ws-close', id: frame.id, code: 1001 });
      }
      return;
    }
    const client = this.open_.get(frame.id);
    if (!client) return;
    if (frame.t === 'ws-data') {
      client.send(frame.binary ? body : body.toString('utf8'));
    } else {
      this.open_.delete(frame.id);
      client.close(frame.code >= 1000 && frame.code < 5000 && frame.code !== 1005 && frame.code !== 1006 ? frame.code : 1000);
    }
  }

  /** The tunnel is gone: every client socket through it closes (1012: the service restarts). */
  closeAll(): void {
    for (const pending of this.pending.values()) pending.refuse(503);
    this.pending.clear();
    for (const client of this.open_.values()) client.close(1012, 'instance went offline');
    this.open_.clear();
  }
}
