import { useQuery } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useApi } from '../../instance/client';
import { Dialog } from '../dialog/Dialog';
import { Content, Emojify } from '../html/Content';
import { RelativeTime } from '../time/RelativeTime';
import { ErrorRetry } from '../layout/ErrorRetry';

/** A dialog listing every version of an edited post, newest first (`/api/v1/statuses/:id/history`). */
export function EditHistory(props: { statusId: string; onClose: () => void }): JSX.Element {
  const api = useApi();
  const query = useQuery({ queryKey: ['history', props.statusId], queryFn: async (): Promise<mastodon.v1.StatusEdit[]> => await api.rest.v1.statuses.$select(props.statusId).history.list() });
  const versions = [...(query.data ?? [])].reverse();
  return (
    <Dialog title="Edit history" onClose={props.onClose}>
      {query.isPending && <p role="status">Loading…</p>}
      {query.isError && (
        <ErrorRetry error={query.error} onRetry={() => query.refetch()} />
      )}
      <ol class="edit-history" aria-label="Versions">
        {versions.map((v, i) => (
          <li key={v.createdAt + i}>
            <p class="edit-when">
              {i === versions.length - 1 ? 'Original' : i === 0 ? 'Current version' : 'Edited'}, <RelativeTime iso={v.createdAt} />
            </p>
            {v.spoilerText && (
              <p class="edit-warning">
                Content warning: <Emojify text={v.spoilerText} emojis={v.emojis} />
              </p>
            )}
            <Content html={v.content} emojis={v.emojis} />
            {v.mediaAttachments.length > 0 && <p class="edit-media">{v.mediaAttachments.length === 1 ? '1 attachment' : `${v.mediaAttachments.length} attachments`}</p>}
          </li>
        ))}
      </ol>
    </Dialog>
  );
}
