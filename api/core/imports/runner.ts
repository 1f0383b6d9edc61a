import { findAccountById, type AccountRow } from '../../db/repos/accounts.js';
import { endImport, findImport, finishImportLine, markImportInProgress, nextUnfinishedImport, pendingImportLines, type ImportRow } from '../../db/repos/imports.js';
import { backgroundLane } from '../../util/background-lane.js';
import { now } from '../../util/clock.js';
import type { Deps } from '../deps.js';
import { openCommitGroup } from '../durability.js';
import { applyRow, type RowTarget } from './apply.js';
import type { ImportRowData } from './formats.js';
import { removeWhatIsNotInFile } from './overwrite.js';
import { Resolver, type Found, type RowFailure } from './targets.js';

/**
 * The import job: works through the imports that are not finished, oldest first, from the
 * durable tables (so a restart resumes where the last run stopped). Overwrite mode's removals come
 * first; then the rows, a few at a time: what they name is looked up together (remote lookups
 * wait on the network, not on each other), then each row is done and marked done in one turn of
 * the event loop, with one flush to disk per batch. Between batches the job takes its turn in the
 * background lane, so requests are answered meanwhile. A cancelled import stops before its next
 * batch. Stopping (the instance closing) drops the lookups in flight: their rows are done after
 * the next start.
 */

/** What a row that failed for no reason the person can act on says. */
const ROW_ERROR: RowFailure = { reason: 'error', message: 'Something went wrong with this row' };

/** The pause before the job tries again after failing as a whole (the disk full, …). */
const RETRY_MS = 60_000;

/** Rows looked up together. */
const BATCH = 8;

interface Runner {
  stopped: boolean;
  running: boolean;
  again: boolean;
}

const runners = new WeakMap<Deps, Runner>();

/** The running job, to stop when the instance closes. */
export interface ImportJob {
  stop(): void;
}

/** Starts the import job of a serving instance (and resumes what a previous run left). */
export function startImports(deps: Deps): ImportJob {
  const runner: Runner = { stopped: false, running: false, again: false };
  runners.set(deps, runner);
  kickImports(deps);
  return {
    stop() {
      runner.stopped = true;
      runners.delete(deps);
    },
  };
}

/** Wakes the job (a new import was stored); nothing happens while the instance does not serve. */
export function kickImports(deps: Deps): void {
  const runner = runners.get(deps);
  if (!runner || runner.stopped) return;
  if (runner.running) {
    runner.again = true;
    return;
  }
  runner.running = true;
  run(deps, runner)
    .catch((err: unknown) => {
      if (runner.stopped || !deps.db.raw.open) return;
      console.error('imports: the job failed; it tries again in a minute', err);
      setTimeout(() => kickImports(deps), RETRY_MS).unref();
    })
    .finally(() => {
      runner.running = false;
      if (runner.again && !runner.stopped) {
        runner.again = false;
        kickImports(deps);
      }
    });
}

const stoppedOf = (deps: Deps, runner: Runner) => () => runner.stopped || !deps.db.raw.open;

/** Still to be worked on (not finished, not cancelled). */
function stillOpen(deps: Deps, id: string): boolean {
  const row = findImport(deps.db, id);
  return row !== undefined && (row.state === 'scheduled' || row.state === 'in_progress');
}

async function run(deps: Deps, runner: Runner): Promise<void> {
  const stopped = stoppedOf(deps, runner);
  const resolver = new Resolver(deps);
  for (;;) {
    await backgroundLane.turn();
    if (stopped()) return;
    const job = nextUnfinishedImport(deps.db);
    if (!job) return;
    const me = findAccountById(deps.db, job.account_id);
    if (!me) {
      endImport(deps.db, job.id, 'cancelled', now());
      continue;
    }
    if (job.prepared === 0) {
      markImportInProgress(deps.db, job.id, false);
      const done = await removeWhatIsNotInFile(deps, job, me, () => stopped() || !stillOpen(deps, job.id));
      if (stopped()) return;
      if (done) markImportInProgress(deps.db, job.id, true);
      continue;
    }
    if (job.state === 'scheduled') markImportInProgress(deps.db, job.id, true);
    const lines = pendingImportLines(deps.db, job.id, BATCH);
    if (lines.length === 0) {
      endImport(deps.db, job.id, 'finished', now());
      continue;
    }
    const work = lines.map((l) => ({ position: l.position, data: JSON.parse(l.data) as ImportRowData }));
    const found = await Promise.all(work.map((w) => findTarget(resolver, job, w.data, stopped)));
    if (stopped()) return;
    // Cancelled meanwhile, or its owner gone: nothing of this batch is done.
    const owner = findAccountById(deps.db, job.account_id);
    if (!owner || !stillOpen(deps, job.id)) continue;
    const close = openCommitGroup(deps);
    try {
      work.forEach((w, i) => {
        const target = found[i];
        const outcome = !target ? ROW_ERROR : target.ok ? doRow(deps, job, owner, w.data, target.value) : { reason: target.reason, message: target.message };
        finishImportLine(deps.db, job.id, w.position, outcome);
      });
    } finally {
      close?.();
    }
  }
}

/** What a row names: an account, a post, or nothing to look up (a domain). */
async function findTarget(resolver: Resolver, job: ImportRow, data: ImportRowData, stopped: () => boolean): Promise<Found<RowTarget>> {
  try {
    if (job.type === 'domain_blocks') return { ok: true, value: null };
    if (job.type === 'bookmarks') {
      const status = await resolver.status(data.uri ?? '', job.local_domain);
      return status.ok ? { ok: true, value: { statusId: status.value } } : status;
    }
    const account = await resolver.account(data.acct ?? '', job.local_domain);
    return account.ok ? { ok: true, value: { account: account.value } } : account;
  } catch (err) {
    // The instance closing under a lookup is no failure of the row: the run ends, the row waits.
    if (!stopped()) console.error(`imports: looking up a row of import ${job.id} failed`, err);
    return { ok: false, ...ROW_ERROR };
  }
}

/** Does one row: null when done, else why not. An unexpected error fails the row (and is logged). */
function doRow(deps: Deps, job: ImportRow, me: AccountRow, data: ImportRowData, target: RowTarget): RowFailure | null {
  try {
    return applyRow(deps, job.type, me, data, target);
  } catch (err) {
    if (!deps.db.raw.open) throw err;
    console.error(`imports: a row of import ${job.id} failed`, err);
    return ROW_ERROR;
  }
}
