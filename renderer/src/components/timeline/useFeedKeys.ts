import { useEffect, useRef } from 'preact/hooks';
import { useLocation } from 'preact-iso';

/** True when a key press belongs to a text field (or any editable element), not to the feed. */
function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"]') !== null;
}

/**
 * The feed's keyboard shortcuts: j/k move focus to the next/previous post (`moveTo` scrolls the
 * virtualized list so the post exists), r replies, f favourites, b boosts, Enter opens the
 * thread, o opens the first attachment. Ignored while focus is in a text field, in a dialog, or
 * with a modifier key.
 */
export function useFeedKeys(feed: () => HTMLElement | null, count: number, moveTo: (index: number) => void): void {
  const { route } = useLocation();
  // Where a j/k press is taking focus (it lands a frame later): a quick second press counts from there.
  const pending = useRef<number | null>(null);
  useEffect(() => {
    const landed = () => {
      pending.current = null;
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
      if (e.target instanceof Element && e.target.closest('dialog')) return;
      const root = feed();
      if (!root) return;
      const current = e.target instanceof Element ? e.target.closest<HTMLElement>('article[data-status-id]') : null;
      const inFeed = current !== null && root.contains(current);
      const index = pending.current ?? (inFeed ? Number(current.getAttribute('aria-posinset') ?? '1') - 1 : -1);
      if (e.key === 'j' || e.key === 'k') {
        e.preventDefault();
        const next = e.key === 'j' ? index + 1 : Math.max(index - 1, 0);
        if (next < count) {
          pending.current = next;
          moveTo(next);
        }
        return;
      }
      if (!inFeed) return;
      const click = (name: string) => current.querySelector<HTMLButtonElement>(`:scope > .status-actions button[aria-label="${name}"]`)?.click();
      if (e.key === 'r') click('Reply');
      else if (e.key === 'f') click('Favourite');
      else if (e.key === 'b') click('Boost');
      else if (e.key === 'o') current.querySelector<HTMLButtonElement>('.media-open')?.click();
      else if (e.key === 'Enter' && e.target === current) {
        const link = current.querySelector<HTMLAnchorElement>(':scope > .status-header a.status-time');
        if (link) route(link.getAttribute('href') ?? '/');
      } else return;
      e.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('focusin', landed);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('focusin', landed);
    };
  }, [count, feed, moveTo, route]);
}
