import { MediaStorage } from '../../media/storage.js';
import type { Deps } from '../deps.js';

const storages = new WeakMap<Deps, MediaStorage>();

/** The file storage of an instance (under its data directory), made once per instance. */
export function mediaStorage(deps: Deps): MediaStorage {
  let storage = storages.get(deps);
  if (!storage) {
    storage = new MediaStorage(deps.config.dataDir);
    storages.set(deps, storage);
  }
  return storage;
}

/**
 * Test-only switches, so tests need neither 100 MB uploads nor races against a fast machine.
 * Production code never sets them; each is null (off) by default.
 */
export const mediaTestHooks: {
  /** Replaces every per-type upload size limit (bytes). */
  sizeLimit: number | null;
  /** Awaited before a background job starts processing (lets a test observe the 206 state). */
  beforeBackgroundJob: (() => Promise<void>) | null;
  /** Awaited once a background job has processed the file, before it saves the outcome. */
  beforeBackgroundSave: (() => Promise<void>) | null;
} = {
  sizeLimit: null,
  beforeBackgroundJob: null,
  beforeBackgroundSave: null,
};
