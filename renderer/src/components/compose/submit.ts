import type { InfiniteData, QueryClient } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { Api } from '../../instance/client';
import { updateStatusEverywhere } from '../../instance/cache';
import { focusParam } from './media';
import type { ComposeState } from './state';

type Status = mastodon.v1.Status;

/** What posting produced: a post, or a post scheduled for later. */
export type Posted = { kind: 'status'; status: Status } | { kind: 'scheduled'; scheduled: mastodon.v1.ScheduledStatus };

/**
 * Sends the form to the instance: alt text and focal points of new uploads first (`PUT
 * /api/v1/media/:id`), then the post (`POST /api/v1/statuses`, with `scheduled_at` for a scheduled
 * one) or the edit (`PUT /api/v1/statuses/:id` with the media attributes of attached media).
 */
export async function submitPost(api: Api, s: ComposeState, editId: string | null): Promise<Posted> {
  for (const u of s.uploads) {
    if (u.id && u.dirty && !u.attached) await api.rest.v1.media.$select(u.id).update({ description: u.description, focus: focusParam(u) });
  }
  const mediaIds = s.uploads.map((u) => u.id).filter((id): id is string => id !== null);
  const poll =
    s.poll && mediaIds.length === 0
      ? { options: s.poll.options.map((o) => o.trim()).filter((o) => o !== ''), expiresIn: s.poll.expiresIn, multiple: s.poll.multiple, hideTotals: s.poll.hideTotals }
      : null;
  const quotable = s.visibility === 'public' || s.visibility === 'unlisted';
  const base = {
    status: s.text,
    spoilerText: s.cw ? s.spoilerText : '',
    sensitive: mediaIds.length > 0 ? s.sensitive || (s.cw && s.spoilerText !== '') : s.sensitive,
    language: s.language || null,
    mediaIds,
    poll,
  };
  if (editId) {
    const mediaAttributes = s.uploads.filter((u) => u.id && u.attached).map((u) => ({ id: u.id as string, description: u.description, focus: focusParam(u) }));
    const status = await api.rest.v1.statuses.$select(editId).update({ ...base, mediaAttributes } as mastodon.rest.v1.UpdateStatusParams);
    return { kind: 'status', status };
  }
  const params = {
    ...base,
    visibility: s.visibility,
    inReplyToId: s.inReplyToId,
    quotedStatusId: s.quoteId,
    quoteApprovalPolicy: quotable ? (s.quotePolicy as mastodon.v1.QuoteApprovalPolicy) : null,
  };
  if (s.schedule) {
    const scheduledAt = new Date(s.scheduledAt).toISOString();
    const scheduled = (await api.rest.v1.statuses.create({ ...params, scheduledAt } as mastodon.rest.v1.CreateScheduledStatusParams)) as unknown as mastodon.v1.ScheduledStatus;
    return { kind: 'scheduled', scheduled };
  }
  const status = await api.rest.v1.statuses.create(params as mastodon.rest.v1.CreateStatusParams);
  return { kind: 'status', status };
}

/**
 * Puts a new or edited post into the cache so that it shows at once: on top of the home timeline
 * (a direct message too, as Mastodon's home feed has them), as the post itself, and an edit
 * wherever the post is shown.
 */
export function cachePosted(qc: QueryClient, status: Status, edited: boolean): void {
  qc.setQueryData(['status', status.id], status);
  if (edited) {
    updateStatusEverywhere(qc, status.id, () => status);
    return;
  }
  qc.setQueryData<InfiniteData<Status[], string | undefined>>(['timeline', 'home'], (data) => {
    if (!data || data.pages.flat().some((x) => x.id === status.id)) return data;
    return { ...data, pages: [[status, ...(data.pages[0] ?? [])], ...data.pages.slice(1)] };
  });
}
