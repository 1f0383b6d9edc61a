import type { ClientRequest, IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import { CHUNK_BYTES, HOP_BY_HOP, isPublicPath, type ToInstance, type ToRelay } from '../../relay/protocol.js';
import { http } from '../util/node-http.js';

/** Above this many bytes waiting in the tunnel, reading an answer pauses. */
const HIGH_WATER = 4 * 1024 * 1024;

/** Largest error body of a refused WebSocket upgrade passed back to the relay. */
const MAX_REFUSAL_BODY = 4096;

/**
 * Why a carried request is not made, or null to make it. The path must be an origin-form target
 * on the instance itself (`/…`, not `//host/…` or `http://host/…`, which would make the connector
 * reach another server from the home network). First-run setup is never carried: it trusts a
 * loopback peer, and every carried request comes from this connector on loopback; Express routes
 * /setup case-insensitively and with a trailing slash, so the check is as lenient.
 */
export function refusal(path: string, clients: boolean): { status: number; error: string } | null {
  if (!path.startsWith('/') || path.startsWith('//') || path.startsWith('/\\')) return { status: 400, error: 'Bad request target' };
  const raw = path.split(/[?#]/, 1)[0] ?? '';
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    // Not percent-encoded correctly: checked as it is.
  }
  const normal = decoded.toLowerCase().replace(/[/\\]+/g, '/').replace(/\/$/, '');
  if (normal === '/setup' || normal.startsWith('/setup/')) return { status: 404, error: 'First-run setup is only possible on the computer of the instance' };
  // The client side only for an instance that asked for it, whatever the relay does.
  if (!clients && !isPublicPath(normal || '/')) return { status: 404, error: 'Record not found' };
  return null;
}

/** What carrying live requests needs of the connector. */
export interface LiveTarget {
  /** The instance's own listener (`http://127.0.0.1:7470`). */
  localUrl: string;
  reply(frame: ToRelay, body?: Uint8Array): void;
  /** Bytes waiting in the tunnel's WebSocket. */
  buffered(): number;
  /** Whether the client API is carried (`--relay-clients`). */
  clients: boolean;
}

/**
 * Requests the relay carries to the instance while it is connected (actors, statuses, collections,
 * media, WebFinger; with `--relay-clients` the client API and its WebSockets too): each is made to
 * the instance's own listener with its method, path, Host and headers as the relay received them,
 * so the instance answers exactly as it would a direct request, and the answer streams back.
 */
export class LiveRequests {
  private readonly requests = new Map<string, ClientRequest>();
  private readonly sockets = new Map<string, WebSocket>();

  constructor(private readonly target: LiveTarget) {}

  /** Handles a frame about a live request or socket; false when the frame is not one. */
  handle(frame: ToInstance, body: Buffer): boolean {
    switch (frame.t) {
      case 'request':
        this.start(frame.id, frame.method, frame.path, frame.headers, frame.streamed);
        return true;
      case 'cancel':
        this.requests.get(frame.id)?.destroy();
        this.requests.delete(frame.id);
        return true;
      case 'chunk': {
        const req = this.requests.get(frame.id);
        if (!req) return false;
        req.write(body);
        return true;
      }
      case 'end': {
        const req = this.requests.get(frame.id);
        if (!req) return false;
        if (frame.error) req.destroy(new Error(frame.error));
        else req.end();
        return true;
      }
      case 'ws-open':
        this.openSocket(frame.id, frame.path, frame.headers);
        return true;
      case 'ws-data': {
        const socket = this.sockets.get(frame.id);
        if (socket?.readyState === WebSocket.OPEN) socket.send(frame.binary ? body : body.toString('utf8'));
        return true;
      }
      case 'ws-close': {
        const socket = this.sockets.get(frame.id);
        this.sockets.delete(frame.id);
        socket?.close(frame.code >= 1000 && frame.code < 5000 && frame.code !== 1005 && frame.code !== 1006 ? frame.code : 1000);
        return true;
      }
      default:
        return false;
    }
  }

  /**
   * Answers a live request here, without the instance. Not at once: the request may have come in
   * the same read as the relay's welcome, before the connector counts the tunnel as connected.
   */
  private answer(id: string, status: number, error: string): void {
    setImmediate(() => {
      this.target.reply({ t: 'response', id, status, headers: [['Content-Type', 'application/json; charset=utf-8']] });
      this.target.reply({ t: 'chunk', id }, Buffer.from(JSON.stringify({ error }), 'utf8'));
      this.target.reply({ t: 'end', id, error: null });
    });
  }

  private start(id: string, method: string, path: string, headers: [string, string][], streamed: boolean): void {
    const refused = refusal(path, this.target.clients);
    if (refused) {
      this.answer(id, refused.status, refused.error);
      return;
    }
    const flat: string[] = [];
    for (const [name, value] of headers) if (!HOP_BY_HOP.has(name.toLowerCase())) flat.push(name, value);
    const local = new URL(this.target.localUrl);
    // An IPv6 listener's host is bracketed in the URL, not in a socket address.
    const hostname = local.hostname.startsWith('[') ? local.hostname.slice(1, -1) : local.hostname;
    let req: ClientRequest;
    try {
      // The path goes as it came (not re-parsed as a URL, which could name another host).
      req = http.request({ hostname, port: local.port, path, method, headers: flat }, (res) => this.stream(id, res));
    } catch (err) {
      // Node refuses a path with characters that must be escaped.
      this.answer(id, 400, `Bad request: ${(err as Error).message}`);
      return;
    }
    req.on('error', (err) => {
      if (!this.requests.delete(id)) return;
      this.target.reply({ t: 'response', id, status: 502, headers: [['Content-Type', 'text/plain']] });
      this.target.reply({ t: 'end', id, error: err.message });
    });
    this.requests.set(id, req);
    if (!streamed) req.end();
  }

  /** Streams the instance's answer to a live request back through the tunnel. */
  private stream(id: string, res: IncomingMessage): void {
    const out: [string, string][] = [];
    for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
      const name = res.rawHeaders[i] as string;
      if (!HOP_BY_HOP.has(name.toLowerCase())) out.push([name, res.rawHeaders[i + 1] as string]);
    }
    this.target.reply({ t: 'response', id, status: res.statusCode ?? 502, headers: out });
    res.on('data', (piece: Buffer) => {
      for (let at = 0; at < piece.length; at += CHUNK_BYTES) this.target.reply({ t: 'chunk', id }, piece.subarray(at, at + CHUNK_BYTES));
      // A large answer (a video) waits while the tunnel is backed up.
      if (this.target.buffered() > HIGH_WATER) {
        res.pause();
        const resume = setInterval(() => {
          if (this.target.buffered() <= HIGH_WATER / 2 || !this.requests.has(id)) {
            clearInterval(resume);
            res.resume();
          }
        }, 10);
      }
    });
    res.on('end', () => {
      this.requests.delete(id);
      this.target.reply({ t: 'end', id, error: null });
    });
    res.on('error', (err) => {
      this.requests.delete(id);
      this.target.reply({ t: 'end', id, error: err.message });
    });
  }

  private openSocket(id: string, path: string, headers: [string, string][]): void {
    const refused = refusal(path, this.target.clients);
    if (refused) {
      const body = Buffer.from(JSON.stringify({ error: refused.error }), 'utf8');
      setImmediate(() => this.target.reply({ t: 'ws-opened', id, ok: false, status: refused.status, protocol: null }, body));
      return;
    }
    // The listener's origin and the path as it came: the path cannot name another host here.
    const local = new URL(this.target.localUrl);
    const url = `${local.protocol === 'https:' ? 'wss:' : 'ws:'}//${local.host}${path}`;
    const protocol = headers.find(([n]) => n.toLowerCase() === 'sec-websocket-protocol')?.[1];
    const plain: Record<string, string> = {};
    for (const [name, value] of headers) if (name.toLowerCase() !== 'sec-websocket-protocol') plain[name] = value;
    let socket: WebSocket;
    try {
      socket = new WebSocket(url, protocol ? protocol.split(',').map((p) => p.trim()) : [], { headers: plain, perMessageDeflate: false });
    } catch {
      // ws refuses a URL it cannot use (characters a path may not have).
      setImmediate(() => this.target.reply({ t: 'ws-opened', id, ok: false, status: 400, protocol: null }));
      return;
    }
    this.sockets.set(id, socket);
    let opened = false;
    socket.on('open', () => {
      opened = true;
      this.target.reply({ t: 'ws-opened', id, ok: true, status: 101, protocol: socket.protocol || null });
    });
    // The instance refused the upgrade (a bad token, a Host it does not serve): its status and
    // its JSON error go back to the client.
    socket.on('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        if (!this.sockets.delete(id)) return;
        this.target.reply({ t: 'ws-opened', id, ok: false, status: res.statusCode ?? 502, protocol: null }, Buffer.concat(chunks).subarray(0, MAX_REFUSAL_BODY));
        socket.terminate();
      };
      res.on('data', (piece: Buffer) => {
        if (size < MAX_REFUSAL_BODY) chunks.push(piece);
        size += piece.length;
      });
      res.on('end', done);
      res.on('close', done);
    });
    socket.on('message', (data, isBinary) => {
      const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
      this.target.reply({ t: 'ws-data', id, binary: isBinary }, bytes);
    });
    // Before it opened, a failure is the answer to ws-open; after, the close that follows tells.
    socket.on('error', () => {
      if (!opened && this.sockets.delete(id)) this.target.reply({ t: 'ws-opened', id, ok: false, status: 502, protocol: null });
    });
    socket.on('close', (code) => {
      if (this.sockets.delete(id)) this.target.reply(opened ? { t: 'ws-close', id, code } : { t: 'ws-opened', id, ok: false, status: 502, protocol: null });
    });
  }

  /** The tunnel dropped: every request and socket through it ends. */
  closeAll(): void {
    for (const req of this.requests.values()) req.destroy();
    this.requests.clear();
    for (const socket of this.sockets.values()) socket.terminate();
    this.sockets.clear();
  }
}
