import { rm } from 'node:fs/promises';
import type { Deps } from '../deps.js';
import { rejectsRemoteMedia } from '../federation/instance-domains.js';
import { mediaStorage } from './storage.js';
import { findAccountById, updateAccount } from '../../db/repos/accounts.js';
import { findMediaRow, updateMediaRow } from '../../db/repos/media-uploads.js';
import {
  deleteDetachedRemoteMedia,
  deleteRemoteCopy,
  findDetachedRemoteMedia,
  findOrphanedRemoteCopies,
  findRemoteCopy,
  findRemoteMediaTasks,
  findUncopiedMediaOfStatus,
  saveRemoteCopy,
  setEmojiFiles,
  type RemoteMediaCopyRow,
  type RemoteMediaKind,
  type RemoteMediaTask,
} from '../../db/repos/remote-media.js';
import { now } from '../../util/clock.js';
import { FetchError } from '../../util/safe-fetch.js';
import { HEARTH_VERSION } from '../../util/version.js';
import { downloadRemoteFile, REMOTE_MEDIA_LIMITS, type RemoteFetchContext } from '../../media/remote-fetch.js';
import { processRemoteAttachment, processRemoteEmoji, processRemoteProfileImage, RemoteMediaRefused } from './remote-process.js';

/**
 * The remote media copy job (the `cache` remote media setting): remote attachments, avatars,
 * headers and custom emojis are downloaded in the background through the safe fetch, processed
 * like uploads and served from here; `remote_url` keeps the original. The job is durable: it
 * never trusts memory for what is left to do, but asks the database (`findRemoteMediaTasks`), at
 * start, periodically, and when core events say remote statuses or accounts were stored. A
 * download that fails for a passing reason is retried with back-off a few times; after that, or at
 * once for a file that will never do (not media, too large, a forbidden address), the record stays
 * with its remote URL, which the API keeps showing. Two downloads at most run at once, so the REST
 * API is never starved. Copies whose status, account or emoji is deleted are removed with their
 * files.
 */

/** Downloads running at once. */
export const REMOTE_MEDIA_CONCURRENCY = 2;
/** Attempts of one download before the record stays remote-only (the first one and three retries). */
export const REMOTE_MEDIA_MAX_ATTEMPTS = 4;
/** Wait before the first retry; each further retry waits four times longer (30 s, 2 min, 8 min). */
const RETRY_BASE_MS = 30_000;
/** How often the database is asked for due work (retries, and anything events missed). */
const SCAN_INTERVAL_MS = 30_000;
/** Records looked at per scan. */
const SCAN_BATCH = 100;
/** Delay of the scan or clean-up an event asks for (events come in floods). */
const DEBOUNCE_MS = 500;

/** Test-only switches; null or false (off) in production. */
export const remoteCacheTestHooks: {
  /** Replaces the first retry's wait. */
  retryBaseMs: number | null;
  /** Replaces the scan interval. */
  scanIntervalMs: number | null;
  /** While true, no download starts (work stays in the database, as across a restart). */
  paused: boolean;
} = { retryBaseMs: null, scanIntervalMs: null, paused: false };

/** A running copy job. */
export interface RemoteMediaCache {
  /** Looks for due work now and waits until the queue is empty (tests, and start-up). */
  drain(): Promise<void>;
  /** Stops listening, aborts running downloads and waits for them. */
  stop(): Promise<void>;
}

const taskKey = (t: RemoteMediaTask) => `${t.kind}:${t.id}`;

/** Why an attempt failed, and whether trying again can help. */
function classify(err: unknown): { message: string; permanent: boolean } {
  if (err instanceof RemoteMediaRefused) return { message: err.message, permanent: true };
  if (err instanceof FetchError) {
    // An address we must not reach, a malformed URL or a file over the limit stay what they are.
    const permanent = err.reason === 'forbidden_address' || err.reason === 'bad_url' || err.reason === 'too_large' || /answered (404|410)$/.test(err.message);
    return { message: `${err.reason}: ${err.message}`, permanent };
  }
  return { message: (err as Error)?.message ?? String(err), permanent: false };
}

