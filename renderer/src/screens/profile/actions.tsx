import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { describeError } from '../../instance/errors';
import { FollowButton } from '../../components/account/FollowButton';
import { ListsDialog } from '../../components/account/ListsDialog';
import { MuteDialog } from '../../components/account/MuteDialog';
import { useRelationship, useRelationshipAction } from '../../components/account/relationship';
import { ReportDialog } from '../../components/report/ReportDialog';
import { profilePath } from '../../components/status/Status';

type Account = mastodon.v1.Account;

/**
 * What you can do with someone else's account: follow, notify on new posts, hide boosts, mute
 * (with a duration), block, block their domain (remote accounts), feature on your profile, add to
 * lists, report, and your personal note. All optimistic on the relationship cache.
 */
export function ProfileActions(props: { account: Account; reportStatusId?: string | undefined }): JSX.Element {
  const a = props.account;
  const id = a.id;
  const rel = useRelationship(id);
  const { route } = useLocation();
  const act = useRelationshipAction();
  const [dialog, setDialog] = useState<'mute' | 'lists' | 'report' | null>(props.reportStatusId ? 'report' : null);
  useEffect(() => {
    if (props.reportStatusId) setDialog('report');
  }, [props.reportStatusId]);
  const domain = a.acct.includes('@') ? a.acct.slice(a.acct.indexOf('@') + 1) : null;
  if (rel.error && !rel.data)
    return (
      <div class="error" role="alert">
        <p>{describeError(rel.error)}</p>
        <button type="button" onClick={rel.refetch}>
          Try again
        </button>
      </div>
    );
  const r = rel.data;
  return (
    <div class="profile-actions">
      {r?.followedBy && <p class="profile-follows-you">Follows you</p>}
      <ul class="profile-action-list" aria-label="Actions">
        <li>
          <FollowButton account={a} />
        </li>
        {r?.following && (
          <>
            <li>
              <button type="button" aria-pressed={r.notifying} onClick={() => void act(id, (x) => ({ ...x, notifying: !r.notifying }), (api) => api.rest.v1.accounts.$select(id).follow({ notify: !r.notifying }))}>
                Notify on new posts
              </button>
            </li>
            <li>
              <button type="button" aria-pressed={!r.showingReblogs} onClick={() => void act(id, (x) => ({ ...x, showingReblogs: !r.showingReblogs }), (api) => api.rest.v1.accounts.$select(id).follow({ reblogs: !r.showingReblogs }))}>
                Hide boosts
              </button>
            </li>
          </>
        )}
        {r && (
          <>
            <li>
              {r.muting ? (
                <button type="button" onClick={() => void act(id, (x) => ({ ...x, muting: false, mutingNotifications: false }), (api) => api.rest.v1.accounts.$select(id).unmute())}>
                  Unmute
                </button>
              ) : (
                <button type="button" onClick={() => setDialog('mute')}>
                  Mute
                </button>
              )}
            </li>
            <li>
              {r.blocking ? (
                <button type="button" onClick={() => void act(id, (x) => ({ ...x, blocking: false }), (api) => api.rest.v1.accounts.$select(id).unblock())}>
                  Unblock
                </button>
              ) : (
                <button type="button" onClick={() => void act(id, (x) => ({ ...x, blocking: true, following: false, followedBy: false, requested: false }), (api) => api.rest.v1.accounts.$select(id).block())}>
                  Block
                </button>
              )}
            </li>
            {domain && (
              <li>
                <button
                  type="button"
                  aria-pressed={r.domainBlocking}
                  onClick={() =>
                    void act(
                      id,
                      (x) => ({ ...x, domainBlocking: !r.domainBlocking }),
                      (api) => (r.domainBlocking ? api.rest.v1.domainBlocks.remove({ domain }) : api.rest.v1.domainBlocks.create({ domain })),
                    )
                  }
                >
                  Block domain {domain}
                </button>
              </li>
            )}
            <li>
              <button type="button" aria-pressed={r.endorsed} onClick={() => void act(id, (x) => ({ ...x, endorsed: !r.endorsed }), (api) => (r.endorsed ? api.rest.v1.accounts.$select(id).unendorse() : api.rest.v1.accounts.$select(id).endorse()))}>
                Feature on your profile
              </button>
            </li>
            <li>
              <button type="button" onClick={() => setDialog('lists')}>
                Add to list
              </button>
            </li>
          </>
        )}
        <li>
          <button type="button" onClick={() => setDialog('report')}>
            Report
          </button>
        </li>
      </ul>
      {r && <NoteField id={id} note={r.note ?? ''} />}
      {dialog === 'mute' && <MuteDialog account={a} onClose={() => setDialog(null)} />}
      {dialog === 'lists' && <ListsDialog account={a} onClose={() => setDialog(null)} />}
      {dialog === 'report' && (
        <ReportDialog
          account={a}
          statusId={props.reportStatusId}
          onClose={() => {
            setDialog(null);
            // Closing forgets `?report=`, so going back or reloading does not open it again.
            if (props.reportStatusId) route(profilePath(a), true);
          }}
        />
      )}
    </div>
  );
}

/** Your private note about the account, saved when the field loses focus. */
function NoteField(props: { id: string; note: string }): JSX.Element {
  const [text, setText] = useState(props.note);
  const [saved, setSaved] = useState(props.note);
  const act = useRelationshipAction();
  useEffect(() => {
    setText(props.note);
    setSaved(props.note);
  }, [props.note]);
  const save = async () => {
    if (text === saved) return;
    const comment = text;
    if (await act(props.id, (x) => ({ ...x, note: comment }), (api) => api.rest.v1.accounts.$select(props.id).note.create({ comment }))) setSaved(comment);
  };
  return (
    <div class="profile-note">
      <label for="profile-note">Personal note</label>
      <textarea id="profile-note" rows={2} placeholder="Only you can see this" value={text} onInput={(e) => setText(e.currentTarget.value)} onBlur={() => void save()} />
    </div>
  );
}
