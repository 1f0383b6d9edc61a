import {
  accountIdsWithCustomRole,
  deleteCustomRole,
  findCustomRole,
  findCustomRoleByName,
  insertCustomRole,
  listCustomRoles,
  updateCustomRole,
  type CustomRoleRow,
} from '../../db/repos/roles.js';
import type { UserRole } from '../../db/repos/users.js';
import { now } from '../../util/clock.js';
import { ApiError, forbidden, notFound, unprocessable } from '../../util/errors.js';
import { ALL_PERMISSIONS, BUILT_IN_ROLES, builtInRoleById, OWNER_POSITION, PERMISSION, roleOutranks, type RoleDefinition } from '../../util/permissions.js';
import type { Deps } from '../deps.js';
import { customRoleDefinition, requirePermission, roleOf, type RoleHolder } from './access.js';

/**
 * Roles as the owner manages them: the four built-in roles, which cannot change, and custom roles
 * with Mastodon's permission flags. Changes come from the command line (`actor` null: the person
 * at the machine, trusted) or from a staff member holding "Manage Roles" (an `actor`), who may only
 * make or change roles below their own, with permissions they hold themselves, as Mastodon's
 * UserRole validations have it.
 */

/** The fields of a new or changed custom role; those left out keep their value (or default). */
export interface RoleInput {
  name?: string | undefined;
  color?: string | undefined;
  permissions?: number | undefined;
  highlighted?: boolean | undefined;
  position?: number | undefined;
}

const NAME_MAX = 255;
const COLOR = /^#(?:[0-9a-f]{3}){1,2}$/i;

/** Every role, highest first: the owner, custom and built-in roles by position, the plain user last. */
export function listRoles(deps: Deps): RoleDefinition[] {
  const roles = [...Object.values(BUILT_IN_ROLES), ...listCustomRoles(deps.db).map(customRoleDefinition)];
  return roles.sort((a, b) => b.position - a.position || Number(a.id) - Number(b.id));
}

/** A role by id (built-in ids too), or 404. */
export function findRole(deps: Deps, id: string): RoleDefinition {
  const builtIn = builtInRoleById(id);
  if (builtIn) return builtIn;
  const row = /^\d+$/.test(id) ? findCustomRole(deps.db, id) : undefined;
  if (!row) throw notFound();
  return customRoleDefinition(row);
}

/**
 * A role named on the command line: a built-in name (`owner`, `admin`, `moderator`, `user`), a
 * role id, or a custom role's name. 404 when none matches.
 */
export function resolveRoleName(deps: Deps, ref: string): RoleDefinition {
  const key = ref.trim();
  if (key in BUILT_IN_ROLES) return BUILT_IN_ROLES[key as UserRole];
  if (/^-?\d+$/.test(key)) return findRole(deps, key);
  const row = findCustomRoleByName(deps.db, key);
  if (!row) throw new ApiError(404, `no such role: ${ref}`);
  return customRoleDefinition(row);
}

/** One problem with a role's fields: the field, Mastodon's error code and its text. */
interface Problem {
  field: 'name' | 'color' | 'permissions' | 'position';
  error: 'ERR_BLANK' | 'ERR_TOO_LONG' | 'ERR_TAKEN' | 'ERR_INVALID';
  description: string;
}

const problem = (field: Problem['field'], error: Problem['error'], description: string): Problem => ({ field, error, description });

/** Every problem with a role's fields, Mastodon's validation texts; empty when fine. */
function problems(deps: Deps, values: Required<Omit<RoleInput, 'highlighted'>>, selfId: string | null): Problem[] {
  const out: Problem[] = [];
  const name = values.name.trim();
  if (!name) out.push(problem('name', 'ERR_BLANK', "can't be blank"));
  else if (name.length > NAME_MAX) out.push(problem('name', 'ERR_TOO_LONG', `is too long (maximum is ${NAME_MAX} characters)`));
  else if (name.toLowerCase() in BUILT_IN_ROLES || Object.values(BUILT_IN_ROLES).some((r) => r.name.toLowerCase() === name.toLowerCase())) {
    out.push(problem('name', 'ERR_TAKEN', 'has already been taken'));
  } else {
    const other = findCustomRoleByName(deps.db, name);
    if (other && other.id !== selfId) out.push(problem('name', 'ERR_TAKEN', 'has already been taken'));
  }
  if (values.color !== '' && !COLOR.test(values.color)) out.push(problem('color', 'ERR_INVALID', 'is invalid'));
  if (!Number.isSafeInteger(values.permissions) || values.permissions < 0 || (values.permissions & ~ALL_PERMISSIONS) !== 0) {
    out.push(problem('permissions', 'ERR_INVALID', 'is invalid'));
  }
  if (!Number.isSafeInteger(values.position) || values.position < 0 || values.position >= OWNER_POSITION) {
    out.push(problem('position', 'ERR_INVALID', `must be between 0 and ${OWNER_POSITION - 1}`));
  }
  return out;
}

