import type { ClientRequest } from 'node:http';
import WebSocket from 'ws';
import { CHUNK_BYTES, HOP_BY_HOP, type ToInstance, type ToRelay } from '../../relay/protocol.js';
import { http } from '../util/node-http.js';

/** Above this many bytes waiting in the tunnel, reading an answer pauses. */
const HIGH_WATER = 4 * 1024 * 1024;

/** What carrying live requests needs of the connector. */
export interface LiveTarget {
  /** The instance's own listener (`http://127.0.0.1:7470`). */
  localUrl: string;
  reply(frame: ToRelay, body?: Uint8Array): void;
  /** Bytes waiting in the tunnel's WebSocket. */
  buffered(): number;
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

  private start(id: string, method: string, path: string, headers: [string, string][], streamed: boolean): void {
    const flat: string[] = [];
    for (const [name, value] of headers) if (!HOP_BY_HOP.has(name.toLowerCase())) flat.push(name, value);
    const url = new URL(path, this.target.localUrl);
    const req = http.request(url, { method, headers: flat }, (res) => {
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
    });
    req.on('error', (err) => {
      if (!this.requests.delete(id)) return;
      this.target.reply({ t: 'response', id, status: 502, headers: [['Content-Type', 'text/plain']] });
      this.target.reply({ t: 'end', id, error: err.message });
    });
    this.requests.set(id, req);
    if (!streamed) req.end();
  }

  private openSocket(id: string, path: string, headers: [string, string][]): void {
    const url = new URL(path, this.target.localUrl);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    const protocol = headers.find(([n]) => n.toLowerCase() === 'sec-websocket-protocol')?.[1];
    const plain: Record<string, string> = {};
    for (const [name, value] of headers) if (name.toLowerCase() !== 'sec-websocket-protocol') plain[name] = value;
    const socket = new WebSocket(url, protocol ? protocol.split(',').map((p) => p.trim()) : [], { headers: plain, perMessageDeflate: false });
    this.sockets.set(id, socket);
    socket.on('open', () => this.target.reply({ t: 'ws-opened', id, ok: true, status: 101, protocol: socket.protocol || null }));
    socket.on('unexpected-response', (_req, res) => {
      this.sockets.delete(id);
      this.target.reply({ t: 'ws-opened', id, ok: false, status: res.statusCode ?? 502, protocol: null });
      socket.terminate();
    });
    socket.on('message', (data, isBinary) => {
      const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
      this.target.reply({ t: 'ws-data', id, binary: isBinary }, bytes);
    });
    socket.on('close', (code) => {
      if (this.sockets.delete(id)) this.target.reply({ t: 'ws-close', id, code });
    });
    socket.on('error', () => {
      if (this.sockets.delete(id)) this.target.reply({ t: 'ws-opened', id, ok: false, status: 502, protocol: null });
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
