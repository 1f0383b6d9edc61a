import { useQueryClient } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import { useCallback } from 'preact/hooks';
import { useApi, type Api } from './client';
import { updateStatusEverywhere } from './cache';
import { describeError } from './errors';
import { toast } from '../components/layout/toasts';

type Status = mastodon.v1.Status;

/**
 * Runs a status action optimistically: the cache shows its effect at once (`guess`), the request
 * goes out, the answer replaces the guess; on failure the status is put back as it was and the
 * person is told why, with a retry.
 */
export function useStatusAction(): (status: Status, guess: (s: Status) => Status, request: (api: Api) => Promise<Status | void>) => Promise<void> {
  const api = useApi();
  const qc = useQueryClient();
  return useCallback(
    async (status, guess, request) => {
      const before = status;
      updateStatusEverywhere(qc, status.id, guess);
      try {
        const answer = await request(api);
        // A reblog answers with the wrapper status; the original is inside it.
        const fresh = answer && answer.id !== status.id && answer.reblog?.id === status.id ? answer.reblog : answer;
        if (fresh && fresh.id === status.id) updateStatusEverywhere(qc, status.id, () => fresh);
      } catch (error) {
        updateStatusEverywhere(qc, status.id, () => before);
        toast(describeError(error), { retry: () => void request(api).then(() => updateStatusEverywhere(qc, status.id, guess)) });
      }
    },
    [api, qc],
  );
}
