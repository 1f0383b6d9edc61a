import { AsyncLocalStorage } from 'node:async_hooks';
import { announcementReactionPayload, streamedAnnouncement } from '../core/announcements/stream.js';
import type { Deps } from '../core/deps.js';
import type { Hub } from './hub.js';
import { Outgoing, Payload } from './message.js';

/**
 * Announcements on the `user` stream, as Mastodon sends them to every signed-in user's timeline
 * channel: `announcement` (the entity, rendered for nobody: no `read`, no `me`) when one is
 * published or edited while published, `announcement.reaction` (name, count, announcement_id) when
 * a reaction is added or removed, and `announcement.delete` (its id) when it is withdrawn. Events
 * are sent on a later turn of the event loop, after the answer that caused them; by then an
 * announcement that was deleted meanwhile gets no more `announcement` or reaction events.
 */
export function installAnnouncementStreaming(deps: Deps, hub: Hub): () => void {
  // Rendered outside the request that caused them, with the URLs the hub expects (see dispatch.ts).
  const outside = AsyncLocalStorage.snapshot();
  const later = (task: () => Outgoing | null) => {
    if (!hub.active || hub.user.size === 0) return;
    setImmediate(() =>
      outside(() => {
        if (!deps.db.raw.open) return;
        try {
          const message = task();
          if (message) toEveryUser(hub, message);
        } catch (err) {
          console.error('streaming: an announcement event could not be delivered', err);
        }
      }),
    );
  };
  const offs = [
    deps.events.on('announcement.published', ({ announcementId }) =>
      later(() => {
        const entity = streamedAnnouncement(deps, announcementId);
        return entity ? new Outgoing('announcement', Payload.of(JSON.stringify(entity))) : null;
      }),
    ),
    deps.events.on('announcement.reaction', ({ announcementId, name }) =>
      later(() => {
        const payload = announcementReactionPayload(deps, announcementId, name);
        return payload ? new Outgoing('announcement.reaction', Payload.of(JSON.stringify(payload))) : null;
      }),
    ),
    deps.events.on('announcement.deleted', ({ announcementId }) => later(() => new Outgoing('announcement.delete', Payload.of(announcementId)))),
  ];
  return () => offs.forEach((off) => off());
}

/** One message to every `user` subscription (one encoding of it, shared). */
function toEveryUser(hub: Hub, message: Outgoing): void {
  for (const accountId of hub.user.keys()) {
    for (const sub of [...(hub.user.get(accountId) ?? [])]) hub.send(sub, message);
  }
}
