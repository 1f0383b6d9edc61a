import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { classify } from './classify.js';
import type { RelayMetrics } from './metrics.js';
import { DEDUPE_WINDOW_MS, headerPairs } from './protocol.js';
import type { RelayStore, Tenant } from './store/types.js';
import type { EdgeVerifier } from './verify.js';

/** Largest inbox body accepted (as the instance's own limit). */
export const MAX_INBOX_BYTES = 1024 * 1024;

/** What accepting mail needs. */
export interface InboundContext {
  store: RelayStore;
  verifier: EdgeVerifier;
  metrics: RelayMetrics;
  /** Bytes of each tenant's cache, kept up to date by the caller (the quota covers both). */
  cacheBytes(tenantId: string): Promise<number>;
}

class TooLarge extends Error {}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_INBOX_BYTES) throw new TooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_INBOX_BYTES) throw new TooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function answer(res: ServerResponse, status: number, text: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': String(Buffer.byteLength(text)), ...extra });
  res.end(text);
}

/**
 * An inbox POST to a tenant's host: verified at the edge (a bad signature 401, a key that cannot
 * be fetched now 503 so that the peer tries again), stored durably and only then answered 202. A
 * body seen within the last 14 days is answered 202 without a second copy. The tenant's tunnel,
 * wherever it is held, is woken to replay it.
 */
export async function acceptInbox(ctx: InboundContext, tenant: Tenant, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = performance.now();
  const done = (status: number, text: string, extra?: Record<string, string>) => {
    answer(res, status, text, extra);
    ctx.metrics.countAccept(status);
    ctx.metrics.acceptLatency.observe((performance.now() - started) / 1000);
  };
  let body: Buffer;
  try {
    body = await readBody(req);
  } catch (err) {
    if (err instanceof TooLarge) done(413, 'Payload Too Large');
    else req.destroy();
    return;
  }
  const headers = headerPairs(req.rawHeaders);
  const request = new Request(new URL(req.url ?? '/', tenant.origin), { method: 'POST', headers: new Headers(headers), body: new Uint8Array(body) });
  const verdict = await ctx.verifier.verify(request);
  if (!verdict.ok) {
    done(verdict.status, verdict.status === 503 ? 'Key unavailable, try again later' : 'Signature verification failed', verdict.status === 503 ? { 'retry-after': '300' } : {});
    return;
  }
  const { type, priority } = classify(body, tenant.origin);
  const now = Date.now();
  const outcome = await ctx.store.accept(
    tenant.id,
    { receivedAt: now, method: 'POST', path: req.url ?? '/', headers, body, bodyHash: createHash('sha256').update(body).digest('hex'), priority, activityType: type },
    { quotaBytes: Math.max(0, tenant.quotaBytes - (await ctx.cacheBytes(tenant.id))), dedupeSince: now - DEDUPE_WINDOW_MS },
  );
  // Shed or repeated, the peer hears 202 as for any delivery taken: it must not send it again.
  done(202, '');
  if (outcome.kind === 'stored') await ctx.store.signal({ kind: 'inbound', tenantId: tenant.id }).catch(() => {});
}
