import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useLocation } from 'preact-iso';
import { useStatusAction } from '../../instance/optimistic';

type Status = mastodon.v1.Status;

/**
 * The count beside an action, outside its button (so that the button's name stays what it does,
 * and what is seen is part of what is read), or nothing for zero.
 */
function count(n: number): JSX.Element | null {
  return n > 0 ? <span class="action-count">{n}</span> : null;
}

/** One on/off action: named for what it does, its state in `aria-pressed`, its icon hidden from assistive technology. */
function Toggle(props: { name: string; icon: string; kind: string; on: boolean; disabled?: boolean; onClick: () => void }): JSX.Element {
  return (
    <button type="button" class={`action-${props.kind}`} aria-label={props.name} aria-pressed={props.on} disabled={props.disabled} onClick={props.onClick}>
      <span aria-hidden="true">{props.icon}</span>
    </button>
  );
}

/**
 * Reply, boost, favourite and bookmark, each applied optimistically and put back on failure.
 * Buttons are toggles (`aria-pressed`) named for what they do. Reply opens the composer
 * (`/compose?in_reply_to=ID`) unless the screen handles it.
 */
export function StatusActions(props: { status: Status; onReply?: (s: Status) => void }): JSX.Element {
  const s = props.status;
  const act = useStatusAction();
  const { route } = useLocation();
  const reply = props.onReply ?? ((x: Status) => route(`/compose?in_reply_to=${encodeURIComponent(x.id)}`));
  const canBoost = s.visibility === 'public' || s.visibility === 'unlisted';
  return (
    <div class="status-actions" role="group" aria-label="Actions">
      <button type="button" class="action-reply" aria-label="Reply" onClick={() => reply(s)}>
        <span aria-hidden="true">↩</span>
      </button>
      {count(s.repliesCount)}
      <Toggle name="Boost" icon="⟳" kind="boost" on={!!s.reblogged} disabled={!canBoost} onClick={() => void act(s, (x) => ({ ...x, reblogged: !x.reblogged, reblogsCount: x.reblogsCount + (x.reblogged ? -1 : 1) }), (api) => (s.reblogged ? api.rest.v1.statuses.$select(s.id).unreblog() : api.rest.v1.statuses.$select(s.id).reblog()))} />
      {count(s.reblogsCount)}
      <Toggle name="Favourite" icon="★" kind="favourite" on={!!s.favourited} onClick={() => void act(s, (x) => ({ ...x, favourited: !x.favourited, favouritesCount: x.favouritesCount + (x.favourited ? -1 : 1) }), (api) => (s.favourited ? api.rest.v1.statuses.$select(s.id).unfavourite() : api.rest.v1.statuses.$select(s.id).favourite()))} />
      {count(s.favouritesCount)}
      <Toggle name="Bookmark" icon="⚑" kind="bookmark" on={!!s.bookmarked} onClick={() => void act(s, (x) => ({ ...x, bookmarked: !x.bookmarked }), (api) => (s.bookmarked ? api.rest.v1.statuses.$select(s.id).unbookmark() : api.rest.v1.statuses.$select(s.id).bookmark()))} />
    </div>
  );
}
