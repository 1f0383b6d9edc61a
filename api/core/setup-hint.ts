import { countUsers } from '../db/repos/users.js';
import type { Deps } from './deps.js';
import { setupToken } from './setup.js';

/**
 * What `hearth serve` prints on a first run: where to create the owner account, in the browser
 * (the /setup page, with the one-time token needed when the page is not opened from this machine)
 * or with the CLI. Nothing once an owner exists.
 */
export function setupHint(deps: Deps, localUrl: string): string | null {
  if (countUsers(deps.db, 'owner') > 0) return null;
  return [
    'No owner account yet. Create it in the browser:',
    `  ${localUrl}/setup?token=${setupToken(deps)}`,
    'or with: hearth account create --role owner --username NAME --password PASSWORD',
  ].join('\n');
}
