import { useQueryClient } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { useApi } from '../../instance/client';
import { removeStatusEverywhere } from '../../instance/cache';
import { describeError } from '../../instance/errors';
import { useStatusAction } from '../../instance/optimistic';
import { Dialog } from '../dialog/Dialog';
import { toast } from '../layout/toasts';
import { EditHistory } from './EditHistory';

type Status = mastodon.v1.Status;

/** Where a deleted post's source waits for the composer (delete & redraft). */
export const REDRAFT_KEY = 'hearth.redraft';

/**
 * The "More" menu of a post: a menu button that opens a list of buttons (copy link, open the
 * original, edit, delete, delete & redraft, quote, pin, mute the conversation, edit history, mute
 * or block the author, report). Escape or a click outside closes it.
 */
export function StatusMenu(props: { status: Status }): JSX.Element {
  const s = props.status;
  const api = useApi();
  const qc = useQueryClient();
  const act = useStatusAction();
  const { route } = useLocation();
  const [open, setOpen] = useState(false);
  const [dialog, setDialog] = useState<'delete' | 'redraft' | 'history' | 'block' | null>(null);
  const box = useRef<HTMLDivElement>(null);
  const own = s.account.id === api.account.id;
  const remote = s.account.acct.includes('@');
  const menuId = `status-menu-${s.id}`;
  const name = s.account.displayName || s.account.username;

  useEffect(() => {
    if (!open) return;
    const away = (e: Event) => {
      if (!box.current?.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        setOpen(false);
        box.current?.querySelector<HTMLButtonElement>('button')?.focus();
      }
    };
    document.addEventListener('mousedown', away);
    document.addEventListener('keydown', onKey);
    box.current?.querySelector<HTMLButtonElement>(`#${menuId} button`)?.focus();
    return () => {
      document.removeEventListener('mousedown', away);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);

  const item = (label: string, run: () => void) => (
    <li>
      <button
        type="button"
        onClick={() => {
          setOpen(false);
          run();
        }}
      >
        {label}
      </button>
    </li>
  );
  const safely = async (run: () => Promise<unknown>, done?: string) => {
    try {
      await run();
      if (done) toast(done, { kind: 'info' });
    } catch (error) {
      toast(describeError(error), { retry: () => void safely(run, done) });
    }
  };
  const remove = async (redraft: boolean) => {
    setDialog(null);
    try {
      const source = await api.rest.v1.statuses.$select(s.id).remove();
      removeStatusEverywhere(qc, s.id);
      if (redraft) {
        sessionStorage.setItem(REDRAFT_KEY, JSON.stringify(source));
        route('/compose?redraft=1');
      } else toast('Post deleted.', { kind: 'info' });
    } catch (error) {
      toast(describeError(error), { retry: () => void remove(redraft) });
    }
  };
  const link = s.url ?? s.uri;

  return (
    <div class="status-menu" ref={box}>
      <button type="button" aria-label="More" aria-haspopup="true" aria-expanded={open} aria-controls={menuId} onClick={() => setOpen(!open)}>
        <span aria-hidden="true">⋯</span>
      </button>
      {open && (
        <ul id={menuId} class="menu status-menu-list" aria-label={`More actions for the post by ${name}`}>
          {item('Copy link', () => void navigator.clipboard.writeText(link).then(() => toast('Link copied.', { kind: 'info' }), () => toast(`Could not copy. The link is ${link}`)))}
          {remote && /^https?:/i.test(link) && (
            <li>
              <a class="button" href={link} target="_blank" rel="noopener noreferrer nofollow" onClick={() => setOpen(false)}>
                Open original
              </a>
            </li>
          )}
          {own && item('Edit', () => route(`/compose?edit=${encodeURIComponent(s.id)}`))}
          {own && item('Delete', () => setDialog('delete'))}
          {own && item('Delete & redraft', () => setDialog('redraft'))}
          {(s.visibility === 'public' || s.visibility === 'unlisted') && item('Quote', () => route(`/compose?quote=${encodeURIComponent(s.id)}`))}
          {own &&
            (s.visibility === 'public' || s.visibility === 'unlisted' || s.visibility === 'private') &&
            item(s.pinned ? 'Unpin from profile' : 'Pin on profile', () =>
              void act(s, (x) => ({ ...x, pinned: !x.pinned }), (a) => (s.pinned ? a.rest.v1.statuses.$select(s.id).unpin() : a.rest.v1.statuses.$select(s.id).pin())),
            )}
          {item(s.muted ? 'Unmute conversation' : 'Mute conversation', () =>
            void act(s, (x) => ({ ...x, muted: !x.muted }), (a) => (s.muted ? a.rest.v1.statuses.$select(s.id).unmute() : a.rest.v1.statuses.$select(s.id).mute())),
          )}
          {s.editedAt && item('Edit history', () => setDialog('history'))}
          {!own && item(`Mute @${s.account.acct}`, () => void safely(() => api.rest.v1.accounts.$select(s.account.id).mute(), `@${s.account.acct} is muted.`))}
          {!own && item(`Block @${s.account.acct}`, () => setDialog('block'))}
          {!own && item(`Report @${s.account.acct}`, () => route(`/@${s.account.acct}?report=${encodeURIComponent(s.id)}`))}
        </ul>
      )}
      {(dialog === 'delete' || dialog === 'redraft') && (
        <Dialog title={dialog === 'delete' ? 'Delete this post?' : 'Delete and redraft this post?'} onClose={() => setDialog(null)}>
          <p>{dialog === 'delete' ? 'It will be removed here and on other servers.' : 'Its boosts and favourites will be lost, and replies to it will be orphaned. Its text opens in the composer.'}</p>
          <div class="dialog-actions">
            <button type="button" onClick={() => setDialog(null)}>
              Cancel
            </button>
            <button type="button" class="primary" onClick={() => void remove(dialog === 'redraft')}>
              {dialog === 'delete' ? 'Delete' : 'Delete & redraft'}
            </button>
          </div>
        </Dialog>
      )}
      {dialog === 'block' && (
        <Dialog title={`Block @${s.account.acct}?`} onClose={() => setDialog(null)}>
          <p>They will not be able to follow you or see your posts, and you will not see theirs.</p>
          <div class="dialog-actions">
            <button type="button" onClick={() => setDialog(null)}>
              Cancel
            </button>
            <button
              type="button"
              class="primary"
              onClick={() => {
                setDialog(null);
                void safely(() => api.rest.v1.accounts.$select(s.account.id).block(), `@${s.account.acct} is blocked.`);
              }}
            >
              Block
            </button>
          </div>
        </Dialog>
      )}
      {dialog === 'history' && <EditHistory statusId={s.id} onClose={() => setDialog(null)} />}
    </div>
  );
}
