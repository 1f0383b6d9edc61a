import type { ParseArgsConfig } from 'node:util';
import { runSubcommand, UsageError, type FlagsOf } from './cli-subcommand.js';
import type { Deps } from './core/deps.js';
import { CommandEvents } from './core/jobs/command-events.js';
import type { AdminReport } from './serializers/admin-report.js';
import { ApiError } from './util/errors.js';

/**
 * `hearth reports …`: the reports staff handle, from the command line (cli.ts hands the arguments
 * over as they are). The same functions as the admin API (core/admin/reports.ts) on the data
 * directory's database; the command line is trusted, so no role is asked for.
 */

export const REPORTS_USAGE = `Usage: hearth reports <command> --data DIR [options]

Commands:
  list [--resolved] [--limit N]
                         print the open reports (the resolved ones with --resolved), newest first:
                         id, state, category, reporter, reported account, date, comment
  show --id ID           print one report with its statuses and rules
  resolve --id ID [--username NAME]
                         mark it resolved (by NAME's account when given)
  reopen --id ID         open it again

Every command takes --data DIR and --config FILE.
`;

const OPTIONS = {
  data: { type: 'string' },
  config: { type: 'string' },
  id: { type: 'string' },
  username: { type: 'string' },
  resolved: { type: 'boolean' },
  limit: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} satisfies ParseArgsConfig['options'];

type Flags = FlagsOf<typeof OPTIONS>;


/** One line of text: newlines and tabs flattened, so that a report stays one line of a list. */
function oneLine(text: string): string {
  return text.replace(/[\t\r\n]+/g, ' ').trim();
}

function state(report: AdminReport): string {
  return report.action_taken ? 'resolved' : 'open';
}

/** One line of `list`: id, state, category, reporter, reported account, date, comment. */
function line(report: AdminReport): string {
  return [report.id, state(report), report.category, report.account.account.acct, report.target_account.account.acct, report.created_at, oneLine(report.comment)].join('\t');
}

/** The lines of `show`. */
function details(report: AdminReport): string[] {
  const out = [
    `id\t${report.id}`,
    `state\t${state(report)}${report.action_taken_at ? ` ${report.action_taken_at}` : ''}${report.action_taken_by_account ? ` by ${report.action_taken_by_account.account.acct}` : ''}`,
    `category\t${report.category}`,
    `reporter\t${report.account.account.acct}`,
    `reported\t${report.target_account.account.acct}`,
    `created\t${report.created_at}`,
    `assigned\t${report.assigned_account?.account.acct ?? '-'}`,
    `forwarded\t${report.forwarded ? 'yes' : 'no'}`,
    `comment\t${oneLine(report.comment)}`,
  ];
  for (const rule of report.rules) out.push(`rule\t${rule.id}\t${oneLine(rule.text)}`);
  for (const status of report.statuses) out.push(`status\t${status.id}\t${status.url ?? status.uri}`);
  return out;
}

async function run(sub: string | undefined, id: string | undefined, flags: Flags, deps: Deps): Promise<number> {
  const reports = await import('./core/admin/reports.js');
  const needId = () => {
    if (!id) throw new UsageError('missing --id');
    return id;
  };
  switch (sub) {
    case 'list': {
      const limit = flags.limit === undefined ? 100 : Number(flags.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit must be a whole number from 1 to 1000');
      for (const report of reports.listAdminReports(deps, { resolved: flags.resolved === true }, { limit })) console.log(line(report));
      return 0;
    }
    case 'show':
      for (const l of details(reports.showAdminReport(deps, needId()))) console.log(l);
      return 0;
    case 'resolve': {
      let by: string | null = null;
      if (flags.username !== undefined) {
        const { findLocalActor } = await import('./core/federation/local.js');
        const account = findLocalActor(deps, flags.username);
        if (!account) throw new ApiError(404, `no such user: ${flags.username}`);
        by = account.id;
      }
      console.log(`resolved ${reports.resolveAdminReport(deps, needId(), by).id}`);
      return 0;
    }
    case 'reopen':
      console.log(`reopened ${reports.reopenAdminReport(deps, needId()).id}`);
      return 0;
    default:
      throw new UsageError(`unknown reports command: ${sub ?? '(none)'}`);
  }
}

/**
 * Runs `hearth reports` with the arguments after `reports`; resolves to the exit code: 0, 1 when
 * the command failed (an unknown report, its reason printed), 2 for a usage mistake.
 */
export function reportsCommand(argv: string[]): Promise<number> {
  return runSubcommand(argv, {
    usage: REPORTS_USAGE,
    options: OPTIONS,
    events: (db) => new CommandEvents(db),
    run: (sub, [positionalId], flags, deps) => run(sub, flags.id ?? positionalId, flags, deps),
    refusal: (err) => (err.status === 404 && err.message === 'Record not found' ? 'no such report' : err.message),
  });
}
