import { findRemoteAccountImageSource, findRemoteAttachmentSource, findRemoteEmojiSource } from '../../db/repos/remote-media.js';
import { openRemoteFile, REMOTE_MEDIA_LIMITS } from '../../media/remote-fetch.js';
import type { SafeStream } from '../../util/safe-fetch.js';
import { HEARTH_VERSION } from '../../util/version.js';
import type { Deps } from '../deps.js';

/**
 * The media proxy (the `proxy` remote media setting): remote files are not stored here but
 * streamed through, on request, with the safe fetch's rules (no private or loopback addresses
 * unless `federationAllowLoopback`, a deadline, a size limit per kind of file).
 */

/** What the proxy is asked for. */
export type ProxyTarget =
  | { kind: 'attachment'; id: string; style: 'original' | 'small' }
  | { kind: 'avatar' | 'header'; id: string }
  | { kind: 'emoji'; id: string };

/** A remote file being streamed through. */
export interface ProxiedFile {
  /** The remote Content-Type when it is an image, video or audio type; else a neutral one. */
  contentType: string;
  /** The body's length when known. */
  length: number | null;
  body: SafeStream['body'];
  close(): void;
}

// SVG is an image type that can carry scripts: it is never passed on as what it claims to be.
const MEDIA_TYPE = /^(image\/(?!svg)[a-z0-9.+-]+|video\/[a-z0-9.+-]+|audio\/[a-z0-9.+-]+)$/;

/** The remote URL and size limit of a proxy target, or null when it names nothing remote. */
function sourceOf(deps: Deps, target: ProxyTarget): { url: string; maxBytes: number } | null {
  if (!/^\d{1,20}$/.test(target.id)) return null;
  switch (target.kind) {
    case 'attachment': {
      const row = findRemoteAttachmentSource(deps.db, target.id);
      if (!row) return null;
      if (target.style === 'small') {
        // The small style is the remote preview, or for an image the image itself.
        const url = row.preview_remote_url ?? (row.type === 'image' ? row.remote_url : null);
        return url ? { url, maxBytes: row.type === 'image' ? REMOTE_MEDIA_LIMITS.imageBytes : REMOTE_MEDIA_LIMITS.attachmentBytes } : null;
      }
      return { url: row.remote_url, maxBytes: row.type === 'image' ? REMOTE_MEDIA_LIMITS.imageBytes : REMOTE_MEDIA_LIMITS.attachmentBytes };
    }
    case 'avatar':
    case 'header': {
      const url = findRemoteAccountImageSource(deps.db, target.id, target.kind);
      return url ? { url, maxBytes: REMOTE_MEDIA_LIMITS.profileImageBytes } : null;
    }
    case 'emoji': {
      const url = findRemoteEmojiSource(deps.db, target.id);
      return url ? { url, maxBytes: REMOTE_MEDIA_LIMITS.emojiBytes } : null;
    }
  }
}

/**
 * Opens the remote file of a proxy target. Null when the target names no remote file (an unknown
 * id, a local record, a suspended account); rejects with a FetchError when the remote server
 * cannot be reached or answers badly (the caller answers 502).
 */
export async function openProxiedMedia(deps: Deps, target: ProxyTarget, signal?: AbortSignal): Promise<ProxiedFile | null> {
  const source = sourceOf(deps, target);
  if (!source) return null;
  const res = await openRemoteFile(
    { allowPrivate: deps.config.federationAllowLoopback, userAgent: `Hearth/${HEARTH_VERSION} (+${deps.uris.base})` },
    source.url,
    source.maxBytes,
    signal,
  );
  return {
    contentType: MEDIA_TYPE.test(res.contentType) ? res.contentType : 'application/octet-stream',
    length: res.length,
    body: res.body,
    close: () => res.close(),
  };
}
