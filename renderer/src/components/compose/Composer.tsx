import { useQuery, useQueryClient } from '@tanstack/preact-query';
import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { ComposeTextarea } from './ComposeTextarea';
import { charactersLeft } from './count';
import { DraftsPanel } from './DraftsPanel';
import { listDrafts, newDraftId, removeDraft, saveDraft, type Draft } from './drafts';
import { MediaUploads } from './MediaUploads';
import { aspectOf, uploadFile, type Upload } from './media';
import { LanguageSelect, QuotePolicySelect, VisibilitySelect } from './options';
import { emptyPoll, PollEditor } from './PollEditor';
import { fromDraft, initialState, toDraft, type ComposeContext, type ComposeLimits, type ComposeState } from './state';
import { cachePosted, submitPost, type Posted } from './submit';
import './compose.css';
import { ErrorRetry } from '../layout/ErrorRetry';

/** What a composer may be told beyond what it writes. */
export interface ComposerProps extends ComposeContext {
  /** Called after the instance accepted the post (the screen navigates on); without it the form empties. */
  onPosted?: (posted: Posted) => void;
  /** A smaller form (the one on top of the home timeline). */
  compact?: boolean;
}

/**
 * The post composer: loads the instance's limits (`/api/v2/instance`) and the person's posting
 * preferences, then shows the form for a new post, a reply, a quote, an edit or a redraft.
 */
export function Composer(props: ComposerProps): JSX.Element {
  const api = useApi();
  // Not ['instance', 'v2']: the signed-out screens keep the snake_case answer under that key.
  const instance = useQuery({ queryKey: ['instance', 'v2', 'masto'], queryFn: () => api.rest.v2.instance.fetch(), staleTime: 10 * 60_000 });
  const prefs = useQuery({ queryKey: ['preferences'], queryFn: () => api.rest.v1.preferences.fetch() });
  const failed = instance.error ?? prefs.error;
  if (failed)
    return (
      <ErrorRetry error={failed} onRetry={() => Promise.all([instance.refetch(), prefs.refetch()])} />
    );
  if (!instance.data || !prefs.data)
    return (
      <p class="loading" role="status">
        Loading…
      </p>
    );
  const c = instance.data.configuration;
  const limits: ComposeLimits = {
    maxCharacters: c.statuses.maxCharacters,
    urlLength: c.statuses.charactersReservedPerUrl,
    maxMedia: c.statuses.maxMediaAttachments,
    descriptionLimit: (c.mediaAttachments as { descriptionLimit?: number }).descriptionLimit ?? 1500,
    poll: c.polls,
  };
  return <ComposerForm {...props} limits={limits} initial={initialState(props, prefs.data, api.account.id, limits)} />;
}

let uploadKeys = 0;

