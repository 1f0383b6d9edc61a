import { useQuery } from '@tanstack/preact-query';
import type { JSX } from 'preact';
import { useApi } from '../../api/client';
import { describeError } from '../../api/errors';
import { Dialog } from '../dialog/Dialog';
import { Content, Emojify } from '../html/Content';
import './compose.css';

/**
 * The versions of an edited post (`/api/v1/statuses/:id/history`), newest first: when each was
 * written, its content warning and content, and how many attachments it had.
 */
export function EditHistoryDialog(props: { statusId: string; onClose: () => void }): JSX.Element {
  const api = useApi();
  const history = useQuery({ queryKey: ['status-history', props.statusId], queryFn: async () => await api.rest.v1.statuses.$select(props.statusId).history.list() });
  const versions = history.data ? [...history.data].reverse() : [];
  return (
    <Dialog title="Edit history" onClose={props.onClose} class="dialog edit-history">
      {history.isPending && (
        <p class="loading" role="status">
          Loading…
        </p>
      )}
      {history.isError && (
        <div class="error" role="alert">
          <p>{describeError(history.error)}</p>
          <button type="button" onClick={() => void history.refetch()}>
            Try again
          </button>
        </div>
      )}
      {history.data && (
        <ol class="edit-history-list" aria-label="Versions">
          {versions.map((v, i) => (
            <li key={v.createdAt + i} class="edit-history-version">
              <p class="edit-history-when">
                {i === versions.length - 1 ? 'Original, ' : 'Edited '}
                <time dateTime={v.createdAt}>{new Date(v.createdAt).toLocaleString()}</time>
              </p>
              {v.spoilerText && (
                <p class="edit-history-cw">
                  <Emojify text={v.spoilerText} emojis={v.emojis} />
                </p>
              )}
              <Content html={v.content} emojis={v.emojis} />
              {v.mediaAttachments.length > 0 && <p class="edit-history-media">{v.mediaAttachments.length === 1 ? '1 attachment' : `${v.mediaAttachments.length} attachments`}</p>}
            </li>
          ))}
        </ol>
      )}
    </Dialog>
  );
}
