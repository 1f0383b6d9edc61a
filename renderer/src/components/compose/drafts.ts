/**
 * Drafts kept in localStorage, per account, so that an unfinished post survives closing the app.
 * The composer saves as the person types and offers the newest draft for the same purpose (a new
 * post, a reply to one post, a quote of one post) when they come back.
 */

/** A poll as the composer holds it. */
export interface PollDraft {
  options: string[];
  multiple: boolean;
  hideTotals: boolean;
  expiresIn: number;
}

/** Everything the composer needs to come back to a post. */
export interface Draft {
  id: string;
  updatedAt: string;
  text: string;
  spoilerText: string;
  visibility: string;
  language: string;
  sensitive: boolean;
  quotePolicy: string;
  inReplyToId: string | null;
  quoteId: string | null;
  poll: PollDraft | null;
}

function key(accountId: string): string {
  return `hearth.drafts.${accountId}`;
}

/** The account's drafts, newest first. */
export function listDrafts(accountId: string): Draft[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(key(accountId)) ?? '[]');
    if (!Array.isArray(parsed)) return [];
    return (parsed as Draft[]).filter((d) => typeof d?.id === 'string' && typeof d.text === 'string').sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  } catch {
    return [];
  }
}

/** Saves (or replaces) a draft; an empty one is removed instead. */
export function saveDraft(accountId: string, draft: Draft): void {
  const others = listDrafts(accountId).filter((d) => d.id !== draft.id);
  const empty = draft.text.trim() === '' && draft.spoilerText.trim() === '' && !draft.poll?.options.some((o) => o.trim() !== '');
  const next = empty ? others : [draft, ...others].slice(0, 50);
  try {
    localStorage.setItem(key(accountId), JSON.stringify(next));
  } catch {
    // Storage full or disabled: the draft is simply not kept.
  }
}

/** Forgets a draft (posted or thrown away). */
export function removeDraft(accountId: string, id: string): void {
  const next = listDrafts(accountId).filter((d) => d.id !== id);
  localStorage.setItem(key(accountId), JSON.stringify(next));
}

/** A new draft id. */
export function newDraftId(): string {
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
