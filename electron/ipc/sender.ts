/*
 * Who sent an IPC call. Every handler answers only the app itself: the main frame of a page at
 * the instance's local origin. A page of another origin that got into the window somehow, a
 * `file:` page, `about:blank`, a data: or blob: document (their origin is opaque), or any
 * subframe (even one of the app's own origin: the app has none) is refused.
 */

/** The frame an IPC call came from, as the main process knows it. */
export interface Sender {
  /** The URL of the sending frame ('' when the frame is gone). */
  frameUrl: string;
  /** Whether it is the window's top-level frame. */
  isMainFrame: boolean;
}

/** The part of Electron's `WebFrameMain` the check needs (`event.senderFrame`). */
export interface FrameLike {
  readonly url: string;
  readonly parent: unknown;
}

/** The sender of an Electron IPC event (`event.senderFrame`, which is null once the frame is gone). */
export function senderFromFrame(frame: FrameLike | null | undefined): Sender {
  if (!frame) return { frameUrl: '', isMainFrame: false };
  return { frameUrl: frame.url, isMainFrame: frame.parent === null };
}

/** The origin of a URL, or null when it has none a page could share (opaque, unparsable). */
export function originOf(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  return parsed.origin;
}

/**
 * Why a sender is refused, or null when it is the app: the main frame of a page whose origin is
 * exactly `appOrigin` (the instance's local origin; null while no server runs, refusing all).
 */
export function senderRefusal(sender: Sender, appOrigin: string | null): string | null {
  if (!appOrigin) return 'the instance is not running';
  const expected = originOf(appOrigin);
  if (!expected) return 'the instance has no web origin';
  if (!sender.isMainFrame) return 'the call came from a subframe';
  const origin = originOf(sender.frameUrl);
  if (!origin) return `the sending page has no web origin (${sender.frameUrl.split(/[?#]/)[0] || 'no URL'})`;
  if (origin !== expected) return `the sending page is not the app (${origin})`;
  return null;
}