/** The remote URL a record's copy should come from now (null: none any more, or gone). */
function currentSource(deps: Deps, task: RemoteMediaTask): { url: string | null; exists: boolean } {
  switch (task.kind) {
    case 'attachment': {
      const row = findMediaRow(deps.db, task.id);
      return { url: row && row.status_id !== null ? row.remote_url : null, exists: !!row && row.status_id !== null };
    }
    case 'avatar':
    case 'header': {
      const a = findAccountById(deps.db, task.id);
      if (!a || a.domain === null) return { url: null, exists: false };
      return { url: a.suspended_at === null ? (task.kind === 'avatar' ? a.avatar_remote_url : a.header_remote_url) : null, exists: true };
    }
    case 'emoji': {
      const row = deps.db.query<{ image_remote_url: string | null; domain: string | null }>('SELECT image_remote_url, domain FROM custom_emojis WHERE id = @id').get({ id: task.id });
      return { url: row && row.domain !== null ? row.image_remote_url : null, exists: !!row };
    }
  }
}

/** Clears a record's stored copy (its columns, its files and its state), when it has one. */
async function dropCopy(deps: Deps, kind: RemoteMediaKind, id: string, copy: RemoteMediaCopyRow | undefined): Promise<void> {
  const keys = copy ? (JSON.parse(copy.keys) as string[]) : [];
  const at = now();
  deps.db.transaction(() => {
    if (kind === 'avatar') updateAccount(deps.db, id, { avatar_file: null, avatar_static_file: null });
    else if (kind === 'header') updateAccount(deps.db, id, { header_file: null, header_static_file: null });
    else if (kind === 'emoji') setEmojiFiles(deps.db, id, null, null, at);
    // Attachments never change their remote URL; a gone one is handled by the purge.
    deleteRemoteCopy(deps.db, kind, id);
  });
  await mediaStorage(deps).remove(keys);
}

/** Saves a finished copy, unless the record changed meanwhile; false when it was not saved. */
function saveCopy(deps: Deps, task: RemoteMediaTask, source: string, columns: { a: string; b: string | null }, keys: string[], attempts: number): boolean {
  return deps.db.transaction(() => {
    const current = currentSource(deps, task);
    if (current.url !== source) return false;
    const at = now();
    if (task.kind === 'avatar') updateAccount(deps.db, task.id, { avatar_file: columns.a, avatar_static_file: columns.b });
    else if (task.kind === 'header') updateAccount(deps.db, task.id, { header_file: columns.a, header_static_file: columns.b });
    else if (task.kind === 'emoji') setEmojiFiles(deps.db, task.id, columns.a, columns.b, at);
    saveRemoteCopy(deps.db, { kind: task.kind, record_id: task.id, source_url: source, state: 'done', attempts, next_attempt_at: 0, last_error: null, keys: JSON.stringify(keys), updated_at: at });
    return true;
  });
}

