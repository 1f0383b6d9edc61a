import { QueryClientProvider } from '@tanstack/preact-query';
import type { JSX } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { LocationProvider } from 'preact-iso';
import { ApiContext, createApi } from './instance/client';
import { createQueryClient } from './instance/cache';
import { activeAccount, onAccountsChange } from './instance/session';
import { Toasts } from './components/layout/toasts';
import { DesktopNavigation } from './components/layout/DesktopNavigation';
import { OfflineBanner } from './components/layout/OfflineBanner';
import { Shell } from './components/layout/Shell';
import { SignedInRoutes, SignedOutRoutes } from './routes';

/**
 * The whole app: signed out it shows the first-run, sign-in and sign-up screens; signed in, the
 * shell with the active account's clients and a query cache of its own (switching accounts
 * starts from an empty cache, so nothing of one person shows in another's screens).
 */
export function App(): JSX.Element {
  const [account, setAccount] = useState(activeAccount);
  useEffect(() => onAccountsChange(() => setAccount(activeAccount())), []);
  const api = useMemo(() => (account ? createApi(account) : null), [account?.id, account?.accessToken]);
  const queryClient = useMemo(() => createQueryClient(), [account?.id]);
  return (
    <LocationProvider>
      <OfflineBanner />
      <DesktopNavigation />
      {api ? (
        <ApiContext.Provider value={api}>
          {/* Keyed by account: switching remounts every screen, so no query or state of one person lingers. */}
          <QueryClientProvider key={account?.id} client={queryClient}>
            <Shell>
              <SignedInRoutes />
            </Shell>
          </QueryClientProvider>
        </ApiContext.Provider>
      ) : (
        <QueryClientProvider client={queryClient}>
          <SignedOutRoutes />
        </QueryClientProvider>
      )}
      <Toasts />
    </LocationProvider>
  );
}
