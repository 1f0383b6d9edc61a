import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { useApi } from '../../api/client';
import { beginSignIn, revokeToken } from '../../api/oauth';
import { removeAccount, storedAccounts, switchAccount } from '../../api/session';

/** Who is signed in, and switching to another signed-in family account, adding one, signing out. */
export function AccountMenu(): JSX.Element {
  const api = useApi();
  const [open, setOpen] = useState(false);
  const others = storedAccounts().filter((a) => a.id !== api.account.id);
  return (
    <div class="account-menu">
      <button type="button" aria-expanded={open} aria-controls="account-menu-list" onClick={() => setOpen(!open)}>
        <img class="avatar" src={api.account.avatar} alt="" width={28} height={28} />
        <span>@{api.account.acct}</span>
        <span class="visually-hidden">: account menu</span>
      </button>
      {open && (
        <ul id="account-menu-list" class="menu">
          {others.map((a) => (
            <li key={a.id}>
              <button type="button" onClick={() => switchAccount(a.id)}>
                Switch to @{a.acct}
              </button>
            </li>
          ))}
          <li>
            <button type="button" onClick={() => void beginSignIn({ forceLogin: true })}>
              Add another account
            </button>
          </li>
          <li>
            <button
              type="button"
              onClick={async () => {
                await revokeToken(api.account.accessToken);
                removeAccount(api.account.id);
                location.assign('/');
              }}
            >
              Sign out
            </button>
          </li>
        </ul>
      )}
    </div>
  );
}