/** Downloads and stores one record's remote file; the outcome is recorded in the database. */
async function copyOne(deps: Deps, ctx: RemoteFetchContext, task: RemoteMediaTask, signal: AbortSignal): Promise<void> {
  const copy = findRemoteCopy(deps.db, task.kind, task.id);
  const { url: source } = currentSource(deps, task);
  // The remote picture changed or went away: the old copy goes first, so the API shows the new
  // remote picture (not the old one) until its copy is made.
  if (copy && copy.source_url !== source) await dropCopy(deps, task.kind, task.id, copy);
  if (source === null) return;
  const fresh = copy && copy.source_url === source ? copy : undefined;
  if (fresh && (fresh.state !== 'pending' || fresh.next_attempt_at > now())) return;
  const attempts = (fresh?.attempts ?? 0) + 1;
  // The attempt is recorded before it starts: a crash or restart mid-download counts it and the
  // next try waits its turn instead of hammering the remote server.
  const retryBase = remoteCacheTestHooks.retryBaseMs ?? RETRY_BASE_MS;
  const pending: RemoteMediaCopyRow = {
    kind: task.kind,
    record_id: task.id,
    source_url: source,
    state: 'pending',
    attempts,
    next_attempt_at: now() + retryBase * 4 ** (attempts - 1),
    last_error: fresh?.last_error ?? null,
    keys: '[]',
    updated_at: now(),
  };
  saveRemoteCopy(deps.db, pending);

  const storage = mediaStorage(deps);
  const staged = await storage.stagingPath();
  let keys: string[] = [];
  try {
    // A domain block that rejects media: the record keeps its remote URL (a final refusal).
    if (rejectsRemoteMedia(deps, task.kind, task.id, source)) throw new RemoteMediaRefused('media from this domain is rejected');
    const limit =
      task.kind === 'attachment' ? REMOTE_MEDIA_LIMITS.attachmentBytes : task.kind === 'emoji' ? REMOTE_MEDIA_LIMITS.emojiBytes : REMOTE_MEDIA_LIMITS.profileImageBytes;
    const { size } = await downloadRemoteFile(ctx, source, staged, limit, signal);
    if (!deps.db.raw.open) return;
    let saved: boolean;
    if (task.kind === 'attachment') {
      const row = findMediaRow(deps.db, task.id);
      if (!row) return;
      const done = await processRemoteAttachment(deps, row, staged, size);
      keys = done.keys;
      if (!deps.db.raw.open) return;
      saved = deps.db.transaction(() => {
        const current = findMediaRow(deps.db, task.id);
        // Deleted, detached (its status went) or copied meanwhile: this copy is not wanted.
        if (!current || current.status_id === null || current.file_key !== null) return false;
        updateMediaRow(deps.db, task.id, { ...done.change, updated_at: now() });
        saveRemoteCopy(deps.db, { ...pending, state: 'done', next_attempt_at: 0, last_error: null, keys: JSON.stringify(keys), updated_at: now() });
        return true;
      });
    } else if (task.kind === 'emoji') {
      const done = await processRemoteEmoji(deps, task.id, staged);
      keys = done.keys;
      if (!deps.db.raw.open) return;
      saved = saveCopy(deps, task, source, { a: done.image, b: done.still }, keys, attempts);
    } else {
      const done = await processRemoteProfileImage(deps, task.id, task.kind, staged);
      keys = done.keys;
      if (!deps.db.raw.open) return;
      saved = saveCopy(deps, task, source, { a: done.file, b: done.still }, keys, attempts);
    }
    if (saved) keys = [];
  } catch (err) {
    // Stopped with the instance: the attempt stays recorded as pending and resumes after a start.
    if (signal.aborted || !deps.db.raw.open) return;
    const { message, permanent } = classify(err);
    const failed = permanent || attempts >= REMOTE_MEDIA_MAX_ATTEMPTS;
    // Still the same record and source? (It may have changed while we downloaded.)
    if (currentSource(deps, task).url === source) {
      saveRemoteCopy(deps.db, { ...pending, state: failed ? 'failed' : 'pending', last_error: message.slice(0, 500), updated_at: now() });
    }
  } finally {
    await rm(staged, { force: true });
    // Files of a copy that was not saved (failure, or the record changed meanwhile) go.
    if (keys.length > 0) await storage.remove(keys);
  }
}

/**
 * Removes copies whose record is gone (deleted attachments, statuses, accounts and emojis) with
 * their files, and the remote attachments of deleted statuses.
 */
export async function purgeRemoteCopies(deps: Deps): Promise<number> {
  let removed = 0;
  const storage = mediaStorage(deps);
  for (const copy of findOrphanedRemoteCopies(deps.db, 500)) {
    deleteRemoteCopy(deps.db, copy.kind, copy.record_id);
    await storage.remove(JSON.parse(copy.keys) as string[]);
    removed++;
  }
  for (const media of findDetachedRemoteMedia(deps.db, 500)) {
    deleteDetachedRemoteMedia(deps.db, media.id);
    deleteRemoteCopy(deps.db, 'attachment', media.id);
    await storage.remove([media.file_key, media.preview_key]);
    removed++;
  }
  return removed;
}

/**
 * Starts the remote media job of an instance. In `proxy` mode nothing is downloaded; only the
 * clean-up of copies made earlier runs. Listens to core events: remote statuses stored
 * ('status.created') queue their attachments and any new remote emojis, remote accounts stored or
 * refreshed ('account.created', 'account.updated') queue their avatar and header, and deletions
 * ('status.deleted') trigger the clean-up.
 */
