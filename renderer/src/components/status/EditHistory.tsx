import { useQuery } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useApi } from '../../api/client';
import { describeError } from '../../api/errors';
import { Dialog } from '../dialog/Dialog';
import { Content, Emojify } from '../html/Content';
import { RelativeTime } from '../time/RelativeTime';

/** A dialog listing every version of an edited post, newest first (`/api/v1/statuses/:id/history`). */
export function EditHistory(props: { status: mastodon.v1.Status; onClose: () => void }): JSX.Element {
  const api = useApi();
  const query = useQuery({ queryKey: ['history', props.status.id], queryFn: async (): Promise<mastodon.v1.StatusEdit[]> => await api.rest.v1.statuses.$select(props.status.id).history.list() });
  const versions = [...(query.data ?? [])].reverse();
  return (
    <Dialog title="Edit history" onClose={props.onClose}>
      {query.isPending && <p role="status">Loading…</p>}
      {query.isError && (
        <div class="error" role="alert">
          <p>{describeError(query.error)}</p>
          <button type="button" onClick={() => void query.refetch()}>
            Try again
          </button>
        </div>
      )}
      <ol class="edit-history">
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
