import type { Server } from 'node:http';
import type { RequestHandler } from 'express';
import type { Deps } from '../core/deps.js';
import type { Db } from '../db/connection.js';
import { installAnnouncementStreaming } from './announcements.js';
import { installDispatch } from './dispatch.js';
import { Hub } from './hub.js';
import { streamingHttp as sseHandler } from './sse.js';
import { attachWebSocket } from './websocket.js';

export type { Hub } from './hub.js';

/**
 * Mastodon's streaming API on the instance's own port: WebSocket at /api/v1/streaming (see
 * websocket.ts), server-sent events and the health check under /api/v1/streaming/ (sse.ts), fed
 * by core events (dispatch.ts). One hub per running instance, keyed by its database handle.
 */
const hubs = new WeakMap<Db, Hub>();

/** The live hub of an instance, or null before it listens (tests and benchmarks read its counts). */
export function streamingHub(deps: Deps): Hub | null {
  return hubs.get(deps.db) ?? null;
}

/** The Express handler of the SSE streams and the health check; mount it before the API routes. */
export function streamingHttp(deps: Deps): RequestHandler {
  return sseHandler(deps, () => streamingHub(deps));
}

/**
 * Starts streaming on listening servers (the HTTP port, and the HTTPS listener when it is on):
 * WebSocket upgrades, the event feed and the heartbeats, one hub for all. Call it outside any
 * request: events are rendered with the URLs in force now (see Hub). Returns the function that
 * stops it, ending every connection (call it before closing the servers, whose close would
 * otherwise wait for the upgraded sockets).
 */
export function installStreaming(deps: Deps, servers: Server | readonly Server[]): () => void {
  const hub = new Hub(deps.uris.base);
  const stopDispatch = installDispatch(deps, hub);
  const stopAnnouncements = installAnnouncementStreaming(deps, hub);
  const detachAll = (Array.isArray(servers) ? servers : [servers]).map((server: Server) => attachWebSocket(deps, hub, server));
  hubs.set(deps.db, hub);
  return () => {
    for (const detach of detachAll) detach();
    stopDispatch();
    stopAnnouncements();
    hub.close();
    if (hubs.get(deps.db) === hub) hubs.delete(deps.db);
  };
}
