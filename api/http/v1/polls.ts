import { getPollForViewer } from '../../core/polls/read.js';
import { loadVisiblePoll, voteInPoll } from '../../core/polls/vote.js';
import { toMastodonPoll } from '../../serializers/poll.js';
import { now } from '../../util/clock.js';
import { arrayOf, parse, required, z } from '../params.js';
import type { Ctx, Routes } from '../routes.js';

const voteSchema = z.object({
  // Indices of the chosen options, as numbers or decimal strings (form bodies).
  choices: arrayOf(z.preprocess((v) => (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v), z.number().int())),
});

function showPoll(ctx: Ctx, pollId: string, viewerAccountId: string | null) {
  const { poll, viewer } = getPollForViewer(ctx.deps, pollId, viewerAccountId);
  return toMastodonPoll(poll, viewer, now());
}

/** `GET /api/v1/polls/:id` and `POST /api/v1/polls/:id/votes`. */
export function register(r: Routes): void {
  // Public when the poll's status is visible to the caller (anonymous included); 404 otherwise.
  r.get('/api/v1/polls/:id', 'public', ['read:statuses'], (ctx) =>
    showPoll(ctx, String(ctx.req.params.id ?? ''), ctx.auth?.account?.id ?? null),
  );

  r.post('/api/v1/polls/:id/votes', 'user', ['write:statuses'], (ctx) => {
    // A poll the voter may not see is 404 before its choices are looked at (Mastodon finds and
    // authorizes the poll in a before_action).
    loadVisiblePoll(ctx.deps, String(ctx.req.params.id ?? ''), ctx.account.id);
    const p = parse(voteSchema, ctx.input);
    const choices = required(p.choices && p.choices.length > 0 ? p.choices : undefined, 'choices');
    const pollId = voteInPoll(ctx.deps, ctx.account, String(ctx.req.params.id ?? ''), choices);
    return showPoll(ctx, pollId, ctx.account.id);
  });
}