export function startRemoteMediaCache(deps: Deps): RemoteMediaCache {
  const caching = deps.config.remoteMedia === 'cache';
  const queue: RemoteMediaTask[] = [];
  const queued = new Set<string>();
  const running = new Set<Promise<void>>();
  const controller = new AbortController();
  let stopped = false;
  let purging: Promise<void> | null = null;
  let idleWaiters: (() => void)[] = [];
  const ctx = (): RemoteFetchContext => ({ allowPrivate: deps.config.federationAllowLoopback, userAgent: `Hearth/${HEARTH_VERSION} (+${deps.uris.base})` });

  const settleIdle = () => {
    if (queue.length > 0 || running.size > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const w of waiters) w();
  };

  const pump = () => {
    while (!stopped && !remoteCacheTestHooks.paused && running.size < REMOTE_MEDIA_CONCURRENCY && queue.length > 0) {
      const task = queue.shift() as RemoteMediaTask;
      const work = copyOne(deps, ctx(), task, controller.signal)
        .catch((err: unknown) => {
          if (!stopped) console.error(`remote media copy of ${task.kind} ${task.id} failed`, err);
        })
        .finally(() => {
          queued.delete(taskKey(task));
          running.delete(work);
          pump();
          settleIdle();
        });
      running.add(work);
    }
    settleIdle();
  };

  const enqueue = (tasks: readonly RemoteMediaTask[]) => {
    if (stopped || !caching) return;
    for (const task of tasks) {
      const key = taskKey(task);
      if (queued.has(key)) continue;
      queued.add(key);
      queue.push(task);
    }
    pump();
  };

  const scan = () => {
    if (stopped || !deps.db.raw.open) return;
    if (caching && !remoteCacheTestHooks.paused) enqueue(findRemoteMediaTasks(deps.db, now(), SCAN_BATCH));
  };

  const purge = () => {
    if (stopped || !deps.db.raw.open) return Promise.resolve();
    purging ??= purgeRemoteCopies(deps)
      .then(() => undefined)
      .catch((err: unknown) => console.error('remote media clean-up failed', err))
      .finally(() => (purging = null));
    return purging;
  };

  // Events come in floods (an inbox busy with a thread, a deleted account's statuses): the scans
  // they trigger run once a short while after, not once per event.
  let soon: NodeJS.Timeout | null = null;
  let soonScan = false;
  let soonPurge = false;
  const later = (what: 'scan' | 'purge') => {
    if (what === 'scan') soonScan = true;
    else soonPurge = true;
    soon ??= setTimeout(() => {
      soon = null;
      if (soonScan) scan();
      if (soonPurge) void purge();
      soonScan = soonPurge = false;
    }, DEBOUNCE_MS);
    soon.unref();
  };

  const offs = [
    deps.events.on('status.created', ({ statusId }) => {
      if (!caching) return;
      enqueue(findUncopiedMediaOfStatus(deps.db, statusId).map((id) => ({ kind: 'attachment' as const, id })));
      // A remote status may bring new remote emojis; the scan finds them (and anything else due).
      later('scan');
    }),
    // A remote profile may bring new remote emojis too: the (delayed) scan finds them.
    ...(['account.created', 'account.updated'] as const).map((name) =>
      deps.events.on(name, ({ accountId }) => {
        if (!caching) return;
        enqueue([{ kind: 'avatar', id: accountId }, { kind: 'header', id: accountId }]);
        later('scan');
      }),
    ),
    deps.events.on('status.deleted', () => later('purge')),
  ];

  const timer = setInterval(() => {
    scan();
    void purge();
  }, remoteCacheTestHooks.scanIntervalMs ?? SCAN_INTERVAL_MS);
  timer.unref();
  // The first scan waits a turn of the event loop, so that start-up finishes first.
  const first = setTimeout(() => {
    scan();
    void purge();
  }, 0);
  first.unref();

  return {
    async drain() {
      scan();
      await purge();
      if (running.size === 0 && (queue.length === 0 || remoteCacheTestHooks.paused || !caching)) return;
      await new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
    async stop() {
      stopped = true;
      for (const off of offs) off();
      clearInterval(timer);
      clearTimeout(first);
      if (soon) clearTimeout(soon);
      controller.abort();
      queue.length = 0;
      queued.clear();
      await Promise.all([...running]);
      if (purging) await purging;
      settleIdle();
    },
  };
}
