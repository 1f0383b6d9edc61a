import { parseArgs, type ParseArgsConfig } from 'node:util';
import { openDataDir } from './app.js';
import { resolveConfig } from './config.js';
import type { Deps } from './core/deps.js';
import type { Events } from './core/events.js';
import type { Db } from './db/connection.js';
import { ApiError } from './util/errors.js';
import { createUris } from './util/uris.js';

/** A usage mistake in a subcommand: exit code 2, with the command's usage printed. */
export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

/** The parsed flags of a subcommand's options: booleans for boolean options, text otherwise. */
export type FlagsOf<O extends Options> = { [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : string };

/** What a subcommand of `hearth` (`announcement`, `reports`, `accounts`, `role`) is made of. */
export interface Subcommand<O extends Options> {
  usage: string;
  options: O;
  /** The event bus of the command's changes (its database given). */
  events(db: Db): Events;
  /** Runs the command word `sub` with its positionals and flags; resolves to the exit code. */
  run(sub: string, positionals: string[], flags: FlagsOf<O>, deps: Deps): Promise<number>;
  /** The text printed for a refusal (an ApiError); its message by default. */
  refusal?(err: ApiError): string;
}

/**
 * Runs a subcommand on the data directory named by `--data`/`--config`, with the rules every
 * `hearth` subcommand shares: usage and parse mistakes exit 2 with the usage printed, `--help`
 * (or no command word) prints the usage, a refused change exits 1 with its reason.
 */
export async function runSubcommand<O extends Options>(argv: string[], command: Subcommand<O>): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: command.options, allowPositionals: true, strict: true });
  } catch (err) {
    console.error(`hearth: ${(err as Error).message}\n\n${command.usage}`);
    return 2;
  }
  const flags = parsed.values as FlagsOf<O> & { data?: string; config?: string; help?: boolean };
  const [sub, ...positionals] = parsed.positionals;
  if (flags.help || !sub) {
    console.log(command.usage);
    return sub || flags.help ? 0 : 2;
  }
  try {
    const config = resolveConfig({ dataDir: flags.data, configFile: flags.config });
    const db = openDataDir(config.dataDir);
    const deps: Deps = { db, config, events: command.events(db), uris: createUris(config.origin ?? `http://${config.bind}:${config.port}`) };
    try {
      return await command.run(sub, positionals, flags, deps);
    } finally {
      db.close();
    }
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`hearth: ${err.message}\n\n${command.usage}`);
      return 2;
    }
    const text = err instanceof ApiError ? (command.refusal?.(err) ?? err.message) : (err as Error).message;
    console.error(`hearth: ${text}`);
    return 1;
  }
}
