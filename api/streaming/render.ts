import type { Deps } from '../core/deps.js';
import { filterResultsFor, loadActiveFilters } from '../core/filters/active.js';
import { QUOTE_FLAGS, quotePermission } from '../core/statuses/quote-policy.js';
import { loadStatusViews, type StatusView } from '../core/statuses/views.js';
import { viewerFlagsAmong, type ViewerFlagsRow } from '../db/repos/streaming.js';
import type { FilterContext, MastodonFilterResult } from '../serializers/filter.js';
import { toMastodonStatus } from '../serializers/status.js';
import { Payload } from './message.js';

/**
 * Statuses rendered for streaming, once per event: the Status entity as an anonymous viewer sees
 * it is serialized once (public and hashtag streams send it as is, with `filtered` added for
 * viewers who have filters, as Mastodon's streaming server does). Per-viewer payloads (home,
 * lists) append the viewer's flags and filter results to that same text: the REST serializer
 * writes the flags last, so the result is byte for byte what REST answers for that viewer; the
 * QuoteApproval's `current_user` is set for the viewer in the same text. Only statuses with a poll
 * (whose `voted`/`own_votes` are per viewer), a quote (the quoted status has the viewer's flags and
 * state), or a quote policy that depends on who follows whom are rendered per viewer in full.
 */

const bool = (v: number | undefined) => (v === 1 ? 'true' : 'false');
// A marker that JSON.stringify keeps as one unique string literal, to cut the reblog out.
const REBLOG_SLOT = '\u0001reblog\u0001';
// The anonymous QuoteApproval's `current_user`; quotes inside strings are escaped, so only the entity has it.
const ANONYMOUS_QUOTE_USER = '"current_user":"denied"';
const NO_RELATION = { followsAuthor: false, followedByAuthor: false };

/** The hide/warn decision of a viewer's filters for one status in one context. */
export interface FilterDecision {
  /** The `filtered` attribute (all matching filters, any context, as REST reports them). */
  results: MastodonFilterResult[];
  /** A `hide` filter of this context matched: the status is not sent at all. */
  hidden: boolean;
}

/** Whether filter results hide a status in a context (hide action, filter applying to that context). */
export function hiddenIn(results: readonly MastodonFilterResult[], context: FilterContext): boolean {
  return results.some((r) => r.filter.filter_action === 'hide' && r.filter.context.includes(context));
}

/** A status prepared for one event. */
export class StatusRender {
  /** The anonymous Status JSON. */
  readonly anonymous: Payload;
  private readonly flagsTargetId: string;
  private readonly flagsConversationId: string | null;
  /** Rendered per viewer in full (see the class comment). */
  private readonly perViewer: boolean;
  /** The head around the status's QuoteApproval `current_user` value, to set it per viewer. */
  private readonly quoteUserSlot: { before: Payload; after: Payload } | null = null;
  /**
   * Per-viewer payloads are `head` + flags, or for a reblog `head` + the reblogged status's flags +
   * `middle` + the reblog's flags.
   */
  private readonly pieces: { head: Payload; middle: Payload | null };
  private anonymousHead: Payload | undefined;

  private constructor(
    private readonly deps: Deps,
    readonly view: StatusView,
  ) {
    const entity = toMastodonStatus(view, deps.uris);
    const json = JSON.stringify(entity);
    this.anonymous = Payload.of(json);
    const proper = view.reblog ?? view;
    this.flagsTargetId = proper.status.id;
    this.flagsConversationId = proper.status.conversation_id;
    const relational = ((proper.quotePolicy.automatic | proper.quotePolicy.manual) & (QUOTE_FLAGS.followers | QUOTE_FLAGS.following)) !== 0;
    // A sensitized author's statuses are sensitive for everyone but the author (toMastodonStatus).
    const sensitized = proper.author.sensitized_at !== null && proper.status.sensitive === 0;
    let perViewer = proper.poll !== null || proper.quote !== null || relational || sensitized;
    if (entity.reblog) {
      const wrapper = JSON.stringify({ ...entity, reblog: REBLOG_SLOT });
      const at = wrapper.indexOf(JSON.stringify(REBLOG_SLOT));
      const inner = JSON.stringify(entity.reblog);
      this.pieces = {
        head: Payload.of(wrapper.slice(0, at) + inner.slice(0, -1)),
        middle: Payload.of(wrapper.slice(at + JSON.stringify(REBLOG_SLOT).length, -1)),
      };
    } else {
      this.pieces = { head: Payload.of(json.slice(0, -1)), middle: null };
    }
    const head = this.pieces.head.text;
    const at = head.indexOf(ANONYMOUS_QUOTE_USER);
    if (at >= 0 && at === head.lastIndexOf(ANONYMOUS_QUOTE_USER)) {
      const value = at + ANONYMOUS_QUOTE_USER.length - '"denied"'.length;
      this.quoteUserSlot = { before: Payload.of(head.slice(0, value)), after: Payload.of(head.slice(value + '"denied"'.length)) };
    } else {
      perViewer = true;
    }
    this.perViewer = perViewer;
  }

