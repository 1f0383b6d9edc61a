import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** A message shown at the bottom of the window: an error with a retry, or a confirmation. */
export interface Toast {
  id: number;
  text: string;
  retry?: (() => void) | undefined;
  kind: 'error' | 'info';
}

let next = 1;
let toasts: Toast[] = [];
const listeners = new Set<(t: Toast[]) => void>();

function publish(): void {
  for (const l of listeners) l(toasts);
}

/** Shows a message; errors stay until dismissed or retried, confirmations go after 5 s. */
export function toast(text: string, options: { retry?: () => void; kind?: 'error' | 'info' } = {}): void {
  const item: Toast = { id: next++, text, retry: options.retry, kind: options.kind ?? 'error' };
  toasts = [...toasts.slice(-3), item];
  publish();
  if (item.kind === 'info') setTimeout(() => dismiss(item.id), 5_000);
}

function dismiss(id: number): void {
  toasts = toasts.filter((t) => t.id !== id);
  publish();
}

/** The live region the messages appear in (announced by screen readers). */
export function Toasts(): JSX.Element {
  const [items, setItems] = useState(toasts);
  useEffect(() => {
    listeners.add(setItems);
    return () => void listeners.delete(setItems);
  }, []);
  return (
    <div class="toasts" role="region" aria-label="Messages">
      {items.map((t) => (
        <div key={t.id} class={`toast toast-${t.kind}`} role={t.kind === 'error' ? 'alert' : 'status'}>
          <span>{t.text}</span>
          {t.retry && (
            <button
              type="button"
              onClick={() => {
                dismiss(t.id);
                t.retry?.();
              }}
            >
              Retry
            </button>
          )}
          <button type="button" aria-label="Dismiss message" onClick={() => dismiss(t.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
