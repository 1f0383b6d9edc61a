import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import { useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { toast } from '../../components/layout/toasts';

/*
 * What the staff screens share: the admin API's entities (snake_case, as the API gives them), the
 * permission bits of roles, a list query and a mutation that changes a list (optimistic when it
 * can say how, reverted with a toast and Retry when the instance refuses).
 */

/** Role permission bits (Mastodon's UserRole::FLAGS). */
export const PERMISSION = {
  administrator: 0x1,
  manageReports: 0x10,
  manageFederation: 0x20,
  manageSettings: 0x40,
  manageUsers: 0x400,
  manageRules: 0x1000,
  manageAnnouncements: 0x2000,
  manageCustomEmojis: 0x4000,
  manageWebhooks: 0x8000,
  manageRoles: 0x20000,
} as const;

/** Whether a role's `permissions` (a decimal string) grant `flag` (administrators have all). */
export function allows(permissions: string | undefined, flag: number): boolean {
  const granted = Number(permissions ?? 0);
  return (granted & PERMISSION.administrator) !== 0 || (granted & flag) === flag;
}

export interface AdminEmoji {
  shortcode: string;
  url: string;
  static_url: string;
}

/** An account as the admin API nests it. */
export interface AdminAccount {
  id: string;
  username: string;
  domain: string | null;
  email: string | null;
  created_at: string;
  invite_request: string | null;
  role: { id: string; name: string } | null;
  approved: boolean | null;
  disabled: boolean | null;
  silenced: boolean;
  suspended: boolean;
  sensitized: boolean;
  account: { id: string; acct: string; display_name: string; emojis: AdminEmoji[] };
}

/** `@user` or `@user@domain` of an admin account. */
export function handle(a: AdminAccount): string {
  return `@${a.account.acct}`;
}

/** Custom emojis in the shape `Emojify` takes. */
export function emojis(list: AdminEmoji[] | undefined): { shortcode: string; url: string; staticUrl: string }[] {
  return (list ?? []).map((e) => ({ shortcode: e.shortcode, url: e.url, staticUrl: e.static_url }));
}

/** A list from the admin API. */
export function useAdminList<T>(key: string, path: string) {
  const api = useApi();
  return useQuery({ queryKey: ['admin', key, path], queryFn: () => api.fetchJson<T[]>(path) });
}

/**
 * A change to what a list shows: `optimistic` edits the cached list at once (restored on failure);
 * every list under `['admin', key]` is refetched afterwards. `what` names the change in the toast.
 */
export function useAdminChange<T, V>(key: string, run: (vars: V) => Promise<unknown>, what: (vars: V) => string, optimistic?: (list: T[], vars: V) => T[]) {
  const client = useQueryClient();
  const mutation = useMutation({
    mutationFn: run,
    onMutate: async (vars: V) => {
      if (!optimistic) return { before: [] as [readonly unknown[], unknown][] };
      await client.cancelQueries({ queryKey: ['admin', key] });
      const before = client.getQueriesData<T[]>({ queryKey: ['admin', key] });
      client.setQueriesData<T[]>({ queryKey: ['admin', key] }, (old) => (old ? optimistic(old, vars) : old));
      return { before };
    },
    onError: (error, vars, context) => {
      for (const [k, v] of context?.before ?? []) client.setQueryData(k, v);
      toast(`${what(vars)} failed: ${describeError(error)}`, { retry: () => mutation.mutate(vars) });
    },
    onSettled: () => client.invalidateQueries({ queryKey: ['admin', key] }),
  });
  return mutation;
}

/** A JSON request to the admin API. */
export function useAdminFetch(): <T>(path: string, method?: string, body?: unknown) => Promise<T> {
  const api = useApi();
  return (path, method = 'GET', body) => api.fetchJson(path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}
