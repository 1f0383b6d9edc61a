import type { RequestHandler, Response } from 'express';
import type { Deps } from '../core/deps.js';
import { clientBase } from '../util/hosts.js';
import { authenticateStream, streamingToken } from './auth.js';
import { channelOfPath, resolveChannel, StreamError } from './channels.js';
import type { Hub, Subscription, Transport } from './hub.js';
import type { Outgoing } from './message.js';

/** A server-sent events response as the hub writes to it. */
class SseTransport implements Transport {
  readonly kind = 'sse';

  constructor(private readonly res: Response) {}

  bufferedAmount(): number {
    return this.res.writableLength;
  }

  write(sub: Subscription, message: Outgoing): void {
    if (!this.res.writableEnded) this.res.write(message.sse(sub.session.rebase));
  }

  heartbeat(): boolean {
    if (this.res.destroyed || this.res.writableEnded) return false;
    this.res.write(':thump\n');
    return true;
  }

  close(terminate: boolean): void {
    if (terminate) this.res.destroy();
    else this.res.end();
  }
}

// Mastodon's truthiness for query flags.
const FALSE_VALUES = new Set(['', '0', 'f', 'F', 'false', 'FALSE', 'off', 'OFF']);

function firstString(value: unknown): string | undefined {
  const first = Array.isArray(value) ? (value as unknown[])[0] : value;
  return typeof first === 'string' ? first : undefined;
}

function sendError(res: Response, err: StreamError): void {
  res.status(err.status).json({ error: err.message });
}

/**
 * The HTTP side of the streaming API: `GET /api/v1/streaming/health` answers `OK`, and the
 * Mastodon paths under /api/v1/streaming/ (user, user/notification, public[/local|/remote] with
 * `only_media`, hashtag[/local] with `tag`, list with `list`, direct) stream server-sent events.
 * An unknown path is 400 `Unknown channel requested`; token, scope and parameter errors are
 * answered as JSON before the stream starts. `hub()` is the live hub (null until the server listens).
 */
export function streamingHttp(deps: Deps, hub: () => Hub | null): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'GET' || !req.path.startsWith('/api/v1/streaming/')) {
      next();
      return;
    }
    if (req.path === '/api/v1/streaming/health') {
      res.type('text/plain').send('OK');
      return;
    }
    const query = req.query as Record<string, unknown>;
    const onlyMedia = firstString(query.only_media);
    const channel = channelOfPath(req.path, onlyMedia !== undefined && !FALSE_VALUES.has(onlyMedia));
    const live = hub();
    try {
      if (channel === null) throw new StreamError(400, 'Unknown channel requested');
      if (!live) throw new StreamError(503, 'The streaming service is not running');
      const search = new URLSearchParams();
      const token = firstString(query.access_token);
      if (token) search.set('access_token', token);
      const auth = authenticateStream(deps, streamingToken(req, search));
      const target = resolveChannel(deps, auth, channel, { tag: query.tag, list: query.list });
      res.writeHead(200, {
        'Content-Type': 'text/event-stream',
        'Cache-Control': 'private, no-store',
        // Proxies must pass events on as they come.
        'X-Accel-Buffering': 'no',
      });
      req.socket.setNoDelay(true);
      req.socket.setTimeout(0);
      // A first comment line, as Mastodon writes: clients see the stream open at once.
      res.write(':)\n');
      // A local-only instance's events carry URLs at the address this request came to.
      const session = live.open(auth, new SseTransport(res), clientBase(deps.config, req));
      live.subscribe(session, target);
      res.on('close', () => live.forget(session));
    } catch (err) {
      if (err instanceof StreamError) sendError(res, err);
      else next(err);
    }
  };
}
