import { createWriteStream, mkdirSync, renameSync, statSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The server's log file: the child's stdout and stderr, and the host's own lines (starts, exits,
 * restarts), appended. Kept small the simple way: when it is over `maxBytes` as it is opened, it is
 * renamed to `<file>.1` (replacing the one before) and a new file begins.
 */
export class LogFile {
  private stream: WriteStream | null = null;

  constructor(
    readonly path: string,
    private readonly maxBytes: number,
    private readonly now: () => number,
  ) {}

  /** Opens the file for appending (rotating it first when it is too big); nothing when open. */
  open(): void {
    if (this.stream) return;
    mkdirSync(dirname(this.path), { recursive: true });
    let size = 0;
    try {
      size = statSync(this.path).size;
    } catch {
      // No log yet.
    }
    if (size > this.maxBytes) renameSync(this.path, `${this.path}.1`);
    const stream = createWriteStream(this.path, { flags: 'a' });
    // A log that cannot be written (a full disk) must not bring the app down.
    stream.on('error', (err) => console.error(`hearth: cannot write the server log ${this.path}:`, err));
    this.stream = stream;
  }

  /** Appends one line of the host's, with the time. */
  line(text: string): void {
    this.stream?.write(`${new Date(this.now()).toISOString()} [host] ${text}\n`);
  }

  /** Appends a child's output stream as it comes (the stream ends on its own when the child goes). */
  follow(output: NodeJS.ReadableStream | null): Promise<void> {
    if (!output) return Promise.resolve();
    if (this.stream) output.pipe(this.stream, { end: false });
    else output.resume();
    return new Promise((resolve) => {
      output.once('end', resolve);
      output.once('close', resolve);
      output.once('error', () => resolve());
    });
  }

  /** Flushes and closes the file. */
  async close(): Promise<void> {
    const stream = this.stream;
    this.stream = null;
    if (stream) await new Promise<void>((resolve) => stream.end(resolve));
  }
}
