import { createHmac } from 'node:crypto';
import { http, https } from '../../util/node-http.js';
import { HEARTH_VERSION } from '../../util/version.js';

/** How a webhook request went: the endpoint's status, or no answer at all (`error`). */
export type WebhookAnswer = { status: number } | { error: string };

/** How long one webhook request may take. */
const SEND_TIMEOUT_MS = 30_000;

/** How much of an answer is read (and dropped). */
const MAX_ANSWER_BYTES = 64 * 1024;

/** The `X-Hub-Signature` of a body: `sha256=` and the hex HMAC-SHA256 of the body with the webhook's secret. */
export function webhookSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * POSTs a webhook body, signed, and resolves with the answer's status (or the error that kept it
 * from being answered); never rejects. As Mastodon's webhook requests, it may reach addresses on
 * this machine and the local network (staff point webhooks at their own services), and it goes
 * out directly, never through the relay (which could not reach those).
 */
export function sendWebhook(url: string, secret: string, body: string, origin: string): Promise<WebhookAnswer> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve({ error: `not a URL: ${url}` });
  }
  const secure = target.protocol === 'https:';
  if (!secure && target.protocol !== 'http:') return Promise.resolve({ error: `not an http(s) URL: ${url}` });
  const payload = Buffer.from(body, 'utf8');
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: WebhookAnswer) => {
      if (!settled) {
        settled = true;
        resolve(answer);
      }
    };
    const req = (secure ? https().request : http.request)(
      target,
      {
        method: 'POST',
        timeout: SEND_TIMEOUT_MS,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': String(payload.length),
          'User-Agent': `Hearth/${HEARTH_VERSION} (+${origin})`,
          'X-Hub-Signature': webhookSignature(secret, body),
        },
      },
      (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) res.destroy();
        });
        const done = () => finish({ status: res.statusCode ?? 0 });
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${target.host} within ${SEND_TIMEOUT_MS / 1000} s`)));
    req.on('error', (err) => finish({ error: err.message }));
    req.end(payload);
  });
}
