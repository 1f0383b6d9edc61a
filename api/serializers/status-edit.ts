import type { MediaRow } from '../db/repos/media.js';
import { isoTime } from '../util/clock.js';
import type { Uris } from '../util/uris.js';
import { toMastodonAccount, type AccountView, type MastodonAccount } from './account.js';
import { toMastodonMediaAttachment, type MastodonMediaAttachment } from './media-attachment.js';

/** Mastodon's StatusEdit entity: one version of a status. */
export interface MastodonStatusEdit {
  content: string;
  spoiler_text: string;
  sensitive: boolean;
  created_at: string;
  account: MastodonAccount;
  poll?: { options: { title: string }[] };
  media_attachments: MastodonMediaAttachment[];
  emojis: never[];
}

/** One version as core loads it: the media rows are shown with the description and focus of that version. */
export interface StatusEditView {
  content: string;
  spoiler_text: string;
  sensitive: boolean;
  created_at: number;
  account: AccountView;
  /** Option titles at that version, or null when the status had no poll. */
  pollOptions: string[] | null;
  media: MediaRow[];
}

/** The StatusEdit entity of one version. */
export function toMastodonStatusEdit(view: StatusEditView, uris: Uris): MastodonStatusEdit {
  const edit: MastodonStatusEdit = {
    content: view.content,
    spoiler_text: view.spoiler_text,
    sensitive: view.sensitive,
    created_at: isoTime(view.created_at),
    account: toMastodonAccount(view.account, uris),
    media_attachments: view.media.map((m) => toMastodonMediaAttachment(m, uris)),
    emojis: [],
  };
  if (view.pollOptions) edit.poll = { options: view.pollOptions.map((title) => ({ title })) };
  return edit;
}
