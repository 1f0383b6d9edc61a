import { findInviteByCode, useInvite, type InviteRow } from '../../db/repos/invites.js';
import { findAppById } from '../../db/repos/oauth.js';
import { findUserById, updateUser } from '../../db/repos/users.js';
import { now } from '../../util/clock.js';
import { forbidden } from '../../util/errors.js';
import type { Deps } from '../deps.js';
import { parseScopes } from '../oauth/scopes.js';
import { issueToken, type IssuedToken } from '../oauth/tokens.js';
import { emitLocalUserCreated, insertLocalUser, prepareLocalUser } from './create.js';
import { checkRegistrationForm, registrationLocale } from './registration-rules.js';
import { checkSignUpBlocks } from './sign-up-blocks.js';

/** What `POST /api/v1/accounts` receives, after type checks. */
export interface RegistrationInput {
  username?: string | undefined;
  email?: string | undefined;
  password?: string | undefined;
  agreement?: boolean | undefined;
  locale?: string | undefined;
  reason?: string | undefined;
  inviteCode?: string | undefined;
}

/** Who asks: the application behind the token, and the token's scopes (fallback for token scopes). */
export interface RegistrationCaller {
  applicationId: string | null;
  scopes: readonly string[];
  ip: string | null;
}

/** The invite a code stands for, when it can still be used now. */
function usableInvite(deps: Deps, code: string | undefined): InviteRow | null {
  if (!code) return null;
  const invite = findInviteByCode(deps.db, code);
  if (!invite) return null;
  const at = now();
  if (invite.max_uses !== null && invite.uses >= invite.max_uses) return null;
  if (invite.expires_at !== null && invite.expires_at <= at) return null;
  // An invite from someone who can no longer use the server is void, as in Mastodon.
  const inviter = findUserById(deps.db, invite.user_id);
  if (!inviter || inviter.disabled === 1 || inviter.approved === 0) return null;
  return invite;
}

/**
 * Registers a new local user for an app, as `POST /api/v1/accounts` does: allowed when
 * registrations are open or need approval, or with a valid invite when they are closed (403
 * otherwise). The form is checked as a whole (422 with `details`); then the user, the invite use
 * and a token for the app are written in one transaction, once the password hash and the key pair
 * are made off the event loop. With approval, the user exists but the token is refused ("pending
 * approval") until an admin approves; an invite skips approval.
 */
export async function registerAccount(deps: Deps, caller: RegistrationCaller, input: RegistrationInput): Promise<{ token: IssuedToken; userId: string; accountId: string; approved: boolean }> {
  const mode = deps.config.registrations;
  const invite = usableInvite(deps, input.inviteCode);
  if (mode === 'closed' && !invite) throw forbidden();
  // The instance's IP and e-mail blocks (403 or 422), and whether an IP block asks for approval.
  const blocks = checkSignUpBlocks(deps, { email: input.email, ip: caller.ip, invited: invite !== null });
  const approved = (mode === 'open' || invite !== null) && !blocks.requiresApproval;
  checkRegistrationForm(deps, input, mode === 'approval' && !invite);

  // The slow part (password hash, key pair) runs off the event loop; meanwhile the name, the
  // e-mail or the invite may be taken by another sign-up, which the transaction checks again.
  const prepared = await prepareLocalUser({
    username: input.username ?? '',
    password: input.password ?? '',
    email: input.email,
    locale: registrationLocale(input.locale),
    approved,
    reason: input.reason?.trim() || null,
    inviteId: invite?.id ?? null,
    ip: caller.ip,
    // With a mailer, the address is confirmed through the link mailed after sign-up (core/mail).
    confirmed: deps.config.mail === null || !input.email,
  });
  // The token carries the scopes the app registered, as Mastodon issues it.
  const app = caller.applicationId ? findAppById(deps.db, caller.applicationId) : undefined;
  const scopes = app ? parseScopes(app.scopes) : [...caller.scopes];
  const result = deps.db.transaction(() => {
    const created = insertLocalUser(deps, prepared);
    // Staff see which app a user signed up through (Admin::Account `created_by_application_id`).
    if (caller.applicationId) updateUser(deps.db, created.userId, { created_by_application_id: caller.applicationId });
    // The last use of an invite may have gone to someone else since it was checked.
    if (invite && useInvite(deps.db, invite.id, now()) === 0) throw forbidden();
    const token = issueToken(deps, { applicationId: caller.applicationId, userId: created.userId, scopes, withRefresh: false });
    return { ...created, token };
  });
  emitLocalUserCreated(deps, prepared);
  return { ...result, approved };
}
