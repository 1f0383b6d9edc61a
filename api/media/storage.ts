import { randomBytes, randomUUID } from 'node:crypto';
import { copyFile, mkdir, readdir, rename, rm, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * Where stored files live: `<dataDir>/media/<key>`, served at `/system/<key>`. Keys follow
 * Mastodon's layout (`media_attachments/files/110/357/222/516/183/152/original/9c1f….jpeg`): the
 * record id split in groups of three digits, the style, and a random name, so that a URL cannot
 * be guessed from an id and a new file always gets a new URL (which is what lets it be cached
 * forever). Files are written to a temporary name and renamed into place, so a reader never sees
 * half a file. Uploads waiting for background processing wait in `<dataDir>/media-staging/`,
 * outside what is served.
 */

/** The kinds of stored files, each under its own top-level directory. */
export type StoredKind =
  | 'media_attachments/files'
  | 'media_attachments/thumbnails'
  | 'accounts/avatars'
  | 'accounts/headers'
  | 'custom_emojis/images'
  | 'preview_cards/images';

/** Top-level directories this module owns (the clean-up walks only these). */
export const OWNED_ROOTS: readonly string[] = ['media_attachments', 'accounts', 'custom_emojis', 'preview_cards'];

// A key is lower-case path segments of letters, digits, '_', '-' and one '.' before the extension.
const KEY_PATTERN = /^[a-z0-9_-]+(\/[a-z0-9_-]+)*\/[a-z0-9_-]+(\.[a-z0-9]+)?$/i;

const CONTENT_TYPES: Record<string, string> = {
  jpeg: 'image/jpeg',
  jpg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  ogv: 'video/ogg',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  opus: 'audio/ogg',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  aac: 'audio/aac',
  wav: 'audio/wav',
  flac: 'audio/flac',
  '3gp': 'audio/3gpp',
};

/** The Content-Type a stored file is served with, from its key's extension. */
export function contentTypeOfKey(key: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(key)?.[1]?.toLowerCase() ?? '';
  return CONTENT_TYPES[ext] ?? 'application/octet-stream';
}

/** Whether a string is shaped like a storage key (no traversal, no hidden names, no odd bytes). */
export function isValidKey(key: string): boolean {
  return key.length <= 512 && KEY_PATTERN.test(key) && !key.split('/').some((s) => s.startsWith('.') || s === '');
}

/** `110357222516183152` → `110/357/222/516/183/152`, as Mastodon partitions ids. */
function partition(id: string): string {
  const padded = id.padStart(Math.ceil(id.length / 3) * 3, '0');
  return padded.match(/.{3}/g)?.join('/') ?? padded;
}

/** A stored file's location and size, for serving. */
export interface StoredFile {
  path: string;
  size: number;
  mtimeMs: number;
}

/** File storage under one data directory. */
export class MediaStorage {
  readonly root: string;
  readonly staging: string;

  constructor(dataDir: string) {
    this.root = resolve(dataDir, 'media');
    this.staging = resolve(dataDir, 'media-staging');
  }

  /** A new key for a record's file in a style (`original`, `small`, `static`). */
  newKey(kind: StoredKind, recordId: string, style: string, ext: string): string {
    return `${kind}/${partition(recordId)}/${style}/${randomBytes(8).toString('hex')}.${ext}`;
  }

  /** The absolute path of a key, or null when the key is malformed or points outside the root. */
  pathOf(key: string): string | null {
    if (!isValidKey(key)) return null;
    const path = resolve(this.root, key);
    const rel = relative(this.root, path);
    if (rel.startsWith('..') || rel.startsWith(sep) || rel === '') return null;
    return path;
  }

  private mustPath(key: string): string {
    const path = this.pathOf(key);
    if (!path) throw new Error(`invalid storage key: ${key}`);
    return path;
  }

  /** Writes bytes under a key (atomically: temporary file, then rename). */
  async write(key: string, data: Buffer): Promise<void> {
    const path = this.mustPath(key);
    await mkdir(dirname(path), { recursive: true });
    const tmp = `${path}.${randomUUID()}.part`;
    try {
      await writeFile(tmp, data);
      await rename(tmp, path);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  /** Moves a file (an upload, a staged file) under a key, copying when it is on another device. */
  async moveIn(source: string, key: string): Promise<void> {
    const path = this.mustPath(key);
    await mkdir(dirname(path), { recursive: true });
    await moveFile(source, path);
  }

  /** Removes stored files (missing ones are fine) and the directories they leave empty. */
  async remove(keys: readonly (string | null | undefined)[]): Promise<void> {
    for (const key of keys) {
      if (!key) continue;
      const path = this.pathOf(key);
      if (!path) continue;
      await rm(path, { force: true });
      await this.pruneDirs(dirname(path));
    }
  }

  /** Removes empty directories from `dir` up to (not including) the root. */
  async pruneDirs(dir: string): Promise<void> {
    let current = dir;
    while (current.startsWith(this.root + sep)) {
      try {
        await rmdir(current);
      } catch {
        return;
      }
      current = dirname(current);
    }
  }

  /** A stored regular file by key, or null (missing, a directory, or a malformed key). */
  async find(key: string): Promise<StoredFile | null> {
    const path = this.pathOf(key);
    if (!path) return null;
    try {
      const s = await stat(path);
      return s.isFile() ? { path, size: s.size, mtimeMs: s.mtimeMs } : null;
    } catch {
      return null;
    }
  }

  /** A new path in the staging directory, for an upload waiting to be processed. */
  async stagingPath(): Promise<string> {
    await mkdir(this.staging, { recursive: true });
    return join(this.staging, randomUUID());
  }

  /** Every stored file under the owned roots, as keys with their modification times. */
  async *walk(): AsyncGenerator<{ key: string; path: string; mtimeMs: number }> {
    for (const top of OWNED_ROOTS) yield* this.walkDir(join(this.root, top));
  }

  private async *walkDir(dir: string): AsyncGenerator<{ key: string; path: string; mtimeMs: number }> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) yield* this.walkDir(path);
      else if (entry.isFile()) {
        const s = await stat(path).catch(() => null);
        if (s) yield { key: relative(this.root, path).split(sep).join('/'), path, mtimeMs: s.mtimeMs };
      }
    }
  }
}

/** Renames a file, or copies and unlinks it across devices (the upload spool may be elsewhere). */
export async function moveFile(source: string, target: string): Promise<void> {
  try {
    await rename(source, target);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    const tmp = `${target}.${randomUUID()}.part`;
    try {
      await copyFile(source, tmp);
      await rename(tmp, target);
    } catch (copyErr) {
      await rm(tmp, { force: true });
      throw copyErr;
    }
    await unlink(source).catch(() => undefined);
  }
}
