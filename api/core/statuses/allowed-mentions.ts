import { ApiError } from '../../util/errors.js';
import { presentAccounts } from '../accounts/views.js';
import type { Deps } from '../deps.js';
import type { NewStatusParams } from './create.js';
import { processStatusText } from './text.js';

/**
 * `allowed_mentions` of `POST /api/v1/statuses` (Mastodon's safeguard against sending a post to
 * someone by mistake): when the client lists the account ids it expects the status to mention,
 * a status that would mention anyone else is refused with 422, naming those accounts in
 * `unexpected_accounts`, and nothing is posted. Reads the text exactly as posting will (a status
 * with only a content warning posts it as its text).
 */
export function checkAllowedMentions(deps: Deps, params: NewStatusParams, allowed: readonly string[]): void {
  const text = (params.text ?? '').trim() === '' && (params.spoiler_text ?? '').trim() !== '' ? (params.spoiler_text ?? '') : (params.text ?? '');
  const expected = new Set(allowed);
  const unexpected = processStatusText(deps, text)
    .mentioned.map((a) => a.id)
    .filter((id) => !expected.has(id));
  if (unexpected.length === 0) return;
  throw new ApiError(422, 'Post would be sent to unexpected accounts', { extra: { unexpected_accounts: presentAccounts(deps, unexpected) } });
}
