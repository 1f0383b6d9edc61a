import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { Dialog } from '../dialog/Dialog';

/** Whether a key press belongs to a text field (then no shortcut applies). */
export function typingInField(event: KeyboardEvent): boolean {
  const target = event.target as HTMLElement | null;
  if (!target) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName) || target.closest('dialog') !== null;
}

/** The shortcuts the help lists: the app-wide ones here, the feed's in the timeline. */
const KEYS: [string, string][] = [
  ['n', 'Write a new post'],
  ['/', 'Search'],
  ['?', 'Show this help'],
  ['j', 'Next post'],
  ['k', 'Previous post'],
  ['Enter', 'Open the post'],
  ['r', 'Reply to the post'],
  ['f', 'Favourite the post'],
  ['b', 'Boost the post'],
  ['o', 'Open the post’s media'],
  ['Escape', 'Close a dialog'],
];

/**
 * App-wide keyboard shortcuts: n opens the composer, / the search, ? this help (a dialog). The
 * feed's own keys (j/k, Enter, r, f, b, o) live with the timeline.
 */
export function Shortcuts(): JSX.Element | null {
  const { route } = useLocation();
  const [help, setHelp] = useState(false);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey || typingInField(event)) return;
      if (event.key === 'n') {
        event.preventDefault();
        route('/compose');
      } else if (event.key === '/') {
        event.preventDefault();
        route('/search');
      } else if (event.key === '?') {
        event.preventDefault();
        setHelp(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [route]);
  if (!help) return null;
  return (
    <Dialog title="Keyboard shortcuts" onClose={() => setHelp(false)}>
      <table class="shortcuts">
        <caption class="visually-hidden">Keys and what they do</caption>
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {KEYS.map(([key, action]) => (
            <tr key={key}>
              <td>
                <kbd>{key}</kbd>
              </td>
              <td>{action}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Dialog>
  );
}
