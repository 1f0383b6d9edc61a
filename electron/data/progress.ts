/**
 * Progress of a backup or a restore: a fraction from 0 to 1 and the stage it is in. Backup stages:
 * `database` (copying the database's pages), `files` (writing the archive: the database copy, the
 * config, the certificates and the media), `done`. Restore stages: `reading` (reading and checking
 * every file of the archive), `checking` (the database's integrity check), `replacing` (swapping
 * the directories), `done`.
 */
export interface DataProgressUpdate {
  fraction: number;
  stage: 'database' | 'files' | 'reading' | 'checking' | 'replacing' | 'done';
}

/** Told of progress; it never goes back, and ends at 1 with the stage `done` on success. */
export type ProgressCallback = (update: DataProgressUpdate) => void;

/**
 * Passes progress on: never backwards (a restarted database copy holds its place), at most once per
 * tenth of a percent unless the stage changes, and a callback that throws cannot break the work.
 */
export class ProgressReporter {
  private fraction = 0;
  private stage: DataProgressUpdate['stage'] | null = null;
  private lastSent = -1;

  constructor(private readonly callback: ProgressCallback | undefined) {}

  report(fraction: number, stage: DataProgressUpdate['stage']): void {
    const clamped = Math.min(1, Math.max(this.fraction, Number.isFinite(fraction) ? fraction : 0));
    this.fraction = clamped;
    if (stage === this.stage && clamped - this.lastSent < 0.001 && clamped < 1) return;
    if (stage === this.stage && clamped === this.lastSent) return;
    this.stage = stage;
    this.lastSent = clamped;
    try {
      this.callback?.({ fraction: clamped, stage });
    } catch {
      // A progress bar that fails must not fail the backup.
    }
  }

  /** Reports the end: 1, `done`. */
  done(): void {
    this.report(1, 'done');
  }
}
