import { EventEmitter } from 'node:events';

/**
 * Typed in-process events. Core emits them after a change has committed; federation, streaming,
 * notifications and push subscribe. Each area adds its events to `EventMap`.
 */
export interface EventMap {
  'account.created': { accountId: string };
  'account.updated': { accountId: string };
  /** A local account moved to another account (api/core/accounts/move.ts): federation sends Move. */
  'account.moved': { accountId: string; targetAccountId: string; migrationId: string };
  /**
   * Staff deleted a suspended local account's data (core/admin/accounts-action.ts): federation
   * sends Delete of the actor to the remote accounts that followed it or that it followed
   * (`remoteAccountIds`, read before the follows went).
   */
  'account.data_deleted': { accountId: string; remoteAccountIds: string[] };
  'user.signed_up': { userId: string; accountId: string; approved: boolean };
  /** A moderator approved a pending sign-up (core/admin/accounts.ts). */
  'user.approved': { userId: string; accountId: string };
  /**
   * A moderator took an action against an account (a warning, or strike, was recorded; see
   * core/admin/accounts-action.ts). `notify`: the target is local and the moderator asked for an
   * e-mail (Mastodon then mails the user and sends a `moderation_warning` notification).
   */
  'account.warned': { warningId: string; accountId: string; targetAccountId: string; action: string; notify: boolean };
  'token.revoked': { tokenId: string; userId: string | null };
  'status.created': { statusId: string; accountId: string };
  'status.updated': { statusId: string; accountId: string };
  /**
   * `reblogOf` names the reblogged status (its URI and author) as it was when the reblog went: an
   * Undo(Announce) must name it even when both went together. `inReplyToAccountId`: the author of
   * the status it answered (the Delete reaches them as the Create did).
   */
  'status.deleted': {
    statusId: string;
    accountId: string;
    uri: string;
    visibility: 'public' | 'unlisted' | 'private' | 'direct';
    mentionedAccountIds: string[];
    reblogOfId: string | null;
    reblogOf: { uri: string; accountId: string } | null;
    inReplyToAccountId: string | null;
  };
  'favourite.created': { favouriteId: string; statusId: string; accountId: string };
  'favourite.deleted': { favouriteId: string; statusId: string; accountId: string };
  'reblog.created': { statusId: string; reblogOfId: string; accountId: string };
  'reblog.deleted': { statusId: string; reblogOfId: string; accountId: string };
  'pin.created': { statusId: string; accountId: string };
  'pin.deleted': { statusId: string; accountId: string };
  'poll.ended': { pollId: string; statusId: string };
  'poll.voted': { pollId: string; statusId: string; accountId: string; choices: number[] };
  /** A local poll's tallies changed through a remote vote (federation sends the new counts). */
  'poll.tallied': { pollId: string; statusId: string; voterAccountId: string };
  /** `fromRequest`: the follow came from an authorized request (no new follow notification then). */
  'follow.created': { followId: string; accountId: string; targetAccountId: string; fromRequest?: boolean };
  'follow.deleted': { followId: string; accountId: string; targetAccountId: string };
  'follow_request.created': { followRequestId: string; accountId: string; targetAccountId: string };
  'follow_request.deleted': { followRequestId: string; accountId: string; targetAccountId: string };
  'follow_request.authorized': { followRequestId: string; followId: string; accountId: string; targetAccountId: string };
  'follow_request.rejected': { followRequestId: string; accountId: string; targetAccountId: string };
  'block.created': { blockId: string; accountId: string; targetAccountId: string };
  'block.deleted': { blockId: string; accountId: string; targetAccountId: string };
  'mute.created': { muteId: string; accountId: string; targetAccountId: string };
  'mute.deleted': { muteId: string; accountId: string; targetAccountId: string };
  'domain_block.created': { accountId: string; domain: string };
  'domain_block.deleted': { accountId: string; domain: string };
  'filters.changed': { accountId: string };
  'notification.created': { notificationId: string; accountId: string; type: string };
  /** Accepted notification requests' notifications were merged into the account's notifications. */
  'notifications.merged': { accountId: string };
  'tag.followed': { accountId: string; tagId: string };
  'tag.unfollowed': { accountId: string; tagId: string };
  /** A local account featured a hashtag (`name` as stored); federation sends Add(Hashtag). */
  'featured_tag.created': { accountId: string; name: string };
  /** A local account stopped featuring a hashtag; federation sends Remove(Hashtag). */
  'featured_tag.deleted': { accountId: string; name: string };
  /** A curator featured an account in their collection (core/collections/items.ts): it is told of it. */
  'collection_item.added': { itemId: string; collectionId: string; curatorId: string; accountId: string };
  'report.created': { reportId: string; accountId: string; targetAccountId: string };
  /** Staff changed a report (category, rules, assignee, resolved or reopened): webhooks send `report.updated`. */
  'report.updated': { reportId: string };
  // Quote posts (core/statuses/quotes*.ts).
  /** A quote was accepted (at once, or when its quoted author approved it). */
  'quote.accepted': { quoteId: string; statusId: string; accountId: string; quotedStatusId: string; quotedAccountId: string };
  /** An accepted quote was revoked by its quoted author; `approvalUri` names the withdrawn authorization. */
  'quote.revoked': { quoteId: string; statusId: string; accountId: string; quotedStatusId: string | null; quotedAccountId: string | null; approvalUri: string | null };
  /** A status that quoted another was deleted (the quoted status has one quote less). */
  'quote.deleted': { quoteId: string; statusId: string; quotedStatusId: string | null };
  /** A remote status's quote is pending: its quoted status may need fetching, its authorization checking. */
  'quote.pending': { quoteId: string; statusId: string };
  /** A status's quote policy changed without an edit (federation sends a local one again). */
  'status.quote_policy_updated': { statusId: string; accountId: string };
  // Announcements (core/announcements): what the user streams send.
  /** An announcement was published, or edited while published (`announcement` event). */
  'announcement.published': { announcementId: string };
  /** An announcement users saw was unpublished, ended or deleted (`announcement.delete` event). */
  'announcement.deleted': { announcementId: string };
  /** A reaction to an announcement was added or removed (`announcement.reaction` event with the new count). */
  'announcement.reaction': { announcementId: string; name: string };
  /** The owner paused or resumed federation (core/federation/pause.ts): deliveries and the relay tunnel follow. */
  'federation.paused': { paused: boolean };
}

export type EventName = keyof EventMap;

/** A typed wrapper over EventEmitter; listeners that throw are reported, never break the emitter. */
export class Events {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(100);
  }

  /** Emits after commit; a failing listener is logged and does not affect the caller. */
  emit<K extends EventName>(name: K, payload: EventMap[K]): void {
    for (const listener of this.emitter.listeners(name)) {
      try {
        (listener as (p: EventMap[K]) => void)(payload);
      } catch (err) {
        console.error(`event listener for ${name} failed`, err);
      }
    }
  }

  on<K extends EventName>(name: K, listener: (payload: EventMap[K]) => void): () => void {
    this.emitter.on(name, listener);
    return () => this.emitter.off(name, listener);
  }
}
