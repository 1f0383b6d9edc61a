import { QueryClient, type QueryClient as QC } from '@tanstack/preact-query';
import type { mastodon } from 'masto';

/** The app's query cache: server state, refetched when the window regains focus or the network returns. */
export function createQueryClient(): QC {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 30_000, retry: 1, refetchOnWindowFocus: false },
      mutations: { retry: 0 },
    },
  });
}

type Status = mastodon.v1.Status;

function isStatus(value: unknown): value is Status {
  return typeof value === 'object' && value !== null && 'uri' in value && 'account' in value && 'id' in value && 'visibility' in value;
}

/**
 * Walks any cached value (lists, infinite pages, threads, notifications, groups) and returns a
 * copy with every copy of status `id` (also as a reblog or a quote) passed through `patch`.
 * Unchanged branches are returned as they were, so unaffected components do not re-render.
 */
function patchDeep(value: unknown, id: string, patch: (s: Status) => Status, depth = 0): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const next = patchDeep(v, id, patch, depth + 1);
      if (next !== v) changed = true;
      return next;
    });
    return changed ? out : value;
  }
  let result = value as Record<string, unknown>;
  if (isStatus(value) && value.id === id) result = patch(value) as unknown as Record<string, unknown>;
  let changed = result !== value;
  const copy: Record<string, unknown> = { ...result };
  for (const [key, child] of Object.entries(result)) {
    if (key === 'account' || key === 'mediaAttachments' || key === 'emojis') continue;
    if (child && typeof child === 'object') {
      const next = patchDeep(child, id, patch, depth + 1);
      if (next !== child) {
        copy[key] = next;
        changed = true;
      }
    }
  }
  return changed ? copy : value;
}

/** Applies `patch` to status `id` wherever the cache holds it. */
export function updateStatusEverywhere(qc: QC, id: string, patch: (s: Status) => Status): void {
  for (const query of qc.getQueryCache().getAll()) {
    const data = query.state.data;
    if (data === undefined) continue;
    const next = patchDeep(data, id, patch);
    if (next !== data) qc.setQueryData(query.queryKey, next);
  }
}

/** Removes status `id` (a deletion) from every cached list. */
export function removeStatusEverywhere(qc: QC, id: string): void {
  const strip = (value: unknown, depth = 0): unknown => {
    if (depth > 6 || value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) {
      const kept = value.filter((v) => !(isStatus(v) && (v.id === id || v.reblog?.id === id)));
      const mapped = kept.map((v) => strip(v, depth + 1));
      return kept.length === value.length && mapped.every((v, i) => v === kept[i]) ? value : mapped;
    }
    let changed = false;
    const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    for (const [key, child] of Object.entries(copy)) {
      if (child && typeof child === 'object' && key !== 'account') {
        const next = strip(child, depth + 1);
        if (next !== child) {
          copy[key] = next;
          changed = true;
        }
      }
    }
    return changed ? copy : value;
  };
  for (const query of qc.getQueryCache().getAll()) {
    const data = query.state.data;
    if (data === undefined) continue;
    const next = strip(data);
    if (next !== data) qc.setQueryData(query.queryKey, next);
  }
}
