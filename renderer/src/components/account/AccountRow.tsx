import type { mastodon } from 'masto';
import type { ComponentChildren, JSX } from 'preact';
import { useApi } from '../../instance/client';
import { profilePath } from '../status/Status';
import { Emojify } from '../html/Content';
import { Avatar } from './Avatar';
import { FollowButton } from './FollowButton';
import './account.css';

type Account = mastodon.v1.Account;

/**
 * One account in a list (followers, search results, suggestions, requests): avatar, name with
 * emojis and handle linking to the profile, and the actions given (a Follow button by default).
 */
export function AccountRow(props: { account: Account; children?: ComponentChildren; noFollow?: boolean }): JSX.Element {
  const a = props.account;
  const self = useApi().account.id === a.id;
  const name = a.displayName || a.username;
  return (
    <li class="account-row">
      <a href={profilePath(a)} class="account-row-link">
        <Avatar account={a} size={40} />
        <span class="account-row-names">
          <span class="display-name">
            <Emojify text={name} emojis={a.emojis} />
          </span>
          <span class="acct">@{a.acct}</span>
        </span>
      </a>
      <span class="account-row-actions">
        {props.children}
        {!props.noFollow && !self && <FollowButton account={a} />}
      </span>
    </li>
  );
}
