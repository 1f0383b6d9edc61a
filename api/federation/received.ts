import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The JSON of the activity an inbox listener is handling, exactly as it was received and verified.
 * Fedify's typed objects drop what its vocabulary does not model (blurhash, focalPoint, and
 * PropertyValue fields from senders that do not declare schema.org), so listeners read those from
 * here. The queue worker runs each message inside `withQueueMessage`; Fedify's inbox messages carry
 * the original JSON of the activity, enqueued only after its signature was verified.
 */
const current = new AsyncLocalStorage<unknown>();

/** Runs a queue message's handler with the message available to `receivedActivity`. */
export function withQueueMessage<T>(message: unknown, fn: () => T): T {
  return current.run(message, fn);
}

function record(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** The received JSON of the activity with this id, when the current message carries it. */
export function receivedActivity(id: URL | null): Record<string, unknown> | null {
  const message = record(current.getStore());
  const activity = message?.type === 'inbox' ? record(message.activity) : null;
  return activity && id && activity.id === id.href ? activity : null;
}

/** The received JSON of an activity's embedded object with this id (null when only referenced). */
export function receivedObject(activityId: URL | null, objectId: URL | null): Record<string, unknown> | null {
  const object = record(receivedActivity(activityId)?.object);
  return object && objectId && object.id === objectId.href ? object : null;
}
