/**
 * The accounts signed in on this device: a list kept in localStorage (each with its own access
 * token from the instance's OAuth flow), and which one is active. Family members can keep two or
 * more accounts signed in and switch between them.
 */

/** One signed-in account on this device. */
export interface StoredAccount {
  /** The account id on the instance. */
  id: string;
  /** username (local accounts have no domain part). */
  acct: string;
  displayName: string;
  avatar: string;
  accessToken: string;
  /** The scopes the token was granted. */
  scope: string;
}

const ACCOUNTS_KEY = 'hearth.accounts';
const ACTIVE_KEY = 'hearth.active';

type Listener = () => void;
const listeners = new Set<Listener>();

function read(): StoredAccount[] {
  try {
    const raw = localStorage.getItem(ACCOUNTS_KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : [];
    return Array.isArray(parsed) ? (parsed as StoredAccount[]).filter((a) => typeof a?.accessToken === 'string') : [];
  } catch {
    return [];
  }
}

function write(accounts: StoredAccount[], activeId: string | null): void {
  localStorage.setItem(ACCOUNTS_KEY, JSON.stringify(accounts));
  if (activeId) localStorage.setItem(ACTIVE_KEY, activeId);
  else localStorage.removeItem(ACTIVE_KEY);
  for (const l of listeners) l();
}

/** Every account signed in on this device. */
export function storedAccounts(): StoredAccount[] {
  return read();
}

/** The account the app acts as, or null when nobody is signed in. */
export function activeAccount(): StoredAccount | null {
  const accounts = read();
  const id = localStorage.getItem(ACTIVE_KEY);
  return accounts.find((a) => a.id === id) ?? accounts[0] ?? null;
}

/** Adds (or refreshes) an account after signing in and makes it the active one. */
export function addAccount(account: StoredAccount): void {
  const accounts = read().filter((a) => a.id !== account.id);
  accounts.push(account);
  write(accounts, account.id);
}

/** Makes another signed-in account the active one. */
export function switchAccount(id: string): void {
  const accounts = read();
  if (!accounts.some((a) => a.id === id)) return;
  write(accounts, id);
}

/** Forgets an account on this device (after its token was revoked); the next one becomes active. */
export function removeAccount(id: string): void {
  const accounts = read().filter((a) => a.id !== id);
  write(accounts, accounts[0]?.id ?? null);
}

/** Updates the display fields kept for an account (after a profile edit). */
export function refreshAccount(id: string, fields: Pick<StoredAccount, 'acct' | 'displayName' | 'avatar'>): void {
  const accounts = read();
  const found = accounts.find((a) => a.id === id);
  if (!found) return;
  Object.assign(found, fields);
  write(accounts, localStorage.getItem(ACTIVE_KEY));
}

/** Calls `listener` whenever the signed-in accounts or the active one change; returns the unsubscribe. */
export function onAccountsChange(listener: Listener): () => void {
  listeners.add(listener);
  const storage = (e: StorageEvent) => {
    if (e.key === ACCOUNTS_KEY || e.key === ACTIVE_KEY) listener();
  };
  window.addEventListener('storage', storage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', storage);
  };
}
