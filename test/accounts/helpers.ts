import { createApplication } from '../../api/core/oauth/apps.js';
import { issueToken } from '../../api/core/oauth/tokens.js';
import { insertAccount, type AccountRow } from '../../api/db/repos/accounts.js';
import { newId } from '../../api/util/ids.js';
import type { TestInstance } from '../helpers/instance.js';

/** Inserts a remote account directly (federation comes later), with sensible defaults. */
export function insertRemoteAccount(inst: TestInstance, username: string, domain: string, extra: Partial<AccountRow> = {}): string {
  const id = newId();
  const asciiHost = new URL(`https://${domain}`).host;
  insertAccount(inst.deps.db, {
    id,
    username,
    domain,
    uri: `https://${asciiHost}/users/${username}`,
    url: `https://${asciiHost}/@${username}`,
    created_at: Date.UTC(2021, 4, 6, 13, 14, 15),
    updated_at: Date.now(),
    ...extra,
  });
  return id;
}

/** An application and an app-only token for it (client credentials), as sign-up needs. */
export function appToken(inst: TestInstance, scopes = 'read write follow push'): { token: string; appId: string } {
  const { app } = createApplication(inst.deps, { name: 'Sign-up test', redirectUris: 'urn:ietf:wg:oauth:2.0:oob', scopes, website: undefined });
  const issued = issueToken(inst.deps, { applicationId: app.id, userId: null, scopes: scopes.split(' ') });
  return { token: issued.accessToken, appId: app.id };
}
