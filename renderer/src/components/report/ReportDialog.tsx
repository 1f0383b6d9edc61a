import { useQuery } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { Dialog } from '../dialog/Dialog';
import { Content } from '../html/Content';
import { toast } from '../layout/toasts';
import { RelativeTime } from '../time/RelativeTime';
import './report.css';
import { ErrorRetry } from '../layout/ErrorRetry';

type Category = 'spam' | 'legal' | 'violation' | 'other';

const CATEGORIES: { value: Category; label: string }[] = [
  { value: 'spam', label: 'It is spam' },
  { value: 'legal', label: 'It is illegal' },
  { value: 'violation', label: 'It breaks the rules of this server' },
  { value: 'other', label: 'Something else' },
];

/** A rule of the instance as `/api/v1/instance/rules` gives it. */
interface Rule {
  id: string;
  text: string;
  hint?: string;
}

/**
 * Reports an account to the instance's staff: a category, the rules broken (for "violation"), the
 * account's recent posts to attach (`statusId` ticked already), a comment, and for a remote
 * account whether to forward the report to its server.
 */
export function ReportDialog(props: { account: Pick<mastodon.v1.Account, 'id' | 'acct'>; statusId?: string | undefined; onClose: () => void }): JSX.Element {
  const api = useApi();
  const id = props.account.id;
  const remote = props.account.acct.includes('@');
  const [category, setCategory] = useState<Category>('other');
  const [ruleIds, setRuleIds] = useState<string[]>([]);
  const [statusIds, setStatusIds] = useState<string[]>(props.statusId ? [props.statusId] : []);
  const [comment, setComment] = useState('');
  const [forward, setForward] = useState(false);
  const [sending, setSending] = useState(false);
  const rules = useQuery({ queryKey: ['instance-rules'], queryFn: () => api.fetchJson<Rule[]>('/api/v1/instance/rules'), staleTime: 600_000 });
  const statuses = useQuery({
    queryKey: ['report-statuses', id, props.statusId],
    queryFn: async () => {
      const recent = await api.rest.v1.accounts.$select(id).statuses.list({ limit: 20, excludeReblogs: true });
      if (!props.statusId || recent.some((s) => s.id === props.statusId)) return recent;
      // An older post asked for by `?report=`; one that is gone is simply not offered.
      const asked = await api.rest.v1.statuses
        .$select(props.statusId)
        .fetch()
        .catch(() => null);
      return asked && asked.account.id === id ? [asked, ...recent] : recent;
    },
  });
  const tick = (list: string[], value: string, on: boolean) => (on ? [...list.filter((v) => v !== value), value] : list.filter((v) => v !== value));
  const submit = async (e: Event) => {
    e.preventDefault();
    setSending(true);
    try {
      await api.rest.v1.reports.create({ accountId: id, statusIds: statusIds.filter((sid) => statuses.data?.some((s) => s.id === sid)), comment, forward: remote && forward, category, ruleIds: category === 'violation' ? ruleIds : [] });
      toast('Thank you. The report was sent to the moderators.', { kind: 'info' });
      props.onClose();
    } catch (error) {
      setSending(false);
      toast(describeError(error), { retry: () => void submit(new Event('submit')) });
    }
  };
  return (
    <Dialog title={`Report @${props.account.acct}`} onClose={props.onClose} class="dialog report-dialog">
      <form onSubmit={(e) => void submit(e)}>
        <fieldset>
          <legend>What is wrong?</legend>
          {CATEGORIES.map((c) => (
            <label key={c.value} class="checkbox">
              <input type="radio" name="report-category" value={c.value} checked={category === c.value} onChange={() => setCategory(c.value)} /> {c.label}
            </label>
          ))}
        </fieldset>
        {category === 'violation' && (
          <fieldset>
            <legend>Which rules are broken?</legend>
            {rules.isPending && <p role="status">Loading the rules…</p>}
            {rules.error && (
              <ErrorRetry error={rules.error} onRetry={() => rules.refetch()} />
            )}
            {rules.data?.length === 0 && <p class="empty">This server has no rules.</p>}
            {rules.data?.map((r) => (
              <label key={r.id} class="checkbox">
                <input type="checkbox" checked={ruleIds.includes(r.id)} onChange={(e) => setRuleIds(tick(ruleIds, r.id, e.currentTarget.checked))} /> {r.text}
              </label>
            ))}
          </fieldset>
        )}
        <fieldset class="report-statuses">
          <legend>Posts to attach</legend>
          {statuses.isPending && <p role="status">Loading posts…</p>}
          {statuses.error && (
            <ErrorRetry error={statuses.error} onRetry={() => statuses.refetch()} />
          )}
          {statuses.data?.length === 0 && <p class="empty">No posts.</p>}
          {statuses.data?.map((s) => (
            <label key={s.id} class="checkbox report-status">
              <input type="checkbox" checked={statusIds.includes(s.id)} aria-describedby={`report-status-${s.id}`} onChange={(e) => setStatusIds(tick(statusIds, s.id, e.currentTarget.checked))} />
              <span>
                Post from <RelativeTime iso={s.createdAt} />
              </span>
              <span id={`report-status-${s.id}`} class="report-status-text">
                {s.spoilerText ? s.spoilerText : <Content html={s.content} emojis={s.emojis} />}
              </span>
            </label>
          ))}
        </fieldset>
        <label for="report-comment">Comment for the moderators</label>
        <textarea id="report-comment" rows={3} maxLength={1000} value={comment} onInput={(e) => setComment(e.currentTarget.value)} />
        {remote && (
          <label class="checkbox">
            <input type="checkbox" checked={forward} onChange={(e) => setForward(e.currentTarget.checked)} /> Also send the report to {props.account.acct.split('@')[1]}
          </label>
        )}
        <div class="dialog-actions">
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" class="primary" disabled={sending}>
            Send report
          </button>
        </div>
      </form>
    </Dialog>
  );
}
