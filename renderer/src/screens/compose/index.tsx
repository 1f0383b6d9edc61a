import { useQuery } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { useApi } from '../../instance/client';
import { Composer } from '../../components/compose/Composer';
import { EditHistory } from '../../components/status/EditHistory';
import type { Redraft } from '../../components/compose/state';
import type { Posted } from '../../components/compose/submit';
import { toast } from '../../components/layout/toasts';
import { StatusView, threadPath } from '../../components/status/Status';
import { ErrorRetry } from '../../components/layout/ErrorRetry';

type Status = mastodon.v1.Status;

/** The post handed over by "delete and redraft" (sessionStorage `hearth.redraft`), if any. */
function readRedraft(): Redraft | null {
  try {
    const raw = sessionStorage.getItem('hearth.redraft');
    const parsed: unknown = raw ? JSON.parse(raw) : null;
    return parsed && typeof parsed === 'object' && 'id' in parsed && 'mediaAttachments' in parsed ? (parsed as Redraft) : null;
  } catch {
    return null;
  }
}

/**
 * `/compose`: a new post, or what the query string asks for: `?in_reply_to=ID` (a reply, the post
 * shown above), `?quote=ID` (a quote), `?edit=ID` (editing one's post from its source),
 * `?redraft=1` (the deleted post from sessionStorage), `?text=` (shared text).
 */
export function ComposeScreen(_props: Record<string, unknown>): JSX.Element {
  const api = useApi();
  const { query, route } = useLocation();
  const replyId = query.in_reply_to || null;
  const quoteId = query.quote || null;
  const editId = query.edit || null;
  const redraft = useMemo(() => (query.redraft ? readRedraft() : null), [query.redraft]);
  const related = replyId ?? quoteId;
  const relatedQuery = useQuery({ queryKey: ['status', related], queryFn: () => api.rest.v1.statuses.$select(related ?? '').fetch(), enabled: related !== null });
  const edited = useQuery({
    queryKey: ['status-edit', editId],
    queryFn: async () => {
      const s = api.rest.v1.statuses.$select(editId ?? '');
      const [status, source] = await Promise.all([s.fetch(), s.source.fetch()]);
      return { status, source };
    },
    enabled: editId !== null,
    staleTime: 0,
  });

  const title = editId ? 'Edit post' : redraft ? 'Redraft post' : replyId ? 'Reply' : quoteId ? 'Quote post' : 'New post';
  const onPosted = (posted: Posted) => {
    if (posted.kind === 'scheduled') {
      toast('Your post is scheduled.', { kind: 'info' });
      route('/scheduled');
    } else if (editId || replyId) route(threadPath(posted.status));
    else route('/');
  };
  const failed = relatedQuery.error ?? edited.error;
  const waiting = (related !== null && !relatedQuery.data) || (editId !== null && !edited.data);
  const context: Status | undefined = relatedQuery.data;
  const [showHistory, setShowHistory] = useState(false);

  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">{title}</h1>
      {query.redraft && !redraft && <p role="status">The deleted post could not be found; you can write a new one.</p>}
      {failed ? (
        <ErrorRetry error={failed} onRetry={() => (relatedQuery.error ? relatedQuery.refetch() : edited.refetch())} />
      ) : waiting ? (
        <p class="loading" role="status">
          Loading…
        </p>
      ) : (
        <>
          {context && (
            <div class="compose-context" aria-label={replyId ? 'Replying to' : 'Quoting'} role="region">
              <StatusView status={context} hideActions />
            </div>
          )}
          {edited.data?.status.editedAt && (
            <button type="button" onClick={() => setShowHistory(true)}>
              Edit history
            </button>
          )}
          {showHistory && editId && <EditHistory statusId={editId} onClose={() => setShowHistory(false)} />}
          <Composer
            key={`${replyId}-${quoteId}-${editId}-${redraft?.id ?? ''}`}
            replyTo={replyId ? context : null}
            quote={quoteId ? context : null}
            edit={edited.data ?? null}
            redraft={redraft}
            sharedText={query.text ?? null}
            onPosted={onPosted}
          />
        </>
      )}
    </section>
  );
}
