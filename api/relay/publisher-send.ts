// Sending for the cache publisher: a document goes to the relay only when its bytes (or aliases)
// changed since it last went, and what a target no longer produces is removed from the relay with
// its aliases. Each key's record (relay_published) is written after the relay answered; a lost
// record only means the document is sent once more, so records commit without waiting for the disk.
import { createHash } from 'node:crypto';
import { withRelaxedDurability, type Db } from '../db/connection.js';
import { findPublished, forgetPublished, publishedOfTarget, recordPublished, type PublishedRow } from '../db/repos/relay-published.js';
import { backgroundLane } from '../util/background-lane.js';
import { isoTime, now } from '../util/clock.js';
import { MAX_PUBLISH_BYTES } from '../../relay/protocol.js';
import type { PublishChannel, PublishEntry, PublishResult } from './publish-channel.js';
import { LocalRenderer, type LocalAnswer } from './publisher-render.js';
import type { TargetSink } from './publisher-targets.js';

/**
 * The largest body published: what the relay's cache takes (a file larger than a frame travels in
 * chunks). Larger media are served only while the instance is online.
 */
export const MAX_PUBLISHED_BYTES = MAX_PUBLISH_BYTES;

/** Thrown when the tunnel is down: the target waits for it without counting a failure. */
export class OfflineError extends Error {
  constructor() {
    super('the relay tunnel is not connected');
  }
}

/** One pass over a target: its sink, and what to do once the target said everything it has. */
export interface TargetPass {
  readonly sink: TargetSink;
  /** Whether the target asked to be looked at again later. */
  readonly later: boolean;
  /** Removes from the relay what the target published before and did not produce in this pass. */
  removeTheRest(): Promise<void>;
}

function aliasesOf(row: PublishedRow): string[] {
  try {
    const value = JSON.parse(row.aliases) as unknown;
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

function hashOf(entry: PublishEntry): string {
  return createHash('sha256').update(`${entry.status}\n${entry.contentType}\n${JSON.stringify(entry.aliases)}\n`).update(entry.body).digest('hex');
}

/** The ActivityPub `type` of a JSON document, if it names one. */
function typeOf(contentType: string, body: Buffer): string | null {
  if (!/json/.test(contentType)) return null;
  try {
    const type = (JSON.parse(body.toString('utf8')) as { type?: unknown }).type;
    return typeof type === 'string' ? type : null;
  } catch {
    return null;
  }
}

/** Renders documents from the instance, sends the changed ones to the relay, and keeps the records. */
export class CacheWriter {
  private readonly renderer: LocalRenderer;

  constructor(
    private readonly db: Db,
    private readonly channel: PublishChannel,
    localUrl: string,
    host: string,
  ) {
    this.renderer = new LocalRenderer(localUrl, host);
  }

  /** Starts a pass over `target`. */
  pass(target: string): TargetPass {
    const before = publishedOfTarget(this.db, target);
    const seen = new Set<string>();
    let later = false;
    const sink: TargetSink = {
      document: async (path, accept, options = {}) => {
        const answer = await this.render(path, accept);
        if (answer.kind !== 'ok') return null;
        const entry: PublishEntry = { key: options.key ?? path, aliases: options.aliases ?? [], status: 200, contentType: answer.contentType, body: answer.body };
        await this.send(target, seen, entry);
        return answer.body;
      },
      file: async (path) => {
        const known = findPublished(this.db, path);
        // A stored file never changes under its key: one on the relay already stays as it is.
        if (known && known.refused === 0 && known.status === 200) {
          seen.add(path);
          return;
        }
        const answer = await this.render(path, null);
        if (answer.kind === 'ok') await this.send(target, seen, { key: path, aliases: [], status: 200, contentType: answer.contentType, body: answer.body });
      },
      tombstone: async (key, id, deletedAt) => {
        const known = findPublished(this.db, key);
        seen.add(key);
        if (known?.status === 410) return;
        const tombstone = { '@context': 'https://www.w3.org/ns/activitystreams', id, type: 'Tombstone', formerType: known?.doc_type ?? 'Note', deleted: isoTime(deletedAt) };
        await this.send(target, seen, { key, aliases: [], status: 410, contentType: 'application/activity+json', body: Buffer.from(JSON.stringify(tombstone), 'utf8') });
      },
      recorded: () => before.map((r) => r.key),
      later: () => {
        later = true;
      },
    };
    return {
      sink,
      get later() {
        return later;
      },
      removeTheRest: async () => {
        for (const row of before) {
          if (seen.has(row.key)) continue;
          // A refused document was never stored (or was removed when refused).
          if (row.refused === 0) for (const key of [row.key, ...aliasesOf(row)]) await this.unpublish(key);
          withRelaxedDurability(() => forgetPublished(this.db, row.key));
        }
      },
    };
  }

  /** Requests a document from the instance; a too large one is left to the instance (noted). */
  private async render(path: string, accept: string | null): Promise<LocalAnswer> {
    await backgroundLane.turn();
    const answer = await this.renderer.get(path, accept, MAX_PUBLISHED_BYTES);
    if (answer.kind === 'too-large') {
      console.warn(`relay: ${path} (${answer.size} bytes) is larger than the ${MAX_PUBLISHED_BYTES} bytes the cache takes; peers get it only while the instance is online`);
    }
    return answer;
  }

  /** Sends a document unless the relay has these bytes under this key already; records the outcome. */
  private async send(target: string, seen: Set<string>, entry: PublishEntry): Promise<void> {
    seen.add(entry.key);
    const hash = hashOf(entry);
    const known = findPublished(this.db, entry.key);
    if (known?.hash === hash) return;
    const result = await this.exchange(() => this.channel.publish(entry));
    // A failure of the relay's own (its store) is tried again with the target's back-off.
    if (!result.ok && !result.refused) throw new Error(`the relay could not store ${entry.key}: ${result.error ?? 'no reason given'}`);
    const row: PublishedRow = {
      key: entry.key,
      target,
      aliases: JSON.stringify(entry.aliases),
      status: entry.status,
      doc_type: typeOf(entry.contentType, entry.body),
      hash,
      refused: result.ok ? 0 : 1,
      published_at: now(),
    };
    if (result.ok) {
      // Aliases it no longer has go.
      if (known && known.refused === 0) for (const alias of aliasesOf(known)) if (!entry.aliases.includes(alias)) await this.unpublish(alias);
    } else {
      // Refused (anything addressed but not public): logged, and not sent again until it changes.
      console.warn(`relay: the relay refused ${entry.key} for its cache: ${result.error ?? 'no reason given'}`);
      // The version the relay holds must not outlive the refusal of its successor.
      if (known && known.refused === 0) for (const key of [known.key, ...aliasesOf(known)]) await this.unpublish(key);
    }
    withRelaxedDurability(() => recordPublished(this.db, row));
  }

  private async unpublish(key: string): Promise<void> {
    const result = await this.exchange(() => this.channel.unpublish(key));
    if (!result.ok) throw new Error(`the relay could not remove ${key}: ${result.error ?? 'no reason given'}`);
  }

  /** One exchange with the relay; a failure while the tunnel is down is an OfflineError. */
  private async exchange(run: () => Promise<PublishResult>): Promise<PublishResult> {
    try {
      return await run();
    } catch (err) {
      if (!(await this.channel.whenConnected(0))) throw new OfflineError();
      throw err;
    }
  }

  close(): void {
    this.renderer.close();
  }
}
