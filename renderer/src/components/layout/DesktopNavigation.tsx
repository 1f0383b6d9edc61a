import { useEffect } from 'preact/hooks';
import { useLocation } from 'preact-iso';

/**
 * In the desktop app, follows the main process's `navigate` events (a clicked notification, a
 * `web+ap://` link, the app menu) with the app's own router, so the page is not reloaded. Only
 * paths of the app itself are followed. In a browser there is no bridge and this does nothing.
 */
export function DesktopNavigation(): null {
  const { route } = useLocation();
  useEffect(() => {
    const bridge = typeof window !== 'undefined' ? window.hearthDesktop : undefined;
    if (!bridge) return;
    return bridge.on('navigate', (path) => {
      if (typeof path === 'string' && path.startsWith('/') && !path.startsWith('//')) route(path);
    });
  }, [route]);
  return null;
}
