import type { ComponentChildren, JSX } from 'preact';
import type { mastodon } from 'masto';
import { Avatar } from './Avatar';
import { Emojify } from '../html/Content';
import { profilePath } from '../status/paths';

/** One account in a settings list: picture, name (with its emojis), handle, and the row's actions. */
export function AccountRow(props: { account: mastodon.v1.Account; children?: ComponentChildren }): JSX.Element {
  const a = props.account;
  return (
    <li>
      <Avatar account={a} size={36} />
      <a class="grow" href={profilePath(a)}>
        <strong>
          <Emojify text={a.displayName || a.username} emojis={a.emojis} />
        </strong>{' '}
        <span class="hint">@{a.acct}</span>
      </a>
      {props.children}
    </li>
  );
}

/** The name to say in buttons and messages about an account. */
export function nameOf(a: { displayName: string; acct: string }): string {
  return a.displayName || a.acct;
}
