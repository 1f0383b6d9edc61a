import type { ComponentChildren, JSX } from 'preact';
import { useLocation } from 'preact-iso';
import { useApi } from '../../instance/client';
import { AccountMenu } from './AccountMenu';
import { Shortcuts } from './Shortcuts';
import { useUnreadNotifications } from './unread';

const LINKS: { href: string; label: string }[] = [
  { href: '/', label: 'Home' },
  { href: '/notifications', label: 'Notifications' },
  { href: '/explore', label: 'Explore' },
  { href: '/public/local', label: 'Local' },
  { href: '/public', label: 'Federated' },
  { href: '/search', label: 'Search' },
  { href: '/people', label: 'People' },
  { href: '/bookmarks', label: 'Bookmarks' },
  { href: '/favourites', label: 'Favourites' },
  { href: '/lists', label: 'Lists' },
  { href: '/scheduled', label: 'Scheduled posts' },
  { href: '/settings', label: 'Settings' },
  { href: '/connection', label: 'Connection' },
];

/**
 * The frame of the signed-in app: the main navigation (with the unread notification count), the
 * account menu (switch between family accounts, add one, sign out), a skip link, and the screen.
 */
export function Shell(props: { children: ComponentChildren }): JSX.Element {
  const { path } = useLocation();
  const api = useApi();
  const unread = useUnreadNotifications();
  return (
    <div class="shell">
      <a class="skip-link" href="#content">
        Skip to content
      </a>
      <header class="shell-header">
        <nav aria-label="Main">
          <ul>
            {LINKS.map((link) => {
              const current = link.href === '/' ? path === '/' : path === link.href || path.startsWith(`${link.href}/`);
              return (
                <li key={link.href}>
                  <a href={link.href} aria-current={current ? 'page' : undefined}>
                    {link.label}
                    {link.href === '/notifications' && unread > 0 && <span class="badge" aria-label={`${unread} unread`}>{unread > 99 ? '99+' : unread}</span>}
                  </a>
                </li>
              );
            })}
            <li>
              <a href={`/@${api.account.acct}`}>Profile</a>
            </li>
          </ul>
        </nav>
        <a class="compose-link button" href="/compose">
          New post
        </a>
        <AccountMenu />
      </header>
      <main id="content" tabIndex={-1}>
        {props.children}
      </main>
      <Shortcuts />
    </div>
  );
}
