import type { ParseArgsConfig } from 'node:util';
import { runSubcommand, UsageError, type FlagsOf } from './cli-subcommand.js';
import type { Deps } from './core/deps.js';
import { CommandEvents } from './core/jobs/command-events.js';
import { findAccountByHandle } from './db/repos/accounts.js';
import { countUsersWithBuiltInRole, countUsersWithCustomRole } from './db/repos/roles.js';
import { findUserByAccountId } from './db/repos/users.js';
import { isoTime } from './util/clock.js';
import { ApiError } from './util/errors.js';
import { PERMISSION, type RoleDefinition } from './util/permissions.js';

/**
 * `hearth accounts …` (sign-ups waiting for approval) and `hearth role …` (roles and who holds
 * them): the owner's moderation at the command line (cli.ts hands the arguments over as they
 * are). The person at the machine is trusted: no role is needed, but the rules that keep the
 * instance sound still hold (an owner always remains, built-in roles do not change).
 */

export const ACCOUNTS_USAGE = `Usage: hearth accounts <command> --data DIR

Commands:
  pending                print the sign-ups waiting for approval: username, e-mail, date, reason
  approve USERNAME       let a pending sign-up use the instance
  reject USERNAME        refuse a pending sign-up (its account is deleted; the name is free again)

Every command takes --data DIR and --config FILE.
`;

export const ROLE_USAGE = `Usage: hearth role <command> --data DIR [options]

Commands:
  list                   print every role: id, name, position, permissions, badge, colour, users
  create --name N [--permissions P] [--position N] [--color #RRGGBB] [--highlighted]
                         make a custom role and print its id. P: permission names separated by
                         commas (manage_users,manage_reports…) or Mastodon's bitmask; position 0-999
                         (moderator 10, admin 100, owner 1000)
  update --id ID [--name N] [--permissions P] [--position N] [--color C] [--highlighted | --no-highlighted]
                         change a custom role
  delete --id ID         delete a custom role (its users become plain users)
  assign --username NAME --role ROLE
                         give a user a role: owner, admin, moderator, user, or a custom role's id
                         or name

Permissions: ${Object.keys(PERMISSION).map(snake).join(', ')}.
Every command takes --data DIR and --config FILE.
`;

const OPTIONS = {
  data: { type: 'string' },
  config: { type: 'string' },
  id: { type: 'string' },
  name: { type: 'string' },
  permissions: { type: 'string' },
  position: { type: 'string' },
  color: { type: 'string' },
  highlighted: { type: 'boolean' },
  'no-highlighted': { type: 'boolean' },
  username: { type: 'string' },
  role: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} satisfies ParseArgsConfig['options'];

type Flags = FlagsOf<typeof OPTIONS>;


function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

const BY_NAME = new Map<string, number>(Object.entries(PERMISSION).map(([k, v]) => [snake(k), v]));

/** Permissions as given: a number (decimal or 0x hex) or permission names separated by commas. */
function parsePermissions(value: string): number {
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  if (/^0x[0-9a-f]+$/i.test(text)) return Number.parseInt(text.slice(2), 16);
  let mask = 0;
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const flag = BY_NAME.get(part.toLowerCase());
    if (flag === undefined) throw new UsageError(`unknown permission: ${part}`);
    mask |= flag;
  }
  return mask;
}

function permissionNames(mask: number): string {
  const names = [...BY_NAME].filter(([, flag]) => (mask & flag) !== 0).map(([name]) => name);
  return names.length ? names.join(',') : '-';
}

function parsePosition(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value.trim())) throw new UsageError('--position must be a whole number');
  return Number(value.trim());
}

function roleLine(deps: Deps, role: RoleDefinition): string {
  const holders = role.builtIn ? countUsersWithBuiltInRole(deps.db, role.builtIn) : countUsersWithCustomRole(deps.db, role.id);
  const label = role.builtIn ? `${role.builtIn}${role.name ? ` (${role.name})` : ''}` : role.name;
  return [role.id, label, role.position, permissionNames(role.permissions), role.highlighted ? 'badge' : '-', role.color || '-', `${holders} users`].join('\t');
}


