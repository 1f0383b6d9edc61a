import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/**
 * A modal dialog on the native `<dialog>`: `showModal` traps focus inside and makes the rest of
 * the page inert, Escape closes it, and focus returns to where it was when it closes. Its name
 * comes from its title.
 */
export function Dialog(props: { title: string; onClose: () => void; children: ComponentChildren; class?: string }): JSX.Element {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    return () => {
      if (dialog.open) dialog.close();
      previous?.focus();
    };
  }, []);
  const titleId = `dialog-title-${props.title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <dialog
      ref={ref}
      class={props.class ?? 'dialog'}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        props.onClose();
      }}
    >
      <header class="dialog-header">
        <h2 id={titleId}>{props.title}</h2>
        <button type="button" aria-label="Close" onClick={props.onClose}>
          ×
        </button>
      </header>
      {props.children}
    </dialog>
  );
}
