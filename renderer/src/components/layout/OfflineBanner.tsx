import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/**
 * A banner while the browser is offline or the instance does not answer its health check
 * (checked every 15 s, and at once when the network comes back).
 */
export function OfflineBanner(): JSX.Element | null {
  const [online, setOnline] = useState(navigator.onLine);
  const [reachable, setReachable] = useState(true);
  useEffect(() => {
    let alive = true;
    const check = async () => {
      try {
        const res = await fetch('/health', { cache: 'no-store' });
        if (alive) setReachable(res.ok);
      } catch {
        if (alive) setReachable(false);
      }
    };
    const up = () => {
      setOnline(true);
      void check();
    };
    const down = () => setOnline(false);
    window.addEventListener('online', up);
    window.addEventListener('offline', down);
    const timer = setInterval(() => void check(), 15_000);
    return () => {
      alive = false;
      clearInterval(timer);
      window.removeEventListener('online', up);
      window.removeEventListener('offline', down);
    };
  }, []);
  if (online && reachable) return null;
  return (
    <div class="offline-banner" role="alert">
      {online ? 'Hearth cannot reach the instance. It may have stopped; trying again…' : 'You are offline. Posts will load again when the connection is back.'}
    </div>
  );
}
