import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useApi } from '../../instance/client';
import { beginSignIn, revokeToken } from '../../instance/oauth';
import { removeAccount, storedAccounts, switchAccount } from '../../instance/session';
import { toast } from './toasts';
import './account-menu.css';

/**
 * Who is signed in, as a menu button (its name ends in "account menu"): the accounts signed in
 * on this device with the active one marked, switching to another, adding one (the instance's
 * sign-in form even when a browser session exists), and signing out (the token is revoked at
 * the instance, then forgotten here). Escape or a click elsewhere closes it, focus goes back to
 * the button.
 */
export function AccountMenu(): JSX.Element {
  const api = useApi();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const accounts = storedAccounts();

  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) trigger.current?.focus();
  };

  useEffect(() => {
    if (!open) return;
    root.current?.querySelector<HTMLButtonElement>('.menu button:not([disabled])')?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') close(true);
    };
    const onPointer = (e: PointerEvent) => {
      if (root.current && e.target instanceof Node && !root.current.contains(e.target)) close(false);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('pointerdown', onPointer);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('pointerdown', onPointer);
    };
  }, [open]);

  const signOut = async () => {
    setBusy(true);
    await revokeToken(api.account.accessToken);
    removeAccount(api.account.id);
    location.assign('/');
  };

  return (
    <div class="account-menu" ref={root}>
      <button ref={trigger} type="button" aria-expanded={open} aria-controls="account-menu-list" aria-haspopup="true" onClick={() => setOpen(!open)}>
        <img class="avatar" src={api.account.avatar} alt="" width={28} height={28} />
        <span>@{api.account.acct}</span>
        <span class="visually-hidden">: account menu</span>
      </button>
      {open && (
        <ul id="account-menu-list" class="menu" aria-label="Accounts on this device">
          {accounts.map((a) =>
            a.id === api.account.id ? (
              <li key={a.id} class="menu-current">
                <img class="avatar" src={a.avatar} alt="" width={24} height={24} />
                <span>
                  @{a.acct} <span class="menu-note">(active)</span>
                </span>
              </li>
            ) : (
              <li key={a.id}>
                <button
                  type="button"
                  onClick={() => {
                    close(false);
                    switchAccount(a.id);
                    toast(`You are now using @${a.acct}.`, { kind: 'info' });
                  }}
                >
                  <img class="avatar" src={a.avatar} alt="" width={24} height={24} />
                  <span>Switch to @{a.acct}</span>
                </button>
              </li>
            ),
          )}
          <li>
            <button type="button" disabled={busy} onClick={() => void beginSignIn({ forceLogin: true })}>
              Add another account
            </button>
          </li>
          <li>
            <button type="button" disabled={busy} onClick={() => void signOut()}>
              Sign out<span class="visually-hidden"> @{api.account.acct}</span>
            </button>
          </li>
        </ul>
      )}
    </div>
  );
}
