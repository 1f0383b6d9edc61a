import { parseArgs, type ParseArgsConfig } from 'node:util';
import { openDataDir } from './app.js';
import { resolveConfig } from './config.js';
import type { Deps } from './core/deps.js';
import { Events } from './core/events.js';
import { listMail, type MailView } from './core/mail/outbox.js';
import { createUris } from './util/uris.js';

/**
 * `hearth mail …`: the e-mail the instance wrote, read from the data directory (cli.ts hands the
 * arguments over as they are). Without an SMTP server, this is where the owner finds the
 * confirmation and password links to pass on.
 */

export const MAIL_USAGE = `Usage: hearth mail list --data DIR [--limit N] [--state S]

Commands:
  list                   print the latest e-mail the instance wrote, oldest first: when, state
                         (kept: no SMTP server is configured; queued, sent, failed), kind,
                         recipient, subject and text
      --limit N          how many (default 20, at most 200)
      --state S          only those in a state: kept, queued, sent or failed

Every command takes --data DIR and --config FILE.
`;

const OPTIONS = {
  data: { type: 'string' },
  config: { type: 'string' },
  limit: { type: 'string' },
  state: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} satisfies ParseArgsConfig['options'];

type Flags = { [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

const STATES = ['kept', 'queued', 'sent', 'failed'];

/** One message as the command prints it. */
export function formatMail(m: MailView): string {
  const lines = [`--- ${m.created_at}  ${m.state}  ${m.kind}  #${m.id}`, `To: ${m.to}`, `Subject: ${m.subject}`];
  if (m.last_error) lines.push(`Last error: ${m.last_error}`);
  lines.push('', m.body, '');
  return lines.join('\n');
}

/** Runs `hearth mail` with its arguments; resolves to the exit code. */
export async function mailCommand(argv: string[]): Promise<number> {
  let flags: Flags;
  let positionals: string[];
  try {
    const parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
    flags = parsed.values as Flags;
    positionals = parsed.positionals;
  } catch (err) {
    console.error(`hearth mail: ${(err as Error).message}\n\n${MAIL_USAGE}`);
    return 2;
  }
  if (flags.help) {
    console.log(MAIL_USAGE);
    return 0;
  }
  const [sub] = positionals;
  const limit = flags.limit === undefined ? 20 : Number(flags.limit);
  if (sub !== 'list' || !Number.isInteger(limit) || limit < 1 || limit > 200 || (flags.state !== undefined && !STATES.includes(flags.state))) {
    console.error(`hearth mail: ${sub === 'list' ? 'bad --limit or --state' : `unknown mail command: ${sub ?? '(none)'}`}\n\n${MAIL_USAGE}`);
    return 2;
  }
  let deps: Deps;
  try {
    const config = resolveConfig({ dataDir: flags.data, configFile: flags.config });
    deps = { db: openDataDir(config.dataDir), config, events: new Events(), uris: createUris(config.origin ?? `http://${config.bind}:${config.port}`) };
  } catch (err) {
    console.error(`hearth mail: ${(err as Error).message}`);
    return 1;
  }
  try {
    // Newest first from the outbox, a state filtered after reading (the outbox is small), printed oldest first.
    const mail = listMail(deps, { limit: flags.state ? 200 : limit })
      .filter((m) => flags.state === undefined || m.state === flags.state)
      .slice(0, limit)
      .reverse();
    if (mail.length === 0) console.log('(no mail)');
    for (const m of mail) console.log(formatMail(m));
    return 0;
  } finally {
    deps.db.close();
  }
}