/** The local account and user of a username, or an error naming it. */
function localUser(deps: Deps, username: string | undefined) {
  if (!username) throw new UsageError('missing USERNAME');
  const account = findAccountByHandle(deps.db, username.replace(/^@/, ''), null);
  const user = account ? findUserByAccountId(deps.db, account.id) : undefined;
  if (!account || !user) throw new ApiError(404, `no such user: ${username}`);
  return { account, user };
}

async function accounts(sub: string | undefined, username: string | undefined, deps: Deps): Promise<number> {
  const admin = await import('./core/admin/accounts.js');
  switch (sub) {
    case 'pending': {
      for (const p of admin.listPendingSignUps(deps)) {
        console.log([p.username, p.email ?? '-', isoTime(p.createdAt), (p.reason ?? '').replace(/\s+/g, ' ')].join('\t'));
      }
      return 0;
    }
    case 'approve':
    case 'reject': {
      const { account, user } = localUser(deps, username);
      if (user.approved === 1) throw new ApiError(409, `${account.username} is not waiting for approval`);
      if (sub === 'approve') admin.approveAccount(deps, null, account.id);
      else admin.rejectAccount(deps, null, account.id);
      console.log(`${sub === 'approve' ? 'approved' : 'rejected'} ${account.username}`);
      return 0;
    }
    default:
      throw new UsageError(`unknown accounts command: ${sub ?? '(none)'}`);
  }
}

async function role(sub: string | undefined, flags: Flags, deps: Deps): Promise<number> {
  const manage = await import('./core/roles/manage.js');
  const needId = () => {
    if (!flags.id) throw new UsageError('missing --id');
    return flags.id;
  };
  if (flags.highlighted && flags['no-highlighted']) throw new UsageError('--highlighted and --no-highlighted exclude each other');
  const fields = () => ({
    name: flags.name,
    color: flags.color,
    permissions: flags.permissions === undefined ? undefined : parsePermissions(flags.permissions),
    position: parsePosition(flags.position),
    highlighted: flags.highlighted ? true : flags['no-highlighted'] ? false : undefined,
  });
  switch (sub) {
    case 'list':
      for (const r of manage.listRoles(deps)) console.log(roleLine(deps, r));
      return 0;
    case 'create': {
      if (flags.name === undefined) throw new UsageError('missing --name');
      process.stdout.write(`${manage.createRole(deps, null, fields()).id}\n`);
      return 0;
    }
    case 'update': {
      const updated = manage.updateRole(deps, null, needId(), fields());
      console.log(`updated ${updated.id} (${updated.name})`);
      return 0;
    }
    case 'delete':
      manage.deleteRole(deps, null, needId());
      console.log(`deleted ${needId()}`);
      return 0;
    case 'assign': {
      if (!flags.role) throw new UsageError('missing --role');
      const { account, user } = localUser(deps, flags.username);
      const { assignRole } = await import('./core/roles/assign.js');
      const target = manage.resolveRoleName(deps, flags.role);
      assignRole(deps, null, user, target);
      console.log(`${account.username} is now ${target.builtIn ?? target.name}`);
      return 0;
    }
    default:
      throw new UsageError(`unknown role command: ${sub ?? '(none)'}`);
  }
}

/**
 * Runs `hearth accounts …` or `hearth role …` (`argv` starts with the command's name); resolves
 * to the exit code: 0, 1 when refused (the reason printed), 2 for a usage mistake.
 */
export function moderationCommand(argv: string[]): Promise<number> {
  const isRole = argv[0] === 'role';
  return runSubcommand(argv.slice(1), {
    usage: isRole ? ROLE_USAGE : ACCOUNTS_USAGE,
    options: OPTIONS,
    // The events are recorded for the running server, which emits them to its listeners.
    events: (db) => new CommandEvents(db),
    run: (sub, [positional], flags, deps) => (isRole ? role(sub, flags, deps) : accounts(sub, flags.username ?? positional, deps)),
  });
}
