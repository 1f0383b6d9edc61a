import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type * as Http from 'node:http';
import { pipeline } from 'node:stream';
import { HOP_BY_HOP } from './protocol.js';
import type { RelayStore } from './store/types.js';

const require = createRequire(import.meta.url);
const http = require('node:http') as typeof Http;

/** Header marking a request one relay process hands to another, with the secret they share. */
export const HOP_HEADER = 'x-hearth-relay-hop';

/** This process as other relay processes see it. */
export interface NodeHop {
  nodeId: string;
  /** Shared by the processes of one relay (kept in the store), so that a hop cannot be forged from outside. */
  secret: string;
}

/**
 * A process not heard from for this long (three of the 30-second heartbeats relay/server.ts
 * writes) is taken for gone: a tunnel it still claims is not waited for.
 */
export const NODE_STALE_MS = 90_000;

/**
 * Hands a live request to the relay process that holds the tenant's tunnel (PostgreSQL mode,
 * several processes behind a load balancer), streaming both ways. Resolves false when that process
 * cannot be reached, or has stopped beating (it died holding the tunnel): the caller answers from
 * the cache.
 */
export async function forwardToNode(store: RelayStore, hop: NodeHop, nodeId: string, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const node = await store.nodeById(nodeId);
  if (!node || node.seenAt < Date.now() - NODE_STALE_MS) return false;
  const target = new URL(req.url ?? '/', node.url);
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && name !== 'connection') headers[name] = value;
  headers[HOP_HEADER] = hop.secret;
  return new Promise<boolean>((resolve) => {
    const out = http.request(target, { method: req.method, headers, timeout: 25_000 }, (answer) => {
      const pairs: string[] = [];
      for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) {
        const name = answer.rawHeaders[i] as string;
        if (!HOP_BY_HOP.has(name.toLowerCase())) pairs.push(name, answer.rawHeaders[i + 1] as string);
      }
      res.writeHead(answer.statusCode ?? 502, pairs);
      // An answer cut off at the other process (its tunnel dropped mid-answer) cuts this one off
      // too, rather than leaving the peer waiting for the rest; a peer that goes away ends it there.
      pipeline(answer, res, () => {});
      resolve(true);
    });
    out.on('timeout', () => out.destroy(new Error('timeout')));
    out.on('error', () => resolve(false));
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    req.pipe(out);
  });
}
