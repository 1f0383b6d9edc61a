import type { mastodon } from 'masto';
import type { Draft, PollDraft } from './drafts';
import { uploadFromAttachment, type Upload } from './media';

type Status = mastodon.v1.Status;

/** Everything on the compose form. */
export interface ComposeState {
  text: string;
  cw: boolean;
  spoilerText: string;
  visibility: mastodon.v1.StatusVisibility;
  language: string;
  sensitive: boolean;
  quotePolicy: string;
  poll: PollDraft | null;
  uploads: Upload[];
  schedule: boolean;
  /** A `datetime-local` value (local time). */
  scheduledAt: string;
  inReplyToId: string | null;
  quoteId: string | null;
}

/** The limits the form enforces, from the instance's configuration. */
export interface ComposeLimits {
  maxCharacters: number;
  urlLength: number;
  maxMedia: number;
  descriptionLimit: number;
  poll: { maxOptions: number; maxCharactersPerOption: number; minExpiration: number; maxExpiration: number };
}

/** A deleted post handed over for "delete and redraft" (masto's Status with its source `text`). */
export type Redraft = Status & { text?: string | null };

/** What the composer is asked to write. */
export interface ComposeContext {
  replyTo?: Status | null;
  quote?: Status | null;
  edit?: { status: Status; source: mastodon.v1.StatusSource } | null;
  redraft?: Redraft | null;
  sharedText?: string | null;
}

const RANK: Record<string, number> = { public: 0, unlisted: 1, private: 2, direct: 3 };

/** The more restricted of two visibilities (a reply is never more public than what it answers). */
export function stricter(a: mastodon.v1.StatusVisibility, b: mastodon.v1.StatusVisibility): mastodon.v1.StatusVisibility {
  return (RANK[a] ?? 0) >= (RANK[b] ?? 0) ? a : b;
}

/** `@author @everyone-mentioned ` for a reply, without the person writing it, each once. */
export function replyMentions(status: Status, myId: string): string {
  const accts: string[] = [];
  if (status.account.id !== myId) accts.push(status.account.acct);
  for (const m of status.mentions) if (m.id !== myId && !accts.includes(m.acct)) accts.push(m.acct);
  return accts.length > 0 ? `${accts.map((a) => `@${a}`).join(' ')} ` : '';
}

/** A datetime-local value one hour from now (the suggestion when scheduling starts). */
export function inAnHour(): string {
  const d = new Date(Date.now() + 3600_000);
  d.setSeconds(0, 0);
  return localInputValue(d);
}

/** A Date as a `datetime-local` value in local time. */
export function localInputValue(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function pollFrom(poll: mastodon.v1.Poll | null | undefined, limits: ComposeLimits): PollDraft | null {
  if (!poll) return null;
  const left = poll.expiresAt ? Math.round((Date.parse(poll.expiresAt) - Date.now()) / 1000) : 86400;
  return {
    options: poll.options.map((o) => o.title),
    multiple: poll.multiple,
    hideTotals: false,
    expiresIn: Math.min(Math.max(left, limits.poll.minExpiration, 86400), limits.poll.maxExpiration),
  };
}

/** The form's first state for what is being written, with the person's preferences as defaults. */
export function initialState(ctx: ComposeContext, prefs: Partial<mastodon.v1.Preference>, myId: string, limits: ComposeLimits): ComposeState {
  const defaults: ComposeState = {
    text: '',
    cw: false,
    spoilerText: '',
    visibility: prefs['posting:default:visibility'] ?? 'public',
    language: prefs['posting:default:language'] || navigator.language.split('-')[0] || 'en',
    sensitive: prefs['posting:default:sensitive'] ?? false,
    quotePolicy: 'public',
    poll: null,
    uploads: [],
    schedule: false,
    scheduledAt: inAnHour(),
    inReplyToId: null,
    quoteId: null,
  };
  const edited = ctx.edit;
  if (edited) {
    const s = edited.status;
    return {
      ...defaults,
      text: edited.source.text,
      cw: edited.source.spoilerText !== '',
      spoilerText: edited.source.spoilerText,
      visibility: s.visibility,
      language: s.language ?? defaults.language,
      sensitive: s.sensitive,
      poll: pollFrom(s.poll, limits),
      uploads: s.mediaAttachments.map((m) => uploadFromAttachment(m, true)),
      inReplyToId: s.inReplyToId ?? null,
    };
  }
  const redraft = ctx.redraft;
  if (redraft) {
    const quoted = redraft.quote && 'quotedStatus' in redraft.quote ? redraft.quote.quotedStatus?.id : redraft.quote && 'quotedStatusId' in redraft.quote ? redraft.quote.quotedStatusId : null;
    return {
      ...defaults,
      text: redraft.text ?? '',
      cw: redraft.spoilerText !== '',
      spoilerText: redraft.spoilerText,
      visibility: redraft.visibility,
      language: redraft.language ?? defaults.language,
      sensitive: redraft.sensitive,
      poll: pollFrom(redraft.poll, limits),
      uploads: redraft.mediaAttachments.map((m) => uploadFromAttachment(m, false)),
      inReplyToId: redraft.inReplyToId ?? null,
      quoteId: quoted ?? null,
    };
  }
  const reply = ctx.replyTo;
  if (reply) {
    return {
      ...defaults,
      text: replyMentions(reply, myId),
      cw: reply.spoilerText !== '',
      spoilerText: reply.spoilerText,
      visibility: stricter(defaults.visibility, reply.visibility),
      inReplyToId: reply.id,
    };
  }
  if (ctx.quote) return { ...defaults, quoteId: ctx.quote.id };
  return { ...defaults, text: ctx.sharedText ?? '' };
}

/** The form's state as a draft to keep. */
export function toDraft(id: string, s: ComposeState): Draft {
  return {
    id,
    updatedAt: new Date().toISOString(),
    text: s.text,
    spoilerText: s.cw ? s.spoilerText : '',
    visibility: s.visibility,
    language: s.language,
    sensitive: s.sensitive,
    quotePolicy: s.quotePolicy,
    inReplyToId: s.inReplyToId,
    quoteId: s.quoteId,
    poll: s.poll,
  };
}

/** A kept draft back into the form. */
export function fromDraft(d: Draft, current: ComposeState): ComposeState {
  return {
    ...current,
    text: d.text,
    cw: d.spoilerText !== '',
    spoilerText: d.spoilerText,
    visibility: d.visibility as mastodon.v1.StatusVisibility,
    language: d.language,
    sensitive: d.sensitive,
    quotePolicy: d.quotePolicy,
    inReplyToId: d.inReplyToId,
    quoteId: d.quoteId,
    poll: d.poll,
  };
}
