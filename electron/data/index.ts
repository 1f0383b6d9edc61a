/**
 * Backup and restore of an instance's data directory (issue 17, item 5): plain Node, no Electron.
 * The main process's glue asks where to save or what to open (Electron's dialog), then calls
 * these, passing progress on to the window (`DataProgress` of electron/contract/ipc.ts):
 *
 * - `backupDataDir` while the server runs;
 * - `checkArchive` to tell the person what an archive holds before they confirm a restore;
 * - `restoreDataDir` with the server stopped, then start the server again;
 * - `recoverDataDir` at app start, before the first server start (finishes an interrupted restore).
 *
 * Every refusal is a `BackupError` whose message is a sentence for the person and whose `code`
 * says what kind of refusal it is.
 */
export { backupDataDir, type BackupOptions, type BackupResult } from './backup.js';
export { checkArchive, recoverDataDir, restoreDataDir, type ArchiveSummary, type CheckOptions, type ReadOptions, type RecoverResult, type RestoreOptions, type RestoreResult } from './restore.js';
export { BackupError, type BackupErrorCode } from './errors.js';
export type { DataProgressUpdate, ProgressCallback } from './progress.js';
export type { Manifest, ManifestFile } from './manifest.js';
