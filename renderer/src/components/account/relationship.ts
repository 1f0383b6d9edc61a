import { useQuery, useQueryClient } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import { useCallback } from 'preact/hooks';
import { useApi, type Api } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { toast } from '../layout/toasts';

type Relationship = mastodon.v1.Relationship;

/** The query key of the relationship with one account (the relationship cache). */
export function relationshipKey(id: string): readonly unknown[] {
  return ['relationship', id];
}

const batches = new WeakMap<Api, { ids: Set<string>; answer: Promise<Map<string, Relationship>> }>();

/**
 * Fetches relationships in batches: every row of a list of 40 accounts asks for its own, and
 * they go out as one `/api/v1/accounts/relationships` request.
 */
function fetchRelationship(api: Api, id: string): Promise<Relationship> {
  let batch = batches.get(api);
  if (!batch) {
    const ids = new Set<string>();
    const answer = new Promise((resolve) => setTimeout(resolve, 0)).then(async () => {
      batches.delete(api);
      const rels = await api.rest.v1.accounts.relationships.fetch({ id: [...ids] });
      return new Map(rels.map((r) => [r.id, r]));
    });
    batch = { ids, answer };
    batches.set(api, batch);
  }
  batch.ids.add(id);
  return batch.answer.then((found) => {
    const rel = found.get(id);
    if (!rel) throw new Error('The instance did not say how you relate to this account.');
    return rel;
  });
}

/** The signed-in person's relationship with account `id` (following, muting, note…). */
export function useRelationship(id: string | undefined, enabled = true): { data: Relationship | undefined; error: unknown; isPending: boolean; refetch: () => void } {
  const api = useApi();
  const query = useQuery({
    queryKey: relationshipKey(id ?? ''),
    queryFn: () => fetchRelationship(api, id ?? ''),
    enabled: enabled && !!id,
  });
  return { data: query.data, error: query.error, isPending: query.isPending, refetch: () => void query.refetch() };
}

/**
 * Changes a relationship optimistically: the cache shows `guess` at once, the request goes out,
 * its answer replaces the guess; on failure the relationship is put back and a toast offers a retry.
 * Resolves to whether the request succeeded.
 */
export function useRelationshipAction(): (id: string, guess: (r: Relationship) => Relationship, request: (api: Api) => Promise<Relationship | void>) => Promise<boolean> {
  const api = useApi();
  const qc = useQueryClient();
  const run = useCallback(
    async (id: string, guess: (r: Relationship) => Relationship, request: (api: Api) => Promise<Relationship | void>): Promise<boolean> => {
      const key = relationshipKey(id);
      const before = qc.getQueryData<Relationship>(key);
      if (before) qc.setQueryData<Relationship>(key, guess(before));
      try {
        const answer = await request(api);
        if (answer && answer.id === id) qc.setQueryData<Relationship>(key, answer);
        else void qc.invalidateQueries({ queryKey: key });
        return true;
      } catch (error) {
        if (before) qc.setQueryData<Relationship>(key, before);
        toast(describeError(error), { retry: () => void run(id, guess, request) });
        return false;
      }
    },
    [api, qc],
  );
  return run;
}
