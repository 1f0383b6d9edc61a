import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { Dialog } from './Dialog';

/**
 * Asking before something that cannot be undone, in a `Dialog`: `ask(title, text, action, run)`
 * opens it; the returned element must be rendered. The action's button runs `run`, Cancel or
 * Escape closes it.
 */
export function useConfirm(): [JSX.Element | null, (title: string, text: string, action: string, run: () => void) => void] {
  const [pending, setPending] = useState<{ title: string; text: string; action: string; run: () => void } | null>(null);
  const element = pending && (
    <Dialog title={pending.title} onClose={() => setPending(null)}>
      <p>{pending.text}</p>
      <div class="actions">
        <button
          type="button"
          class="primary"
          onClick={() => {
            setPending(null);
            pending.run();
          }}
        >
          {pending.action}
        </button>
        <button type="button" onClick={() => setPending(null)}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
  return [element, (title, text, action, run) => setPending({ title, text, action, run })];
}
