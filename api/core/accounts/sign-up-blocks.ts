import { ApiError, forbidden } from '../../util/errors.js';
import { judgeSignUpEmail } from '../admin/email-blocks.js';
import { ipBlockSeverities } from '../admin/ip-blocks.js';
import type { Deps } from '../deps.js';

/** What the moderation rules say of a sign-up that may go ahead. */
export interface SignUpVerdict {
  /** An IP block makes the new user wait for approval, whatever the registrations mode or invite. */
  requiresApproval: boolean;
}

/**
 * Applies the instance's moderation rules to a sign-up (`POST /api/v1/accounts`), as Mastodon
 * does, before anything is written:
 * - an IP block `sign_up_block` covering the address refuses it (403 "This action is not allowed",
 *   as a closed registration is refused);
 * - unless a valid invite is given, an address whose domain (or a parent domain) is blocked is
 *   refused with 422 "E-mail address uses a disallowed e-mail provider" (ERR_BLOCKED), and one a
 *   canonical e-mail block matches with 422 "has already been taken" (ERR_TAKEN), as Mastodon
 *   words them (it does not tell that the address is blocked);
 * - an IP block `sign_up_requires_approval` makes the new user wait for approval.
 */
export function checkSignUpBlocks(deps: Deps, signUp: { email: string | undefined; ip: string | null; invited: boolean }): SignUpVerdict {
  const severities = ipBlockSeverities(deps, signUp.ip);
  if (severities.has('sign_up_block') || severities.has('no_access')) throw forbidden();
  const email = signUp.email?.trim() ?? '';
  if (!signUp.invited && email !== '') {
    const verdict = judgeSignUpEmail(deps, email, signUp.ip);
    const failures: { error: string; description: string }[] = [];
    if (verdict.domainBlocked) failures.push({ error: 'ERR_BLOCKED', description: 'uses a disallowed e-mail provider' });
    if (verdict.canonicalBlocked) failures.push({ error: 'ERR_TAKEN', description: 'has already been taken' });
    if (failures.length > 0) {
      const message = failures.map((f) => `E-mail address ${f.description}`).join(', ');
      throw new ApiError(422, `Validation failed: ${message}`, { extra: { details: { email: failures } } });
    }
  }
  return { requiresApproval: severities.has('sign_up_requires_approval') };
}
