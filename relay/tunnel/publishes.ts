import { checkPublishable } from '../cache.js';
import { MAX_PUBLISH_BYTES, type ToInstance, type ToRelay } from '../protocol.js';
import type { RelayStore, Tenant } from '../store/types.js';

type PublishFrame = Extract<ToRelay, { t: 'publish' }>;
type UnpublishFrame = Extract<ToRelay, { t: 'unpublish' }>;

/** A streamed publish whose chunks are arriving. */
interface Incoming {
  frame: PublishFrame;
  chunks: Buffer[];
  size: number;
}

/**
 * What a tenant publishes to its cache of public documents, on the relay's side: each document is
 * checked (nothing addressed but not public is taken) and counted against the tenant's quota
 * together with its backlog, then stored under its key and aliases; a file too large for one frame
 * arrives in chunks first. Every publish and unpublish is answered with `published`.
 */
export class TenantPublishes {
  private readonly incoming = new Map<string, Incoming>();

  constructor(
    private readonly store: RelayStore,
    private readonly tenant: Tenant,
    private readonly post: (frame: ToInstance) => void,
  ) {}

  /** A `publish` frame: stored now, or once its chunks have come. */
  start(frame: PublishFrame, body: Buffer): void {
    if (frame.streamed) this.incoming.set(frame.id, { frame, chunks: [], size: 0 });
    else void this.put(frame, body);
  }

  /** A chunk of a streamed publish; false when `id` is not one. */
  chunk(id: string, body: Buffer): boolean {
    const incoming = this.incoming.get(id);
    if (!incoming) return false;
    incoming.size += body.length;
    if (incoming.size > MAX_PUBLISH_BYTES) {
      this.incoming.delete(id);
      this.answer(id, false, true, `larger than the ${MAX_PUBLISH_BYTES} bytes the cache takes`);
    } else incoming.chunks.push(Buffer.from(body));
    return true;
  }

  /** The end of a streamed publish; false when `id` is not one. */
  end(id: string, error: string | null): boolean {
    const incoming = this.incoming.get(id);
    if (!incoming) return false;
    this.incoming.delete(id);
    if (error) this.answer(id, false, false, `the upload broke off: ${error}`);
    else void this.put(incoming.frame, Buffer.concat(incoming.chunks));
    return true;
  }

  /** An `unpublish` frame. */
  unpublish(frame: UnpublishFrame): void {
    void this.store
      .dropCache(this.tenant.id, frame.key)
      .then(() => this.answer(frame.id, true, false, null))
      .catch((err: unknown) => this.answer(frame.id, false, false, (err as Error).message));
  }

  private async put(frame: PublishFrame, body: Buffer): Promise<void> {
    const refusal = checkPublishable(frame.key, frame.status, frame.contentType, body);
    if (refusal) return this.answer(frame.id, false, true, refusal);
    try {
      const keys = [frame.key, ...frame.aliases];
      // The quota covers the backlog and the cache together; what these keys hold now is replaced.
      const [tenant, backlog, cached, replaced] = await Promise.all([
        this.store.tenantById(this.tenant.id),
        this.store.backlog(this.tenant.id),
        this.store.cacheBytes(this.tenant.id),
        Promise.all(keys.map((k) => this.store.getCache(this.tenant.id, k))),
      ]);
      const freed = replaced.reduce((n, entry) => n + (entry?.body.length ?? 0), 0);
      const quota = tenant?.quotaBytes ?? this.tenant.quotaBytes;
      if (backlog.bytes + cached - freed + body.length * keys.length > quota) return this.answer(frame.id, false, true, 'over the tenant quota');
      const now = Date.now();
      for (const key of keys) await this.store.putCache(this.tenant.id, { key, status: frame.status, contentType: frame.contentType, body, updatedAt: now });
      this.answer(frame.id, true, false, null);
    } catch (err) {
      this.answer(frame.id, false, false, (err as Error).message);
    }
  }

  private answer(id: string, ok: boolean, refused: boolean, error: string | null): void {
    this.post({ t: 'published', id, ok, refused, error });
  }

  /** The tunnel closed: streamed publishes still arriving are dropped (the instance sends them again). */
  close(): void {
    this.incoming.clear();
  }
}
