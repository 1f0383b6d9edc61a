import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import type { ToInstance, ToRelay } from '../protocol.js';

/** How long a client's WebSocket waits for the instance to accept it. */
const OPEN_TIMEOUT_MS = 15_000;

type Post = (frame: ToInstance, body?: Uint8Array) => void;

interface Pending {
  accept: (protocol: string | null) => void;
  refuse: (status: number) => void;
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
  open(wss: WebSocketServer, req: IncomingMessage, socket: Duplex, head: Buffer, path: string, headers: [string, string][]): void {
    const id = `w${this.nextId++}`;
    const timer = setTimeout(() => refuse(504), OPEN_TIMEOUT_MS);
    const refuse = (status: number) => {
      clearTimeout(timer);
      this.pending.delete(id);
      socket.end(`HTTP/1.1 ${status} ${status === 503 ? 'Service Unavailable' : 'Error'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    this.pending.set(id, {
      refuse,
      accept: () => {
        clearTimeout(timer);
        this.pending.delete(id);
        wss.handleUpgrade(req, socket, head, (client) => {
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
      if (!pending) return;
      if (frame.ok) pending.accept(frame.protocol);
      else pending.refuse(frame.status);
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
