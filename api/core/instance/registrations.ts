import { updateConfigFile, type RegistrationMode } from '../../config.js';
import { setSetting } from '../../db/repos/settings.js';
import { now } from '../../util/clock.js';
import { unprocessable } from '../../util/errors.js';
import type { Deps } from '../deps.js';

const MODES: readonly RegistrationMode[] = ['open', 'approval', 'closed'];

/**
 * Changes how people may join (open, approval, closed). The mode lives in the configuration,
 * so it is written into the config file (kept across restarts; other keys untouched) and applied
 * to the running configuration at once, which every sign-up and the instance entity read.
 * 422 for anything but the three modes.
 */
export function setRegistrationMode(deps: Deps, mode: string): RegistrationMode {
  const chosen = MODES.find((m) => m === mode);
  if (!chosen) throw unprocessable('Registrations must be open, approval or closed');
  updateConfigFile(deps.config.configFile, { registrations: chosen });
  deps.config.registrations = chosen;
  // A row written, so caches of the instance entity (keyed on database changes) reload now.
  setSetting(deps.db, 'hearth.registrations_changed_at', now());
  return chosen;
}
