import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { useApi } from '../../instance/client';

/** The signed-in account as `verify_credentials` gives it (Mastodon's snake_case CredentialAccount). */
export interface CredentialAccount {
  id: string;
  username: string;
  acct: string;
  display_name: string;
  avatar: string;
  avatar_static: string;
  header: string;
  header_static: string;
  avatar_description?: string;
  header_description?: string;
  locked: boolean;
  bot: boolean;
  discoverable: boolean | null;
  indexable?: boolean;
  hide_collections?: boolean | null;
  source: { note: string; privacy: string; sensitive: boolean; language: string | null; fields: { name: string; value: string }[] };
  role?: { id: string; name: string; permissions: string };
}

export const CREDENTIALS_KEY = ['settings', 'verify_credentials'];

/** The signed-in account with its `source` (what the settings forms start from). */
export function useCredentials() {
  const api = useApi();
  return useQuery({ queryKey: CREDENTIALS_KEY, queryFn: () => api.fetchJson<CredentialAccount>('/api/v1/accounts/verify_credentials') });
}

/** Saves `update_credentials` from a form body and puts the answer in the cache. */
export function useUpdateCredentials(): (body: FormData) => Promise<CredentialAccount> {
  const api = useApi();
  const client = useQueryClient();
  return async (body) => {
    const account = await api.fetchJson<CredentialAccount>('/api/v1/accounts/update_credentials', { method: 'PATCH', body });
    client.setQueryData(CREDENTIALS_KEY, account);
    return account;
  };
}
