import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { Deps } from '../core/deps.js';
import { clientBase } from '../util/hosts.js';
import { http } from '../util/node-http.js';
import { authenticateStream, hostAllowed, streamingToken, type StreamSessionAuth } from './auth.js';
import { resolveChannel, StreamError, subscriptionKey, type ChannelParams } from './channels.js';
import type { Hub, Session, Subscription, Transport } from './hub.js';
import type { Outgoing } from './message.js';

/** Largest message a client may send (subscribe messages are tiny); larger ones close the socket (1009). */
const MAX_MESSAGE_BYTES = 16 * 1024;

/** A WebSocket connection as the hub writes to it. */
class WebSocketTransport implements Transport {
  readonly kind = 'websocket';
  /** Set by each pong; a client that misses a whole ping period is dropped. */
  alive = true;

  constructor(readonly ws: WebSocket) {}

  bufferedAmount(): number {
    return this.ws.bufferedAmount;
  }

  write(sub: Subscription, message: Outgoing): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    this.ws.send(message.wsFrame(sub.streamJson, sub.session.rebase), { binary: false });
  }

  /** Sends an error as Mastodon does: `{"error": …, "status": …}`; the connection stays open. */
  error(err: StreamError): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    this.ws.send(JSON.stringify({ error: err.message, status: err.status }));
  }

  heartbeat(): boolean {
    if (!this.alive) return false;
    this.alive = false;
    if (this.ws.readyState === WebSocket.OPEN) this.ws.ping();
    return true;
  }

  close(terminate: boolean): void {
    if (terminate) this.ws.terminate();
    else this.ws.close(1000);
  }
}

/** Answers a refused upgrade with a JSON error and closes the socket (Mastodon's streaming server does the same). */
function refuse(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

function isStreamingPath(pathname: string): boolean {
  return pathname === '/api/v1/streaming' || pathname.startsWith('/api/v1/streaming/');
}

function paramsOf(source: Record<string, unknown>): ChannelParams {
  return { tag: source.tag, list: source.list };
}

/** Handles one message from a client: subscribe or unsubscribe; anything else is answered with an error. */
function onMessage(deps: Deps, hub: Hub, session: Session, transport: WebSocketTransport, data: RawData, isBinary: boolean): void {
  if (isBinary) {
    // Mastodon's streaming server works with text frames only and closes on binary ones.
    transport.ws.close(1003, 'Binary messages are not supported');
    return;
  }
  let message: unknown;
  try {
    message = JSON.parse(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString('utf8'));
  } catch {
    transport.error(new StreamError(400, 'Invalid JSON message'));
    return;
  }
  if (message === null || typeof message !== 'object' || Array.isArray(message)) {
    transport.error(new StreamError(400, 'Invalid message: expected a JSON object'));
    return;
  }
  const fields = message as Record<string, unknown>;
  try {
    if (fields.type === 'subscribe') {
      subscribe(deps, hub, session, fields.stream, paramsOf(fields));
    } else if (fields.type === 'unsubscribe') {
      hub.unsubscribe(session, subscriptionKey(fields.stream, paramsOf(fields)));
    } else {
      throw new StreamError(400, 'Unknown message type: expected subscribe or unsubscribe');
    }
  } catch (err) {
    if (!(err instanceof StreamError)) throw err;
    transport.error(err);
  }
}

function subscribe(deps: Deps, hub: Hub, session: Session, stream: unknown, params: ChannelParams): void {
  const target = resolveChannel(deps, session.auth, stream, params);
  if (hub.subscribe(session, target) === 'limit') throw new StreamError(400, 'Too many subscriptions on this connection');
}

function connect(deps: Deps, hub: Hub, ws: WebSocket, auth: StreamSessionAuth, query: URLSearchParams, base: string | null): void {
  const transport = new WebSocketTransport(ws);
  const session = hub.open(auth, transport, base);
  ws.on('close', () => hub.forget(session));
  // A network error is followed by 'close'; nothing else to do.
  ws.on('error', () => {});
  ws.on('pong', () => {
    transport.alive = true;
  });
  ws.on('message', (data, isBinary) => {
    try {
      onMessage(deps, hub, session, transport, data, isBinary);
    } catch (err) {
      console.error('streaming: a message could not be handled', err);
      transport.error(new StreamError(500, 'An unexpected error occurred'));
    }
  });
  const stream = query.get('stream');
  if (stream !== null) {
    try {
      subscribe(deps, hub, session, stream, { tag: query.get('tag') ?? undefined, list: query.get('list') ?? undefined });
    } catch (err) {
      if (!(err instanceof StreamError)) throw err;
      transport.error(err);
    }
  }
}

/**
 * Serves WebSocket connections at /api/v1/streaming on the instance's own HTTP server. The
 * upgrade is refused with a JSON error (400, 401, 403) when the Host is not allowed or the token
 * is missing or invalid; otherwise the connection opens and subscribes to `stream` when the query
 * names one (errors then arrive on the socket). Returns a function that detaches the handler.
 */
export function attachWebSocket(deps: Deps, hub: Hub, server: Server): () => void {
  const wss = new WebSocketServer({ noServer: true, clientTracking: false, perMessageDeflate: false, maxPayload: MAX_MESSAGE_BYTES });
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!isStreamingPath(url.pathname)) {
      // Another part of the instance may serve upgrades elsewhere; alone, this handler refuses them.
      if (server.listenerCount('upgrade') === 1) refuse(socket, 404, 'Not Found');
      return;
    }
    socket.on('error', () => {});
    if (!hostAllowed(deps.config, req)) {
      refuse(socket, 403, 'This host name is not allowed');
      return;
    }
    let auth: StreamSessionAuth;
    try {
      auth = authenticateStream(deps, streamingToken(req, url.searchParams));
    } catch (err) {
      if (err instanceof StreamError) refuse(socket, err.status, err.message);
      else {
        console.error('streaming: authentication failed', err);
        refuse(socket, 500, 'An unexpected error occurred');
      }
      return;
    }
    // A local-only instance's events carry URLs at the address this connection came to.
    const base = clientBase(deps.config, req);
    wss.handleUpgrade(req, socket, head, (ws) => connect(deps, hub, ws, auth, url.searchParams, base));
  };
  server.on('upgrade', onUpgrade);
  return () => {
    server.off('upgrade', onUpgrade);
    wss.close();
  };
}
