// A real PostgreSQL server for tests: Debian's `postgresql` package, a throw-away cluster in a
// fresh temp directory, listening on 127.0.0.1 on a free port with trust authentication. Each
// test file starts its own (see startPostgres) and makes its databases in it.
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';

const run = promisify(execFile);

/** Thrown when no PostgreSQL server binaries are installed. */
export class PostgresMissingError extends Error {
  constructor() {
    super(
      'PostgreSQL is not installed, and the relay store tests run against it: install the Debian package `postgresql` ' +
        '(apt-get install -y --no-install-recommends postgresql), which puts initdb and pg_ctl under /usr/lib/postgresql/<version>/bin',
    );
    this.name = 'PostgresMissingError';
  }
}

/** A running throw-away PostgreSQL server. */
export interface TestPostgres {
  port: number;
  /** A new, empty database with a unique name; resolves to its connection URL. */
  createDatabase(): Promise<string>;
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
}

/** The newest installed server's bin directory (initdb, pg_ctl), or null. */
export function findPostgresBin(): string | null {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, 'bin', 'initdb')) && existsSync(join(base, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
  return versions[0] === undefined ? null : join(base, versions[0], 'bin');
}

/** A free TCP port on 127.0.0.1 (free when asked: the server binds it right after). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * The server refuses to run as root: as root (CI), its commands run as the `postgres` user that
 * the Debian package creates, through runuser; anyone else runs them as themselves.
 */
function asServerUser(command: string, args: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [command, args];
  return ['runuser', ['-u', 'postgres', '--', command, ...args]];
}

function userIds(name: string): { uid: number; gid: number } {
  return {
    uid: Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim()),
    gid: Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim()),
  };
}

let databases = 0;

/**
 * Starts a PostgreSQL server for this test file: initdb in a fresh temp directory (owned by the
 * `postgres` user when running as root), trust authentication, 127.0.0.1 on a free port, the
 * socket in that directory. Throws PostgresMissingError when PostgreSQL is not installed, so the
 * tests that need it fail with that message instead of being skipped. Stop it in afterAll; a
 * process that exits first stops it on the way out.
 */
export async function startPostgres(): Promise<TestPostgres> {
  const bin = findPostgresBin();
  if (bin === null) throw new PostgresMissingError();
  const dir = mkdtempSync(join(tmpdir(), 'hearth-pg-'));
  if (process.getuid?.() === 0) {
    const { uid, gid } = userIds('postgres');
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  const pgCtl = join(bin, 'pg_ctl');
  const stopNow = () => {
    try {
      execFileSync(...asServerUser(pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop']), { stdio: 'ignore' });
    } catch {
      // Not running (never started, or stopped already): nothing to stop.
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stopNow);
  let port = 0;
  try {
    await run(...asServerUser(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']));
    // A port found free may be taken before the server binds it: try a few.
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      try {
        await run(
          ...asServerUser(pgCtl, ['-D', data, '-l', log, '-w', '-t', '60', '-o', `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c max_connections=200`, 'start']),
        );
        break;
      } catch (err) {
        if (attempt >= 3) throw err;
      }
    }
  } catch (err) {
    const serverLog = existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : '';
    process.removeListener('exit', stopNow);
    stopNow();
    throw new Error(`could not start PostgreSQL from ${bin}: ${err instanceof Error ? err.message : String(err)}\n${serverLog}`);
  }
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    port,
    async createDatabase() {
      databases += 1;
      const name = `hearth_test_${process.pid}_${databases}`;
      const admin = new Client({ connectionString: url('postgres') });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      return url(name);
    },
    async stop() {
      process.removeListener('exit', stopNow);
      await run(...asServerUser(pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop']));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