/** 422 with every problem, in the message and in `details` as Mastodon's validation errors carry them. */
function fail(list: Problem[]): never {
  const details: Record<string, { error: string; description: string }[]> = {};
  for (const p of list) (details[p.field] ??= []).push({ error: p.error, description: p.description });
  const text = list.map((p) => `${p.field.charAt(0).toUpperCase()}${p.field.slice(1)} ${p.description}`).join(', ');
  throw unprocessable(`Validation failed: ${text}`, { details });
}

/**
 * What a staff member may not give a role: permissions they lack, a position at or above their
 * own (the owner may give any position below theirs). Mastodon's texts.
 */
function elevation(actorRole: RoleDefinition, values: { permissions: number; position: number }): Problem[] {
  const out: Problem[] = [];
  if ((actorRole.permissions & PERMISSION.administrator) === 0 && (values.permissions & ~actorRole.permissions) !== 0) {
    out.push(problem('permissions', 'ERR_INVALID', 'cannot include permissions your current role does not possess'));
  }
  if (actorRole.builtIn !== 'owner' && values.position >= actorRole.position) out.push(problem('position', 'ERR_INVALID', 'cannot be higher than your current role'));
  return out;
}

/** Creates a custom role (see the module comment for who may); returns it. */
export function createRole(deps: Deps, actor: RoleHolder | null, input: RoleInput): RoleDefinition {
  if (actor) requirePermission(deps, actor, PERMISSION.manageRoles);
  const values = { name: input.name ?? '', color: input.color ?? '', permissions: input.permissions ?? 0, position: input.position ?? 0 };
  const list = problems(deps, values, null);
  if (actor) list.push(...elevation(roleOf(deps, actor), values));
  if (list.length > 0) fail(list);
  const at = now();
  const row: Omit<CustomRoleRow, 'id'> = {
    name: values.name.trim(),
    color: values.color,
    permissions: values.permissions,
    highlighted: input.highlighted ? 1 : 0,
    position: values.position,
    created_at: at,
    updated_at: at,
  };
  const id = deps.db.transaction(() => insertCustomRole(deps.db, row));
  return customRoleDefinition({ ...row, id });
}

/** A custom role by id for a change, or 404; built-in roles cannot change (403). */
function customRoleOr404(deps: Deps, id: string): CustomRoleRow {
  if (builtInRoleById(id)) throw forbidden();
  const row = /^\d+$/.test(id) ? findCustomRole(deps.db, id) : undefined;
  if (!row) throw notFound();
  return row;
}

/**
 * Changes a custom role. A staff member may change a role below their own, or their own role's
 * name, colour and badge but not its permissions or position (Mastodon's "own role" rule).
 */
export function updateRole(deps: Deps, actor: RoleHolder | null, id: string, input: RoleInput): RoleDefinition {
  if (actor) requirePermission(deps, actor, PERMISSION.manageRoles);
  const row = customRoleOr404(deps, id);
  const target = customRoleDefinition(row);
  const actorRole = actor ? roleOf(deps, actor) : null;
  const own = actorRole !== null && actorRole.builtIn === null && actorRole.id === target.id;
  if (actorRole && !own && !roleOutranks(actorRole, target)) throw forbidden();
  const values = {
    name: input.name ?? row.name,
    color: input.color ?? row.color,
    permissions: input.permissions ?? row.permissions,
    position: input.position ?? row.position,
  };
  const list = problems(deps, values, row.id);
  if (actorRole) {
    if (own && values.permissions !== row.permissions) list.push(problem('permissions', 'ERR_INVALID', 'cannot be changed with your current role'));
    if (own && values.position !== row.position) list.push(problem('position', 'ERR_INVALID', 'cannot be changed with your current role'));
    if (!own) list.push(...elevation(actorRole, values));
  }
  if (list.length > 0) fail(list);
  const changes = {
    name: values.name.trim(),
    color: values.color,
    permissions: values.permissions,
    position: values.position,
    highlighted: input.highlighted === undefined ? row.highlighted : input.highlighted ? 1 : 0,
    updated_at: now(),
  };
  deps.db.transaction(() => updateCustomRole(deps.db, row.id, changes));
  // Everyone holding the role shows its new badge.
  emitRoleHolders(deps, row.id);
  return customRoleDefinition({ ...row, ...changes });
}

/** Deletes a custom role below the actor's own (never their own); its users become plain users. */
export function deleteRole(deps: Deps, actor: RoleHolder | null, id: string): void {
  if (actor) requirePermission(deps, actor, PERMISSION.manageRoles);
  const row = customRoleOr404(deps, id);
  if (actor) {
    const actorRole = roleOf(deps, actor);
    if (!roleOutranks(actorRole, customRoleDefinition(row)) || (actorRole.builtIn === null && actorRole.id === row.id)) throw forbidden();
  }
  const holders = accountIdsWithCustomRole(deps.db, row.id);
  deps.db.transaction(() => deleteCustomRole(deps.db, row.id));
  for (const accountId of holders) deps.events.emit('account.updated', { accountId });
}

function emitRoleHolders(deps: Deps, roleId: string): void {
  for (const accountId of accountIdsWithCustomRole(deps.db, roleId)) deps.events.emit('account.updated', { accountId });
}
