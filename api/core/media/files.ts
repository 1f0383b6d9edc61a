import { contentTypeOfKey } from '../../media/storage.js';
import type { Deps } from '../deps.js';
import { mediaStorage } from './storage.js';

/** A stored file ready to be served. */
export interface ServedFile {
  path: string;
  size: number;
  mtimeMs: number;
  contentType: string;
}

/**
 * The stored file of a key, for `/system/<key>`: null for a malformed key (traversal, hidden
 * names), a missing file or a directory.
 */
export async function findStoredFile(deps: Deps, key: string): Promise<ServedFile | null> {
  const file = await mediaStorage(deps).find(key);
  return file ? { ...file, contentType: contentTypeOfKey(key) } : null;
}
