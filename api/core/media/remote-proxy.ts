import { findRemoteAccountImageSource, findRemoteAttachmentSource, findRemoteEmojiSource } from '../../db/repos/remote-media.js';
import { openRemoteFile, REMOTE_MEDIA_LIMITS } from '../../media/remote-fetch.js';
import { FetchError, type SafeStream } from '../../util/safe-fetch.js';
import { HEARTH_VERSION } from '../../util/version.js';
import type { Deps } from '../deps.js';
import { rejectsRemoteMedia } from '../federation/instance-domains.js';

/**
 * The media proxy (the `proxy` remote media setting): remote files are not stored here but
 * streamed through, on request, with the safe fetch's rules (no private or loopback addresses
 * unless `federationAllowLoopback`, a deadline, a size limit per kind of file). A single byte range
 * asked by the client (players seek with them) is forwarded; the remote server's 206 or 416 is
 * passed on, and a server without range support answers the whole file, as before.
 */

/** What the proxy is asked for. */
export type ProxyTarget =
  | { kind: 'attachment'; id: string; style: 'original' | 'small' }
  | { kind: 'avatar' | 'header'; id: string }
  | { kind: 'emoji'; id: string };

/** A byte range a client asked for, as forwarded to the remote server. */
export interface ProxyRange {
  /** One `bytes=` range, as the client sent it. */
  range: string;
  /** The client's If-Range validator, when it sent one. */
  ifRange: string | null;
}

/** A remote file being streamed through. */
export interface ProxiedFile {
  /** 200 (the whole file), 206 (the range asked for) or 416 (a range beyond the file; no body). */
  status: 200 | 206 | 416;
  /** The remote Content-Type when it is an image, video or audio type; else a neutral one. */
  contentType: string;
  /** The body's length when known. */
  length: number | null;
  /** `bytes first-last/total` of a 206; for a 416, the file's size in the same header, when the remote gave it. */
  contentRange: string | null;
  /** Whether the remote server takes byte ranges (it said so, or it answered one). */
  acceptRanges: boolean;
  /** The remote strong entity tag and modification date, the validators a client's If-Range uses. */
  etag: string | null;
  lastModified: string | null;
  body: SafeStream['body'];
  close(): void;
}

const STRONG_ETAG = /^"[\x21\x23-\x7e]{0,200}"$/;
const HTTP_DATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * The range of a proxied request worth forwarding: one `bytes=` range, with its If-Range when that
 * is an entity tag or a date. Null for anything else (several ranges, another unit, a validator we
 * cannot vouch for), which is answered with the whole file, as RFC 9110 allows.
 */
export function proxyRangeOf(range: string | undefined, ifRange: string | undefined): ProxyRange | null {
  const value = range?.trim() ?? '';
  const m = /^bytes=(\d{0,15})-(\d{0,15})$/.exec(value);
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] !== '' && m[2] !== '' && Number(m[2]) < Number(m[1])) return null;
  const validator = ifRange?.trim();
  if (validator === undefined || validator === '') return { range: value, ifRange: null };
  return STRONG_ETAG.test(validator) || HTTP_DATE.test(validator) ? { range: value, ifRange: validator } : null;
}

/** The parts of a 206's `Content-Range: bytes first-last/total` (total null for `*`). */
function parseContentRange(header: string | undefined): { first: number; last: number; total: number | null } | null {
  const m = /^bytes (\d{1,15})-(\d{1,15})\/(\d{1,15}|\*)$/.exec(header?.trim() ?? '');
  if (!m) return null;
  const first = Number(m[1]);
  const last = Number(m[2]);
  const total = m[3] === '*' ? null : Number(m[3]);
  if (last < first || (total !== null && last >= total)) return null;
  return { first, last, total };
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
 * Opens the remote file of a proxy target, or the range of it `range` asks for. Null when the
 * target names no remote file (an unknown id, a local record, a suspended account); rejects with a
 * FetchError when the remote server cannot be reached or answers badly (the caller answers 502).
 */
export async function openProxiedMedia(deps: Deps, target: ProxyTarget, signal?: AbortSignal, range: ProxyRange | null = null): Promise<ProxiedFile | null> {
  const source = sourceOf(deps, target);
  // A domain block that rejects media: nothing is fetched from there.
  if (!source || rejectsRemoteMedia(deps, target.kind, target.id, source.url)) return null;
  // A range counts bytes of the file as sent: it is asked for unencoded, so that the bytes we
  // pass on are the ones the client counted.
  const request = range
    ? { headers: { range: range.range, ...(range.ifRange ? { 'if-range': range.ifRange } : {}), 'accept-encoding': 'identity' }, passStatuses: [416] }
    : {};
  const res = await openRemoteFile(
    { allowPrivate: deps.config.federationAllowLoopback, userAgent: `Hearth/${HEARTH_VERSION} (+${deps.uris.base})` },
    source.url,
    source.maxBytes,
    signal,
    request,
  );
  try {
    const encoded = (res.headers['content-encoding'] ?? 'identity').toLowerCase().trim() !== 'identity';
    const etag = res.headers.etag?.trim() ?? '';
    const lastModified = res.headers['last-modified']?.trim() ?? '';
    const file: ProxiedFile = {
      status: 200,
      contentType: MEDIA_TYPE.test(res.contentType) ? res.contentType : 'application/octet-stream',
      length: res.length,
      contentRange: null,
      acceptRanges: /(^|[\s,])bytes($|[\s,])/i.test(res.headers['accept-ranges'] ?? ''),
      // The tag of an encoded answer names that encoding, not the bytes a range counts.
      etag: !encoded && STRONG_ETAG.test(etag) ? etag : null,
      lastModified: HTTP_DATE.test(lastModified) ? lastModified : null,
      body: res.body,
      close: () => res.close(),
    };
    if (res.status === 416) {
      const total = /^bytes \*\/(\d{1,15})$/.exec(res.headers['content-range']?.trim() ?? '')?.[1];
      res.close();
      return { ...file, status: 416, length: 0, acceptRanges: true, contentRange: total !== undefined ? `bytes */${total}` : null };
    }
    if (res.status !== 206) return file;
    // A part we did not ask for, of an unknown shape, or encoded cannot be passed on as a range.
    const part = parseContentRange(res.headers['content-range']);
    if (!range || !part || encoded) throw new FetchError('status', 'answered 206 with an unusable Content-Range');
    // The size limit is the whole file's: ranges must not carry a file we would not proxy whole.
    if (part.total !== null && part.total > source.maxBytes) throw new FetchError('too_large', `file of ${part.total} bytes is over ${source.maxBytes}`);
    const length = part.last - part.first + 1;
    if (res.length !== null && res.length !== length) throw new FetchError('status', 'answered 206 with a Content-Length unlike its Content-Range');
    return { ...file, status: 206, length, acceptRanges: true, contentRange: `bytes ${part.first}-${part.last}/${part.total ?? '*'}` };
  } catch (err) {
    res.close();
    throw err;
  }
}
