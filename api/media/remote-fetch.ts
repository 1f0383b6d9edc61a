import { createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { safeFetchStream, type SafeFetchOptions, type SafeStream } from '../util/safe-fetch.js';

/**
 * Fetching remote media files (attachments, avatars, headers, emojis) for the copy job and the
 * media proxy, through the safe fetch: never a private or loopback address unless the instance
 * runs with `federationAllowLoopback` (tests), a deadline, a size limit per kind of file.
 */

/** The limits of remote media fetches (Mastodon's upload limits where it has them). */
export const REMOTE_MEDIA_LIMITS = {
  /** Bytes of a remote image attachment: 16 MiB. */
  imageBytes: 16 * 1024 * 1024,
  /** Bytes of a remote video or audio attachment (the most any attachment download reads): 99 MiB. */
  attachmentBytes: 99 * 1024 * 1024,
  /** Bytes of a remote avatar or header: 8 MiB. */
  profileImageBytes: 8 * 1024 * 1024,
  /** Bytes of a remote custom emoji: 256 KiB. */
  emojiBytes: 256 * 1024,
  /** Time for one download, redirects and body included. */
  downloadTimeoutMs: 60_000,
  /** Time for one proxied answer, body included (a large video streams slowly to a slow client). */
  proxyTimeoutMs: 120_000,
  maxRedirects: 3,
} as const;

/** Test-only switches; null (off) in production. */
export const remoteFetchTestHooks: { timeoutMs: number | null } = { timeoutMs: null };

/** Who we are and what we may reach, for a fetch of remote media. */
export interface RemoteFetchContext {
  allowPrivate: boolean;
  userAgent: string;
}

function fetchOptions(ctx: RemoteFetchContext, maxBytes: number, timeoutMs: number): SafeFetchOptions {
  return {
    timeoutMs: remoteFetchTestHooks.timeoutMs ?? timeoutMs,
    maxBytes,
    maxRedirects: REMOTE_MEDIA_LIMITS.maxRedirects,
    allowPrivate: ctx.allowPrivate,
    accept: 'image/*, video/*, audio/*;q=0.9, */*;q=0.1',
    userAgent: ctx.userAgent,
  };
}

/**
 * Downloads a remote file to `path` (at most `maxBytes`), streaming it to disk. On failure the
 * partial file is removed and the FetchError (or file system error) is thrown.
 */
export async function downloadRemoteFile(ctx: RemoteFetchContext, url: string, path: string, maxBytes: number, signal?: AbortSignal): Promise<{ size: number }> {
  const res = await safeFetchStream(url, { ...fetchOptions(ctx, maxBytes, REMOTE_MEDIA_LIMITS.downloadTimeoutMs), ...(signal ? { signal } : {}) });
  try {
    await pipeline(res.body, createWriteStream(path));
  } catch (err) {
    res.close();
    await rm(path, { force: true });
    throw err;
  }
  return { size: (await stat(path)).size };
}

/** What the media proxy adds to its request: a byte range, and the statuses it takes as answers. */
export interface RemoteFileRequest {
  headers?: Readonly<Record<string, string>>;
  passStatuses?: readonly number[];
}

/** Opens a remote file for the media proxy (at most `maxBytes`, streamed). */
export function openRemoteFile(ctx: RemoteFetchContext, url: string, maxBytes: number, signal?: AbortSignal, request: RemoteFileRequest = {}): Promise<SafeStream> {
  return safeFetchStream(url, { ...fetchOptions(ctx, maxBytes, REMOTE_MEDIA_LIMITS.proxyTimeoutMs), ...request, ...(signal ? { signal } : {}) });
}
