/**
 * Why a backup or a restore was refused or failed, for the window to word (the message is already
 * a sentence a person can read):
 * - `not-archive`: the file is not a Hearth backup at all;
 * - `damaged`: a Hearth backup that is truncated, altered or whose database fails its check;
 * - `unsupported`: a format version, an entry type or a file this build does not handle;
 * - `newer-schema`: the backup's database comes from a newer Hearth; update first;
 * - `unsafe`: an entry that would be written outside the data directory (path traversal, links);
 * - `invalid-target`: the data directory or archive path cannot be used (a symbolic link, a file,
 *   a folder of other things, the archive inside the data it replaces);
 * - `in-use`: the data directory could not be moved (the server still running on it);
 * - `aborted`: the caller's signal stopped it; nothing was replaced;
 * - `io`: a file could not be read or written (a full disk, a permission).
 */
export type BackupErrorCode = 'not-archive' | 'damaged' | 'unsupported' | 'newer-schema' | 'unsafe' | 'invalid-target' | 'in-use' | 'aborted' | 'io';

/** A refused or failed backup or restore, with a reason the person can read. */
export class BackupError extends Error {
  constructor(
    readonly code: BackupErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'BackupError';
  }
}

/** Throws the `aborted` error when the signal has fired. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new BackupError('aborted', 'stopped before it finished');
}

/** The error as a `BackupError`: itself, or an `io` one saying what failed (`doing`) and why. */
export function asBackupError(err: unknown, doing: string): BackupError {
  if (err instanceof BackupError) return err;
  return new BackupError('io', `${doing} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
}
