import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the receiver got. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The JSON body, when it is JSON. */
  json: any;
  /** The status the receiver answered. */
  answered: number;
}

/**
 * A local webhook endpoint: records every POST and answers with the next status of `answers`
 * (then 200). `verify` checks a request's X-Hub-Signature as a receiver must: HMAC-SHA256 of the
 * raw body with the shared secret, compared in constant time.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  answers: number[] = [];
  private server: Server | null = null;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        const answered = this.answers.shift() ?? 200;
        this.received.push({ path: req.url ?? '', headers: req.headers, body, json, answered });
        res.writeHead(answered, { 'content-type': 'text/plain' });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The requests for an event. */
  of(event: string): Received[] {
    return this.received.filter((r) => r.json?.event === event);
  }
}

/** Whether a request carries the signature of its body with `secret`. */
export function verifySignature(request: Received, secret: string): boolean {
  const header = String(request.headers['x-hub-signature'] ?? '');
  if (!header.startsWith('sha256=')) return false;
  const expected = createHmac('sha256', secret).update(request.body).digest();
  const given = Buffer.from(header.slice('sha256='.length), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
