let origin: string | null = null;

/**
 * The instance's public origin, from the page's `hearth-origin` meta tag (the server writes it):
 * with one, the API builds media URLs on it, and the page's CSP allows loading from there.
 */
function publicOrigin(): string {
  origin ??= document.querySelector<HTMLMetaElement>('meta[name="hearth-origin"]')?.content ?? '';
  return origin;
}

/**
 * The URL of a picture or medium only when the instance itself serves it (or it is inline data).
 * The API gives a remote server's URL for what it has not copied yet (a remote avatar, an
 * attachment still in the media cache's queue); the app's CSP would block loading it, so the
 * app does not even try: the placeholder (blurhash, background) stays instead.
 */
export function localMediaUrl(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url, location.href);
    if (parsed.origin === location.origin || parsed.origin === publicOrigin() || parsed.protocol === 'data:' || parsed.protocol === 'blob:') return parsed.href;
  } catch {
    // Not a URL at all: nothing to load.
  }
  return undefined;
}
