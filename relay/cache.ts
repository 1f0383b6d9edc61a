import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RelayStore, Tenant } from './store/types.js';

const PUBLIC = new Set(['https://www.w3.org/ns/activitystreams#Public', 'as:Public', 'Public']);

/**
 * The cache key a request is answered under: its path and query, except WebFinger, whose
 * `resource` is normalized (a bare `user@host` gains `acct:`, `acct:` handles are lower case) so
 * that the spellings peers use find the one document.
 */
export function cacheKeyOf(pathAndQuery: string): string {
  const url = new URL(pathAndQuery, 'http://relay.invalid');
  if (url.pathname !== '/.well-known/webfinger') return `${url.pathname}${url.search}`;
  let resource = url.searchParams.get('resource') ?? '';
  if (/^[^:@/]+@[^@/]+$/.test(resource)) resource = `acct:${resource}`;
  if (resource.toLowerCase().startsWith('acct:')) resource = resource.toLowerCase();
  return `/.well-known/webfinger?resource=${resource}`;
}

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap((v) => strings(v));
  return [];
}

/** The first object (this one or one inside it) that is addressed, but not to the public. */
function privateObject(node: unknown, depth = 0): string | null {
  if (depth > 8 || node === null || typeof node !== 'object') return null;
  if (Array.isArray(node)) {
    for (const item of node) {
      const found = privateObject(item, depth + 1);
      if (found) return found;
    }
    return null;
  }
  const record = node as Record<string, unknown>;
  if ('to' in record || 'cc' in record) {
    const audience = [...strings(record.to), ...strings(record.cc)];
    if (!audience.some((a) => PUBLIC.has(a))) return typeof record.id === 'string' ? record.id : '(an object without id)';
  }
  for (const [key, value] of Object.entries(record)) {
    if (key === '@context') continue;
    const found = privateObject(value, depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * Why a document may not go into the public cache, or null when it may: an ActivityPub document
 * holding anything addressed but not to the public (a followers-only or direct post, or an
 * activity around one) is refused, whatever the instance says. A deleted object's Tombstone (410)
 * and media pass.
 */
export function checkPublishable(key: string, status: number, contentType: string, body: Buffer): string | null {
  if (!key.startsWith('/')) return 'a cache key is a path';
  if (status === 410) return null;
  if (!/json/.test(contentType)) return null;
  let document: unknown;
  try {
    document = JSON.parse(body.toString('utf8'));
  } catch {
    return 'not JSON';
  }
  const found = privateObject(document);
  return found ? `not public: ${found}` : null;
}

/**
 * Answers a GET or HEAD from the tenant's cache of public documents: 200 with the document, or
 * 410 with the Tombstone of a deleted object. Resolves false when nothing is cached under the key.
 */
export async function answerFromCache(store: RelayStore, tenant: Tenant, req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const entry = await store.getCache(tenant.id, cacheKeyOf(path));
  if (!entry) return false;
  res.writeHead(entry.status, {
    'content-type': entry.contentType,
    'content-length': String(entry.body.length),
    'cache-control': 'max-age=60',
    'x-hearth-relay': 'cache',
    'last-modified': new Date(entry.updatedAt).toUTCString(),
  });
  res.end(req.method === 'HEAD' ? undefined : entry.body);
  return true;
}
