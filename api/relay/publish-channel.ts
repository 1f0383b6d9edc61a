import { CHUNK_BYTES, type ToInstance, type ToRelay } from '../../relay/protocol.js';

/** A public document for the relay's cache. */
export interface PublishEntry {
  /** The path and query it answers (`/users/kim`, `/.well-known/webfinger?resource=acct:kim@host`). */
  key: string;
  /** Other keys answering the same document (WebFinger by actor URL…). */
  aliases: string[];
  /** 200, or 410 with a Tombstone for a deleted object. */
  status: 200 | 410;
  contentType: string;
  body: Buffer;
}

/** The relay's answer to a publish. */
export interface PublishResult {
  ok: boolean;
  /** Not taken as it is (not public, too large, over quota): sending it again changes nothing. */
  refused: boolean;
  error: string | null;
}

/** Bodies larger than this go in chunks after the publish frame, not in it. */
const SINGLE_FRAME_BYTES = 2 * 1024 * 1024;

/** Above this many bytes waiting in the tunnel, a streamed publish pauses. */
const HIGH_WATER = 4 * 1024 * 1024;

/** How long the relay has to store a document. */
const PUBLISH_TIMEOUT_MS = 60_000;

/**
 * Publishing over the tunnel: each `publish` or `unpublish` frame gets the relay's `published`
 * answer, matched by id. Rejects when the tunnel is down or drops before the answer (the
 * publisher keeps the document for the next connection).
 */
export class PublishChannel {
  private nextId = 1;
  private readonly pending = new Map<string, { resolve: (r: PublishResult) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();

  constructor(
    private readonly tunnel: {
      send(frame: ToRelay, body?: Uint8Array): boolean;
      whenConnected(timeoutMs: number): Promise<boolean>;
      /** Bytes waiting in the tunnel's WebSocket. */
      buffered(): number;
    },
  ) {}

  /** Resolves true once the tunnel is up (false after `timeoutMs`). */
  whenConnected(timeoutMs: number): Promise<boolean> {
    return this.tunnel.whenConnected(timeoutMs);
  }

  /** Stores a document in the relay's cache. */
  publish(entry: PublishEntry): Promise<PublishResult> {
    const head = { t: 'publish' as const, key: entry.key, aliases: entry.aliases, status: entry.status, contentType: entry.contentType };
    if (entry.body.length <= SINGLE_FRAME_BYTES) return this.exchange((id) => this.tunnel.send({ ...head, id, streamed: false }, entry.body));
    // A large file goes in chunks, pausing while the tunnel is backed up (live requests share it).
    return this.exchange((id) => {
      if (!this.tunnel.send({ ...head, id, streamed: true })) return false;
      void (async () => {
        for (let at = 0; at < entry.body.length; at += CHUNK_BYTES) {
          while (this.tunnel.buffered() > HIGH_WATER) await new Promise((r) => setTimeout(r, 10));
          if (!this.tunnel.send({ t: 'chunk', id }, entry.body.subarray(at, at + CHUNK_BYTES))) return;
        }
        this.tunnel.send({ t: 'end', id, error: null });
      })();
      return true;
    });
  }

  /** Removes a document from the relay's cache. */
  unpublish(key: string): Promise<PublishResult> {
    return this.exchange((id) => this.tunnel.send({ t: 'unpublish', id, key }));
  }

  private exchange(send: (id: string) => boolean): Promise<PublishResult> {
    const id = `p${this.nextId++}`;
    return new Promise<PublishResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error('the relay did not answer the publish in time'));
      }, PUBLISH_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      if (!send(id)) {
        clearTimeout(timer);
        this.pending.delete(id);
        reject(new Error('the relay tunnel is not connected'));
      }
    });
  }

  /** Handles the relay's `published` answers; false for other frames. */
  handle(frame: ToInstance): boolean {
    if (frame.t !== 'published') return false;
    const pending = this.pending.get(frame.id);
    if (!pending) return true;
    this.pending.delete(frame.id);
    clearTimeout(pending.timer);
    pending.resolve({ ok: frame.ok, refused: frame.refused, error: frame.error });
    return true;
  }

  /** The tunnel dropped: publishes waiting for an answer fail (they are sent again after reconnecting). */
  failAll(): void {
    for (const pending of this.pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(new Error('the relay tunnel dropped'));
    }
    this.pending.clear();
  }
}
