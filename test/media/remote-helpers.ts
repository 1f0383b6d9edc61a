import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Deps } from '../../api/core/deps.js';
import type { RemoteActorData } from '../../api/core/federation/remote-accounts.js';
import { createRemoteStatus, type RemoteAttachmentData } from '../../api/core/federation/remote-statuses.js';
import type { AccountRow } from '../../api/db/repos/accounts.js';

/**
 * Helpers of the remote media tests: a tiny file server on a loopback address playing the remote
 * server, and remote accounts and statuses stored through the core functions the inbox uses.
 */

export interface Attachment { id: string; url: string; preview_url: string | null; remote_url: string | null; blurhash: string | null; type: string }
export interface Status { id: string; media_attachments: Attachment[] }
export interface Account { id: string; avatar: string; avatar_static: string; header: string }

export const HOST = '127.0.0.5';

/** The remote server: fixed files, a file that claims to be huge, a non-media file, a flaky one. */
export class FileServer {
  server!: Server;
  base = '';
  hits = new Map<string, number>();
  files = new Map<string, { body: Buffer; type: string }>();
  flakyFailures = 2;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const path = req.url ?? '/';
      this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
      if (path === '/huge.jpg') {
        // Declares 200 MB; the fetch must give up on the header alone.
        res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': String(200 * 1024 * 1024) });
        res.write(Buffer.alloc(1024));
        setTimeout(() => res.destroy(), 200);
        return;
      }
      if (path.startsWith('/flaky') && (this.hits.get(path) ?? 0) <= this.flakyFailures) {
        res.writeHead(503).end();
        return;
      }
      const file = this.files.get(path.replace(/^\/flaky/, ''));
      if (!file) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': file.type, 'content-length': String(file.body.length) });
      res.end(file.body);
    });
    await new Promise<void>((resolve) => this.server.listen(0, HOST, resolve));
    this.base = `http://${HOST}:${(this.server.address() as AddressInfo).port}`;
  }

  url(path: string): string {
    return `${this.base}${path}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A port nothing listens on (connections are refused). */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, HOST, resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

let serial = 0;

/** The uri of the last remote status made by `remoteStatus`. */
export function lastStatusUri(server: FileServer, username: string): string {
  return server.url(`/users/${username}/statuses/${serial}`);
}

export function remoteActor(server: FileServer, username: string, images: { avatar?: string | null; header?: string | null } = {}): RemoteActorData {
  const uri = server.url(`/users/${username}`);
  return {
    uri,
    username,
    domain: new URL(server.base).host,
    url: uri,
    actorType: 'Person',
    displayName: username,
    note: '',
    fields: [],
    locked: false,
    discoverable: true,
    indexable: true,
    memorial: false,
    avatarUrl: images.avatar === undefined ? null : images.avatar,
    headerUrl: images.header === undefined ? null : images.header,
    alsoKnownAs: [],
    movedToUri: null,
    publicKeyPem: null,
    inbox: null,
    outbox: null,
    sharedInbox: null,
    followers: null,
    following: null,
    featured: null,
    featuredTags: null,
  };
}

export function attachment(url: string, mediaType = 'image/jpeg', blurhash: string | null = null): RemoteAttachmentData {
  return { url, mediaType, description: 'a remote picture', blurhash, focus: null };
}

export function remoteStatus(deps: Deps, server: FileServer, author: AccountRow, attachments: RemoteAttachmentData[]): string {
  serial++;
  const uri = server.url(`/users/${author.username}/statuses/${serial}`);
  const { status } = createRemoteStatus(
    deps,
    author,
    {
      uri,
      url: uri,
      content: `<p>remote post ${serial}</p>`,
      spoilerText: '',
      sensitive: false,
      language: 'en',
      visibility: 'public',
      inReplyToUri: null,
      mentionUris: [],
      tags: [],
      attachments,
      published: Date.now(),
      updated: null,
    },
    () => undefined,
  );
  return status.id;
}

/** The bytes and headers of a URL (the API's media URLs are absolute). */
export async function download(url: string): Promise<{ status: number; type: string | null; cache: string | null; body: Buffer }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), cache: res.headers.get('cache-control'), body: Buffer.from(await res.arrayBuffer()) };
}

export function copyState(deps: Deps, kind: string, id: string): { state: string; attempts: number; last_error: string | null } | undefined {
  return deps.db
    .query<{ state: string; attempts: number; last_error: string | null }>('SELECT state, attempts, last_error FROM remote_media_copies WHERE kind = @kind AND record_id = @record_id')
    .get({ kind, record_id: id });
}
