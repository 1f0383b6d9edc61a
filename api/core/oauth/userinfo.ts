import type { AccountRow } from '../../db/repos/accounts.js';
import type { Deps } from '../deps.js';

/** The OIDC claims `/oauth/userinfo` answers, as Mastodon documents them. */
export interface UserInfo {
  iss: string;
  sub: string;
  name: string;
  preferred_username: string;
  profile: string;
  picture: string;
}

/** The issuer identifier: the instance's base URL with a trailing slash, as Mastodon writes it. */
export function issuer(deps: Deps): string {
  return `${deps.uris.base}/`;
}

/** Where an account's avatar is served, or Mastodon's default picture when it has none. */
export function avatarUrl(deps: Deps, account: AccountRow): string {
  if (account.avatar_file) return deps.uris.fileUrl(account.avatar_file);
  if (account.avatar_remote_url) return account.avatar_remote_url;
  return deps.uris.url('/avatars/original/missing.png');
}

/** The claims about a local account: `sub` is its ActivityPub actor URI. */
export function userInfo(deps: Deps, account: AccountRow): UserInfo {
  return {
    iss: issuer(deps),
    sub: account.uri ?? deps.uris.accountUri(account.username),
    name: account.display_name || account.username,
    preferred_username: account.username,
    profile: account.url ?? deps.uris.accountUrl(account.username),
    picture: avatarUrl(deps, account),
  };
}
