import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';

const listeners = new Set<() => void>();
let timer: number | null = null;

/** One shared clock that ticks every 30 s while any relative time is on screen. */
function useNow(): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const tick = () => setNow(Date.now());
    listeners.add(tick);
    timer ??= window.setInterval(() => {
      for (const l of listeners) l();
    }, 30_000);
    return () => {
      listeners.delete(tick);
      if (listeners.size === 0 && timer !== null) {
        clearInterval(timer);
        timer = null;
      }
    };
  }, []);
  return now;
}

/** "now", "5m", "3h", "2d", then a date: short, as Mastodon clients show it. */
export function relativeTime(iso: string, now: number): string {
  const then = Date.parse(iso);
  const seconds = Math.round((now - then) / 1000);
  if (Math.abs(seconds) < 45) return 'now';
  if (seconds < 0) {
    const m = Math.round(-seconds / 60);
    return m < 60 ? `in ${m}m` : m < 1440 ? `in ${Math.round(m / 60)}h` : `in ${Math.round(m / 1440)}d`;
  }
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours}h`;
  const days = Math.round(hours / 24);
  if (days < 7) return `${days}d`;
  const date = new Date(then);
  const sameYear = date.getFullYear() === new Date(now).getFullYear();
  return date.toLocaleDateString(undefined, sameYear ? { month: 'short', day: 'numeric' } : { year: 'numeric', month: 'short', day: 'numeric' });
}

/** A `<time>` that keeps its relative label current, with the full date for assistive technology and on hover. */
export function RelativeTime(props: { iso: string }): JSX.Element {
  const now = useNow();
  const full = new Date(props.iso).toLocaleString();
  return (
    <time dateTime={props.iso} title={full} aria-label={full}>
      {relativeTime(props.iso, now)}
    </time>
  );
}
