import { parseArgs, type ParseArgsConfig } from 'node:util';
import { openDataDir } from './app.js';
import { resolveConfig, type Config, type ConfigInput } from './config.js';
import { createLocalUser } from './core/accounts/create.js';
import type { Deps } from './core/deps.js';
import { Events } from './core/events.js';
import { changePassword, changeRole, listUsers } from './core/accounts/admin.js';
import { commandLineApplication } from './core/oauth/apps.js';
import { issueToken } from './core/oauth/tokens.js';
import { isKnownScope, parseScopes } from './core/oauth/scopes.js';
import { migrate } from './db/migrate.js';
import { ApiError } from './util/errors.js';
import { createUris } from './util/uris.js';
import type { UserRole } from './db/repos/users.js';

const USAGE = `Usage: hearth <command> [options]

Commands:
  serve                  run the instance server
      --data DIR         data directory (env HEARTH_DATA; default ~/.local/share/hearth)
      --port N           local port (env HEARTH_PORT; default 7470)
      --bind ADDR        bind address (env HEARTH_BIND; default 127.0.0.1)
      --origin URL       public origin, e.g. https://kim.example (env HEARTH_ORIGIN; none = local-only)
      --registrations M  open | approval | closed (env HEARTH_REGISTRATIONS; default closed)
      --allowed-hosts L  extra Host names accepted, comma-separated (env HEARTH_ALLOWED_HOSTS)
      --federation-allow-loopback
                         allow an http:// origin and loopback peers (tests and experiments only)
      --remote-media M   cache | proxy: remote media copied here, or streamed through
                         (env HEARTH_REMOTE_MEDIA; default cache)
      --relay URL        federate through this relay, e.g. https://relay.example (env HEARTH_RELAY):
                         the public origin comes from the relay unless --origin is given
      --relay-code CODE  the one-time enrolment code of the first start with a relay
                         (env HEARTH_RELAY_CODE; from \`hearth relay tenant add\` on the relay)
      --relay-clients    let the relay carry the client API too, for phones (env HEARTH_RELAY_CLIENTS)
      --https-port N     also serve HTTPS for local clients (Phanpy, Elk, phones on the network) on
                         this port, with a certificate from a local certificate authority made in
                         DIR/tls on first use (env HEARTH_HTTPS_PORT; default off)
      --https-name NAMES the HTTPS listener's names, comma-separated (env HEARTH_HTTPS_NAME;
                         default hearth.localhost)
      --rate-limit-scale N
                         multiply every rate limit by N, e.g. 10 (env HEARTH_RATE_LIMIT_SCALE;
                         default 1: Mastodon's limits; apps on this machine are never limited)
      --config FILE      JSON config file (default DIR/hearth.json)
  relay status           print the relay connection as JSON (connected, origin, backlog, lastError…)
  relay serve|tenant …   run a relay (see \`hearth relay --help\`)
  account create --username NAME --password PW [--email E] [--role owner|admin|moderator|user]
  account list
  account password --username NAME --password PW
  account role --username NAME --role ROLE
  account alias add|remove --username NAME --alias USER@DOMAIN
  account alias list --username NAME
                         the accounts allowed to move to this one (its alsoKnownAs)
  account move --username NAME --to USER@DOMAIN
                         move the account to one that lists it among its aliases; its followers
                         follow the new account (no password asked: the CLI is trusted)
  token --username NAME [--scopes "read write follow push"]
                         print a new access token for scripts (only the token)
  announcement create|list|update|publish|unpublish|delete …
                         announcements to every user (see \`hearth announcement --help\`)
  accounts pending|approve|reject [USERNAME]
                         sign-ups waiting for approval (see \`hearth accounts --help\`)
  role list|create|update|delete|assign …
                         roles and custom roles with Mastodon's permissions (see \`hearth role --help\`)
  reports list|show|resolve|reopen …
                         the reports staff handle (see \`hearth reports --help\`)
  mail list [--limit N] [--state S]
                         print the e-mail the instance wrote (confirmation and password links,
                         staff notices); without an SMTP server this is where they wait
  emoji add --shortcode NAME --file PATH [--category C] [--unlisted]
                         add a custom emoji (PNG, GIF or WebP, at most 256 KiB)
  emoji list
  emoji remove --shortcode NAME
  domain block|unblock|allow|disallow DOMAIN
                         instance domain blocks, and the allow list (once a domain is allowed,
                         only allowed domains federate)
  domain list            print the blocked and allowed domains
  migrate                apply database migrations
  version                print the version

Every command takes --data DIR and --config FILE.
`;