  /** Loads and renders a status; null when it is gone. */
  static load(deps: Deps, statusId: string): StatusRender | null {
    const view = loadStatusViews(deps, [statusId], null).get(statusId);
    return view ? new StatusRender(deps, view) : null;
  }

  /** The status row (the reblog wrapper for a reblog). */
  get status(): StatusView['status'] {
    return this.view.status;
  }

  /** The viewer's filter results and whether they hide the status in `context`. */
  filterDecision(viewerId: string, context: FilterContext): FilterDecision {
    const results = filterResultsFor(this.deps, viewerId, null, [this.view]).get(this.view.status.id) ?? [];
    return { results, hidden: hiddenIn(results, context) };
  }

  /**
   * The payload of a public or hashtag stream for a viewer: the anonymous status, with `filtered`
   * when the viewer has filters; null when one of them hides it in the `public` context.
   */
  forPublicViewer(viewerId: string): Payload | null {
    if (loadActiveFilters(this.deps, viewerId).length === 0) return this.anonymous;
    const decision = this.filterDecision(viewerId, 'public');
    if (decision.hidden) return null;
    this.anonymousHead ??= Payload.of(this.anonymous.text.slice(0, -1));
    return this.anonymousHead.concat(`,"filtered":${JSON.stringify(decision.results)}}`);
  }

  /**
   * Payloads with each viewer's flags and filter results, as REST renders the status for them
   * (home feeds, lists); a viewer whose `hide` filter of `context` matches gets null.
   */
  forViewers(viewerIds: readonly string[], context: FilterContext): Map<string, Payload | null> {
    const out = new Map<string, Payload | null>();
    if (viewerIds.length === 0) return out;
    const flags = new Map<string, ViewerFlagsRow>();
    if (!this.perViewer) for (const row of viewerFlagsAmong(this.deps.db, this.flagsTargetId, this.flagsConversationId, viewerIds)) flags.set(row.account_id, row);
    for (const viewerId of viewerIds) {
      const decision = this.filterDecision(viewerId, context);
      if (decision.hidden) {
        out.set(viewerId, null);
        continue;
      }
      out.set(viewerId, this.perViewer ? this.renderInFull(viewerId, decision.results) : this.compose(viewerId, flags.get(viewerId), decision.results));
    }
    return out;
  }

  private compose(viewerId: string, row: ViewerFlagsRow | undefined, results: readonly MastodonFilterResult[]): Payload {
    const filtered = `,"filtered":${JSON.stringify(results)}`;
    const common = `,"favourited":${bool(row?.f)},"reblogged":${bool(row?.r)},"muted":${bool(row?.m)},"bookmarked":${bool(row?.b)}`;
    const proper = this.view.reblog ?? this.view;
    // `pinned` only where the viewer could pin: their own status, not a reblog, not direct.
    const pinnable = proper.status.account_id === viewerId && proper.status.visibility !== 'direct';
    const properFlags = `${common}${pinnable ? `,"pinned":${bool(row?.p)}` : ''}${filtered}}`;
    // Who may quote it, for this viewer (the author always; others as its policy says).
    const quoteUser = quotePermission(proper.status, proper.quotePolicy, viewerId, NO_RELATION);
    const head = quoteUser === 'denied' || !this.quoteUserSlot ? this.pieces.head : this.quoteUserSlot.before.concat(`"${quoteUser}"`, this.quoteUserSlot.after);
    if (this.pieces.middle === null) return head.concat(properFlags);
    // A reblog reports the flags of the reblogged status, without `pinned`.
    return head.concat(properFlags, this.pieces.middle, `${common}${filtered}}`);
  }

  private renderInFull(viewerId: string, results: readonly MastodonFilterResult[]): Payload {
    const view = loadStatusViews(this.deps, [this.view.status.id], viewerId).get(this.view.status.id);
    if (!view) return this.anonymous;
    const entity = toMastodonStatus(view, this.deps.uris);
    const reblog = entity.reblog ? { ...entity.reblog, filtered: results } : null;
    return Payload.of(JSON.stringify({ ...entity, reblog, filtered: results }));
  }
}
