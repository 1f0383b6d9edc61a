import { forbidden } from '../../util/errors.js';
import type { Deps } from '../deps.js';
import { loadVisibleStatus } from '../interactions/target.js';

/**
 * `POST /api/v1/statuses/:id/translate`, as Mastodon answers it on an instance without a
 * translation service (`configuration.translation.enabled` is false in the instance entity): a
 * status the viewer may not see (or that does not exist) is 404, any other is 403, since nothing
 * can translate it.
 */
export function translateStatus(deps: Deps, statusId: string, viewerId: string | null): never {
  loadVisibleStatus(deps, statusId, viewerId);
  throw forbidden();
}