function ComposerForm(props: ComposerProps & { limits: ComposeLimits; initial: ComposeState }): JSX.Element {
  const api = useApi();
  const qc = useQueryClient();
  const { limits } = props;
  const editId = props.edit?.status.id ?? null;
  const [s, setS] = useState(props.initial);
  const update = (patch: Partial<ComposeState>) => setS((prev) => ({ ...prev, ...patch }));
  const [error, setError] = useState<string | null>(null);
  const [posting, setPosting] = useState(false);
  // Drafts: kept as the person types (not for edits, which live on the instance already).
  const keepsDrafts = !editId;
  const [draftId, setDraftId] = useState(newDraftId);
  const [drafts, setDrafts] = useState<Draft[]>(() => (keepsDrafts ? listDrafts(api.account.id) : []));
  const [offer, setOffer] = useState<Draft | null>(() =>
    keepsDrafts && !props.redraft && !props.sharedText ? (drafts.find((d) => d.inReplyToId === props.initial.inReplyToId && d.quoteId === props.initial.quoteId) ?? null) : null,
  );
  const touched = useRef(false);
  useEffect(() => {
    if (!keepsDrafts || !touched.current) return;
    const timer = setTimeout(() => {
      saveDraft(api.account.id, toDraft(draftId, s));
      setDrafts(listDrafts(api.account.id));
    }, 300);
    return () => clearTimeout(timer);
  }, [s, draftId]);
  // Leaving the composer (another screen, closing the window) keeps what was typed last.
  const latest = useRef({ s, draftId });
  latest.current = { s, draftId };
  useEffect(() => {
    if (!keepsDrafts) return;
    const flush = () => {
      if (touched.current) saveDraft(api.account.id, toDraft(latest.current.draftId, latest.current.s));
    };
    window.addEventListener('pagehide', flush);
    return () => {
      window.removeEventListener('pagehide', flush);
      flush();
    };
  }, []);
  const change = (patch: Partial<ComposeState>) => {
    touched.current = true;
    update(patch);
  };

  const restore = (d: Draft) => {
    touched.current = true;
    setS((prev) => fromDraft(d, prev));
    setDraftId(d.id);
    setOffer(null);
  };
  const deleteDraft = (d: Draft) => {
    removeDraft(api.account.id, d.id);
    setDrafts(listDrafts(api.account.id));
    if (offer?.id === d.id) setOffer(null);
  };

  const setUpload = (key: string, patch: Partial<Upload>) => setS((prev) => ({ ...prev, uploads: prev.uploads.map((u) => (u.key === key ? { ...u, ...patch } : u)) }));
  const addFiles = (files: FileList | null) => {
    if (!files) return;
    const room = limits.maxMedia - s.uploads.length;
    const chosen = [...files].slice(0, Math.max(0, room));
    if (files.length > chosen.length) setError(`You can attach at most ${limits.maxMedia} files.`);
    for (const file of chosen) {
      const key = `u-${++uploadKeys}`;
      const upload: Upload = { key, name: file.name, state: 'uploading', progress: 0, id: null, type: file.type.split('/')[0] ?? 'file', previewUrl: null, aspect: null, description: '', focusX: 0, focusY: 0, error: null, attached: false, dirty: false };
      setS((prev) => ({ ...prev, poll: null, uploads: [...prev.uploads, upload] }));
      uploadFile(
        api,
        file,
        (progress) => setUpload(key, { progress }),
        () => setUpload(key, { state: 'processing' }),
      ).then(
        (m) => setUpload(key, { state: 'ready', id: m.id, type: m.type, previewUrl: m.preview_url ?? m.url, aspect: aspectOf(m.meta), description: m.description ?? '' }),
        (e: unknown) => setUpload(key, { state: 'failed', error: describeError(e) }),
      );
    }
  };

  const left = charactersLeft(s.text, s.cw ? s.spoilerText : '', limits.maxCharacters, limits.urlLength);
  const busy = s.uploads.some((u) => u.state === 'uploading' || u.state === 'processing');
  const usable = s.uploads.filter((u) => u.state !== 'failed');
  const pollOk = !s.poll || s.poll.options.filter((o) => o.trim() !== '').length >= 2;
  const empty = s.text.trim() === '' && usable.length === 0;
  const canPost = !posting && !busy && left >= 0 && !empty && pollOk && (!s.schedule || s.scheduledAt !== '');

  const submit = async () => {
    if (!canPost) return;
    setPosting(true);
    setError(null);
    try {
      const posted = await submitPost(api, { ...s, uploads: usable }, editId);
      if (posted.kind === 'status') cachePosted(qc, posted.status, editId !== null);
      else void qc.invalidateQueries({ queryKey: ['scheduled'] });
      if (keepsDrafts) {
        removeDraft(api.account.id, draftId);
        setDrafts(listDrafts(api.account.id));
      }
      if (props.redraft) sessionStorage.removeItem('hearth.redraft');
      touched.current = false;
      if (props.onPosted) props.onPosted(posted);
      else {
        setS(initialState({}, { 'posting:default:visibility': s.visibility, 'posting:default:language': s.language }, api.account.id, limits));
        setDraftId(newDraftId());
      }
    } catch (e) {
      setError(describeError(e));
    } finally {
      setPosting(false);
    }
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') {
      e.preventDefault();
      void submit();
    }
  };
  const quotable = s.visibility === 'public' || s.visibility === 'unlisted';
  const submitLabel = editId ? 'Save' : s.schedule ? 'Schedule post' : s.inReplyToId ? 'Reply' : 'Post';

  return (
    <form
      class={`composer${props.compact ? ' composer-compact' : ''}`}
      aria-label={editId ? 'Edit post' : 'New post'}
      onKeyDown={onKeyDown}
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      {keepsDrafts && <DraftsPanel drafts={drafts.filter((d) => d.id !== draftId)} offer={offer && offer.id !== draftId ? offer : null} onRestore={restore} onDelete={deleteDraft} />}
      {s.inReplyToId && !props.replyTo && !editId && <p class="compose-note">Replying to a post.</p>}
      {s.cw && (
        <>
          <label for="compose-cw">Content warning</label>
          <input id="compose-cw" type="text" class="compose-cw" value={s.spoilerText} onInput={(e) => change({ spoilerText: e.currentTarget.value })} />
        </>
      )}
      <label for="compose-text">{s.inReplyToId ? 'Reply' : 'Post text'}</label>
      <ComposeTextarea id="compose-text" value={s.text} onInput={(text) => change({ text })} describedBy="compose-counter" rows={props.compact ? 3 : 6} autoFocus={!props.compact} />
      <p id="compose-counter" class={`compose-counter${left < 0 ? ' compose-over' : ''}`} aria-live="polite">
        {left >= 0 ? `${left} characters left` : `${-left} characters over the limit`}
      </p>
      <MediaUploads uploads={s.uploads} descriptionLimit={limits.descriptionLimit} onChange={(key, patch) => { touched.current = true; setUpload(key, patch); }} onRemove={(key) => change({ uploads: s.uploads.filter((u) => u.key !== key) })} />
      {s.poll && <PollEditor poll={s.poll} limits={limits.poll} onChange={(poll) => change({ poll })} />}
      <div class="compose-tools">
        <label class="button compose-file" for="compose-file">
          Add media
        </label>
        <input
          id="compose-file"
          class="visually-hidden"
          type="file"
          multiple
          accept="image/*,video/*,audio/*"
          disabled={!!s.poll || s.uploads.length >= limits.maxMedia}
          onChange={(e) => {
            addFiles(e.currentTarget.files);
            e.currentTarget.value = '';
          }}
        />
        <button type="button" aria-pressed={!!s.poll} disabled={s.uploads.length > 0} onClick={() => change({ poll: s.poll ? null : emptyPoll(limits.poll) })}>
          Poll
        </button>
        <button type="button" aria-pressed={s.cw} onClick={() => change({ cw: !s.cw })}>
          Content warning
        </button>
        {!editId && (
          <button type="button" aria-pressed={s.schedule} onClick={() => change({ schedule: !s.schedule })}>
            Schedule
          </button>
        )}
      </div>
      {usable.length > 0 && (
        <div class="compose-checks">
          <input id="compose-sensitive" type="checkbox" checked={s.sensitive} onChange={(e) => change({ sensitive: e.currentTarget.checked })} />
          <label for="compose-sensitive">Mark media as sensitive</label>
        </div>
      )}
      {s.schedule && (
        <div class="compose-option">
          <label for="compose-schedule">Publish at</label>
          <input id="compose-schedule" type="datetime-local" value={s.scheduledAt} onInput={(e) => change({ scheduledAt: e.currentTarget.value })} />
        </div>
      )}
      <div class="compose-options">
        <VisibilitySelect value={s.visibility} disabled={!!editId} onChange={(visibility) => change({ visibility })} />
        <LanguageSelect value={s.language} onChange={(language) => change({ language })} />
        {!editId && <QuotePolicySelect value={s.quotePolicy} disabled={!quotable} onChange={(quotePolicy) => change({ quotePolicy })} />}
      </div>
      {error && (
        <p class="error compose-error" role="alert">
          {error}
        </p>
      )}
      <div class="compose-submit">
        <span class="compose-hint">Ctrl+Enter to send</span>
        <button type="submit" class="primary" disabled={!canPost} aria-busy={posting}>
          {posting ? 'Sending…' : submitLabel}
        </button>
      </div>
    </form>
  );
}