const OPTIONS = {
  data: { type: 'string' },
  port: { type: 'string' },
  bind: { type: 'string' },
  origin: { type: 'string' },
  registrations: { type: 'string' },
  'allowed-hosts': { type: 'string' },
  'federation-allow-loopback': { type: 'boolean' },
  'remote-media': { type: 'string' },
  relay: { type: 'string' },
  'relay-code': { type: 'string' },
  'relay-clients': { type: 'boolean' },
  'rate-limit-scale': { type: 'string' },
  'https-port': { type: 'string' },
  'https-name': { type: 'string' },
  config: { type: 'string' },
  username: { type: 'string' },
  password: { type: 'string' },
  email: { type: 'string' },
  role: { type: 'string' },
  alias: { type: 'string' },
  to: { type: 'string' },
  scopes: { type: 'string' },
  shortcode: { type: 'string' },
  file: { type: 'string' },
  category: { type: 'string' },
  unlisted: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} satisfies ParseArgsConfig['options'];

type Flags = { [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

function configInput(flags: Flags): ConfigInput {
  return {
    dataDir: flags.data,
    port: flags.port,
    bind: flags.bind,
    origin: flags.origin,
    registrations: flags.registrations,
    allowedHosts: flags['allowed-hosts'],
    federationAllowLoopback: flags['federation-allow-loopback'],
    remoteMedia: flags['remote-media'],
    relay: flags.relay,
    relayCode: flags['relay-code'],
    relayClients: flags['relay-clients'],
    rateLimitScale: flags['rate-limit-scale'],
    httpsPort: flags['https-port'],
    httpsName: flags['https-name'],
    configFile: flags.config,
  };
}

/** Core dependencies for a one-off command on a data directory (no server). */
function commandDeps(config: Config): Deps {
  const db = openDataDir(config.dataDir);
  const uris = createUris(config.origin ?? `http://${config.bind}:${config.port}`);
  return { db, config, events: new Events(), uris };
}

function need(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`missing --${flag}`);
  return value;
}

class UsageError extends Error {}

const ROLES: readonly UserRole[] = ['owner', 'admin', 'moderator', 'user'];

function parseRole(value: string | undefined): UserRole {
  const role = (value ?? 'user') as UserRole;
  if (!ROLES.includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  return role;
}

/**
 * `hearth serve`: runs the server until SIGINT or SIGTERM. `POST /api/hearth/restart` restarts it
 * in this process with the configuration read again (the first config is `config`; a restart reads
 * the flags, the environment and the config file afresh).
 */
async function serve(config: Config, reload: () => Config): Promise<number> {
  const { startServer } = await import('./serve.js');
  const { setupHint } = await import('./core/setup-hint.js');
  let first = true;
  const server = await startServer(
    () => (first ? config : reload()),
    (app, local, restarted) => {
      first = false;
      console.log(restarted ? `Hearth restarted, listening on ${local}` : `Hearth is listening on ${local}`);
      if (app.https) {
        console.log(`HTTPS for local clients: ${app.https.url}`);
        const made = app.https.material.madeAuthority ? 'a new certificate authority, ' : '';
        console.log(`  (${made}trust it once on each device: ${app.https.caFile}; see "HTTPS for local clients" in the README)`);
      }
      const { origin, relay } = app.deps.config;
      console.log(origin ? `Public origin: ${origin}${relay ? ` (through the relay ${relay})` : ''}` : 'Local-only: no public origin is set, federation is off.');
      const hint = setupHint(app.deps, local);
      if (hint) console.log(hint);
    },
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
  return 0;
}

/**
 * `account alias …` and `account move`: with a public origin, federation is wired for the command
 * (remote accounts are fetched, and the Move is put on the durable queue that the server sends
 * from); without one, only local and already known accounts can be named.
 */
async function accountMove(deps: Deps, sub: 'alias' | 'move', action: string | undefined, flags: Flags, config: Config): Promise<number> {
  const { addAlias, listAliases, moveAccount, removeAlias } = await import('./core/accounts/move.js');
  const { findLocalActor } = await import('./core/federation/local.js');
  const username = need(flags.username, 'username');
  const me = findLocalActor(deps, username);
  if (!me) throw new ApiError(404, `no such user: ${username}`);
  if (sub === 'alias' && action === 'list') {
    for (const alias of listAliases(me)) console.log(alias);
    return 0;
  }
  if (sub === 'alias' && action !== 'add' && action !== 'remove') throw new UsageError(`unknown account alias command: ${action ?? '(none)'}`);
  const handle = sub === 'move' ? need(flags.to, 'to') : need(flags.alias, 'alias');
  const federation = config.origin ? (await import('./federation/index.js')).createHearthFederation(deps, config.origin) : null;
  try {
    if (sub === 'move') {
      const { target, migratedFollowers } = await moveAccount(deps, me, handle);
      console.log(`moved ${me.username} to ${target.username}${target.domain ? `@${target.domain}` : ''}; ${migratedFollowers} local followers carried over`);
    } else {
      const aliases = action === 'add' ? await addAlias(deps, me, handle) : await removeAlias(deps, me, handle);
      console.log(`aliases of ${me.username}: ${aliases.length ? aliases.join(' ') : '(none)'}`);
    }
    return 0;
  } finally {
    if (federation) {
      // stop() waits until the Move and the profile Update (started by listeners) are queued;
      // then the queue's last writes commit before the database closes.
      await federation.stop();
      const { groupCommitFor } = await import('./federation/group-commit.js');
      for (let i = 0; i < 40 && !groupCommitFor(deps.db).idle; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

async function account(sub: string | undefined, action: string | undefined, flags: Flags, config: Config): Promise<number> {
  const deps = commandDeps(config);
  try {
    switch (sub) {
      case 'create': {
        const username = need(flags.username, 'username');
        const { accountId } = await createLocalUser(deps, {
          username,
          password: need(flags.password, 'password'),
          email: flags.email ?? null,
          role: parseRole(flags.role),
          allowReserved: true,
        });
        console.log(`created ${username} (${parseRole(flags.role)}), account id ${accountId}`);
        return 0;
      }
      case 'list': {
        for (const u of listUsers(deps)) {
          console.log(`${u.username}\t${u.role}\t${u.email ?? ''}\t${u.approved ? 'approved' : 'pending'}${u.disabled ? '\tdisabled' : ''}`);
        }
        return 0;
      }
      case 'password': {
        await changePassword(deps, need(flags.username, 'username'), need(flags.password, 'password'));
        console.log('password changed; existing tokens stay valid');
        return 0;
      }
      case 'role': {
        changeRole(deps, need(flags.username, 'username'), parseRole(need(flags.role, 'role')));
        console.log('role changed');
        return 0;
      }
      case 'alias':
      case 'move':
        return await accountMove(deps, sub, action, flags, config);
      default:
        throw new UsageError(`unknown account command: ${sub ?? '(none)'}`);
    }
  } finally {
    deps.db.close();
  }
}

async function emoji(sub: string | undefined, flags: Flags, config: Config): Promise<number> {
  const { addCustomEmoji, listAllCustomEmojis, removeCustomEmoji } = await import('./core/emojis/manage.js');
  const deps = commandDeps(config);
  try {
    switch (sub) {
      case 'add': {
        const row = await addCustomEmoji(deps, {
          shortcode: need(flags.shortcode, 'shortcode'),
          file: need(flags.file, 'file'),
          category: flags.category,
          visibleInPicker: !flags.unlisted,
        });
        console.log(`added :${row.shortcode}:`);
        return 0;
      }
      case 'list': {
        for (const e of listAllCustomEmojis(deps)) {
          console.log(`:${e.shortcode}:\t${e.category ?? ''}\t${e.visible_in_picker ? 'listed' : 'unlisted'}${e.disabled ? '\tdisabled' : ''}`);
        }
        return 0;
      }
      case 'remove': {
        await removeCustomEmoji(deps, need(flags.shortcode, 'shortcode'));
        console.log('removed');
        return 0;
      }
      default:
        throw new UsageError(`unknown emoji command: ${sub ?? '(none)'}`);
    }
  } finally {
    deps.db.close();
  }
}

function token(flags: Flags, config: Config): number {
  const deps = commandDeps(config);
  try {
    const scopes = parseScopes(flags.scopes ?? 'read write follow push');
    const unknown = scopes.filter((s) => !isKnownScope(s));
    if (unknown.length) throw new UsageError(`unknown scopes: ${unknown.join(', ')}`);
    const user = listUsers(deps).find((u) => u.username.toLowerCase() === need(flags.username, 'username').toLowerCase());
    if (!user) throw new UsageError(`no such user: ${flags.username}`);
    // The token belongs to the command line's application, as a client's token to its client.
    const issued = issueToken(deps, { applicationId: commandLineApplication(deps).id, userId: user.userId, scopes });
    process.stdout.write(`${issued.accessToken}\n`);
    return 0;
  } finally {
    deps.db.close();
  }
}

async function domain(sub: string | undefined, name: string | undefined, config: Config): Promise<number> {
  const { addInstanceDomain, instanceDomainBlocks, instanceDomains, removeInstanceDomain } = await import('./core/federation/instance-domains.js');
  const deps = commandDeps(config);
  try {
    if (sub === 'list') {
      const { allowed } = instanceDomains(deps);
      // Blocks made through the admin API may only limit the domain: their severity is shown.
      const blocks = instanceDomainBlocks(deps).sort((x, y) => x.domain.localeCompare(y.domain));
      for (const b of blocks) console.log(`block\t${b.domain}${b.severity === 'suspend' ? '' : `\t${b.severity}`}`);
      for (const d of allowed) console.log(`allow\t${d}`);
      return 0;
    }
    const which = sub === 'block' || sub === 'unblock' ? 'block' : sub === 'allow' || sub === 'disallow' ? 'allow' : null;
    if (!which) throw new UsageError(`unknown domain command: ${sub ?? '(none)'}`);
    if (!name) throw new UsageError('missing DOMAIN');
    const target = name;
    if (sub === 'block' || sub === 'allow') console.log(`${sub}ed ${addInstanceDomain(deps, which, target)}`);
    else console.log(removeInstanceDomain(deps, which, target) ? `${sub}ed ${target}` : `${target} was not listed`);
    return 0;
  } finally {
    deps.db.close();
  }
}

/** Runs the CLI with the given arguments (without `node` and the script); resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  // `hearth announcement …` reads its own options (api/cli-announcement.ts).
  if (argv[0] === 'announcement') return (await import('./cli-announcement.js')).announcementCommand(argv.slice(1));
  // `hearth mail …` likewise (api/cli-mail.ts).
  if (argv[0] === 'mail') return (await import('./cli-mail.js')).mailCommand(argv.slice(1));
  // `hearth reports …` likewise (api/cli-reports.ts).
  if (argv[0] === 'reports') return (await import('./cli-reports.js')).reportsCommand(argv.slice(1));
  // `hearth accounts …` and `hearth role …` read their own options too (api/cli-accounts.ts).
  if (argv[0] === 'accounts' || argv[0] === 'role') return (await import('./cli-accounts.js')).moderationCommand(argv);
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    console.error(`hearth: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const flags = parsed.values as Flags;
  const [command, sub] = parsed.positionals;
  if (flags.help || !command || command === 'help') {
    console.log(USAGE);
    return command || flags.help ? 0 : 2;
  }
  try {
    if (command === 'version') {
      const { HEARTH_VERSION } = await import('./util/version.js');
      console.log(HEARTH_VERSION);
      return 0;
    }
    const config = resolveConfig(configInput(flags));
    switch (command) {
      case 'serve':
        return await serve(config, () => resolveConfig(configInput(flags)));
      case 'account':
        return await account(sub, parsed.positionals[2], flags, config);
      case 'emoji':
        return await emoji(sub, flags, config);
      case 'token':
        return token(flags, config);
      case 'domain':
        return await domain(sub, parsed.positionals[2], config);
      case 'relay': {
        if (sub !== 'status') throw new UsageError(`unknown relay command: ${sub ?? '(none)'}`);
        const { relayStatus } = await import('./core/relay/status.js');
        const db = openDataDir(config.dataDir);
        try {
          process.stdout.write(`${JSON.stringify(relayStatus({ db }))}\n`);
        } finally {
          db.close();
        }
        return 0;
      }
      case 'migrate': {
        const db = openDataDir(config.dataDir);
        const result = migrate(db);
        db.close();
        console.log(`database at schema version ${result.current}`);
        return 0;
      }
      default:
        throw new UsageError(`unknown command: ${command}`);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`hearth: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    if (err instanceof ApiError) {
      console.error(`hearth: ${err.message}`);
      return 1;
    }
    console.error(`hearth: ${(err as Error).message}`);
    return 1;
  }
}
