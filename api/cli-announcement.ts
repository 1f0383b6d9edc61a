import type { ParseArgsConfig } from 'node:util';
import { runSubcommand, UsageError, type FlagsOf } from './cli-subcommand.js';
import type { AnnouncementParams } from './core/announcements/input.js';
import type { Deps } from './core/deps.js';
import { Events } from './core/events.js';
import type { AnnouncementRow } from './db/repos/announcements.js';
import { isoTime } from './util/clock.js';

/**
 * `hearth announcement …`: the owner's announcements from the command line (cli.ts hands the
 * arguments over as they are). The command writes to the data directory; a running server picks
 * the change up within a second (it publishes, and its users' streams hear of it).
 */

export const ANNOUNCEMENT_USAGE = `Usage: hearth announcement <command> --data DIR [options]

Commands:
  create --text T [--starts-at ISO] [--ends-at ISO] [--all-day] [--scheduled-at ISO]
                         post an announcement to every user and print its id (published at once
                         unless --scheduled-at is later; --all-day needs --starts-at and --ends-at)
  list                   print every announcement: id, state, start, end, text
  update --id ID [--text T] [--starts-at ISO] [--ends-at ISO] [--all-day | --no-all-day]
         [--scheduled-at ISO]
                         change what is given ('' clears a time)
  publish --id ID        show it to users now
  unpublish --id ID      withdraw it from users
  delete --id ID         delete it with its reactions

Every command takes --data DIR and --config FILE.
`;

const OPTIONS = {
  data: { type: 'string' },
  config: { type: 'string' },
  id: { type: 'string' },
  text: { type: 'string' },
  'starts-at': { type: 'string' },
  'ends-at': { type: 'string' },
  'scheduled-at': { type: 'string' },
  'all-day': { type: 'boolean' },
  'no-all-day': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} satisfies ParseArgsConfig['options'];

type Flags = FlagsOf<typeof OPTIONS>;


/** The fields the flags give (those not given stay undefined). */
function paramsFrom(flags: Flags): AnnouncementParams {
  if (flags['all-day'] && flags['no-all-day']) throw new UsageError('--all-day and --no-all-day exclude each other');
  return {
    text: flags.text,
    starts_at: flags['starts-at'],
    ends_at: flags['ends-at'],
    scheduled_at: flags['scheduled-at'],
    all_day: flags['all-day'] ? true : flags['no-all-day'] ? false : undefined,
  };
}

function state(row: AnnouncementRow): string {
  if (row.published === 1) return 'published';
  return row.scheduled_at !== null ? `scheduled ${isoTime(row.scheduled_at)}` : 'unpublished';
}

/** One line of `list`: id, state, start, end (dates only when all day), the text's first line. */
function line(row: AnnouncementRow): string {
  const when = (ms: number | null) => (ms === null ? '-' : row.all_day === 1 ? isoTime(ms).slice(0, 10) : isoTime(ms));
  const text = row.text.split(/\r?\n/)[0] ?? '';
  return [row.id, state(row), when(row.starts_at), when(row.ends_at), text].join('\t');
}

async function run(sub: string | undefined, id: string | undefined, flags: Flags, deps: Deps): Promise<number> {
  const manage = await import('./core/announcements/manage.js');
  const needId = () => {
    if (!id) throw new UsageError('missing --id');
    return id;
  };
  switch (sub) {
    case 'create': {
      if (flags.text === undefined) throw new UsageError('missing --text');
      const row = manage.createAnnouncement(deps, paramsFrom(flags));
      process.stdout.write(`${row.id}\n`);
      return 0;
    }
    case 'list': {
      for (const row of manage.listAnnouncementRows(deps)) console.log(line(row));
      return 0;
    }
    case 'update': {
      const row = manage.updateAnnouncement(deps, needId(), paramsFrom(flags));
      console.log(`updated ${row.id} (${state(row)})`);
      return 0;
    }
    case 'publish':
      console.log(`published ${manage.publishAnnouncement(deps, needId()).id}`);
      return 0;
    case 'unpublish':
      console.log(`unpublished ${manage.unpublishAnnouncement(deps, needId()).id}`);
      return 0;
    case 'delete':
      manage.deleteAnnouncement(deps, needId());
      console.log(`deleted ${needId()}`);
      return 0;
    default:
      throw new UsageError(`unknown announcement command: ${sub ?? '(none)'}`);
  }
}

/**
 * Runs `hearth announcement` with the arguments after `announcement`; resolves to the exit code:
 * 0, 1 when the announcement was refused (its reason printed), 2 for a usage mistake.
 */
export function announcementCommand(argv: string[]): Promise<number> {
  return runSubcommand(argv, {
    usage: ANNOUNCEMENT_USAGE,
    options: OPTIONS,
    // No listeners: streaming is the running server's business (see core/announcements/outbox.ts).
    events: () => new Events(),
    run: (sub, [positionalId], flags, deps) => run(sub, flags.id ?? positionalId, flags, deps),
  });
}
