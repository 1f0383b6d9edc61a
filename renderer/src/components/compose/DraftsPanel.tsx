import type { JSX } from 'preact';
import type { Draft } from './drafts';

function preview(d: Draft): string {
  const text = (d.spoilerText ? `${d.spoilerText}: ` : '') + d.text;
  return text.length > 80 ? `${text.slice(0, 80)}…` : text || '(poll)';
}

/**
 * The drafts kept on this device: the newest one for what is being written is offered with
 * "Restore draft"; every draft can be opened or deleted from the list.
 */
export function DraftsPanel(props: { drafts: Draft[]; offer: Draft | null; onRestore: (d: Draft) => void; onDelete: (d: Draft) => void }): JSX.Element | null {
  if (props.drafts.length === 0) return null;
  return (
    <div class="compose-drafts">
      {props.offer && (
        <p class="compose-draft-offer" role="status">
          You have an unfinished post: “{preview(props.offer)}”{' '}
          <button type="button" onClick={() => props.offer && props.onRestore(props.offer)}>
            Restore draft
          </button>
        </p>
      )}
      <details>
        <summary>Drafts ({props.drafts.length})</summary>
        <ul aria-label="Drafts">
          {props.drafts.map((d) => (
            <li key={d.id}>
              <span class="compose-draft-text">{preview(d)}</span>{' '}
              <time dateTime={d.updatedAt}>{new Date(d.updatedAt).toLocaleString()}</time>{' '}
              <button type="button" aria-label={`Open draft: ${preview(d)}`} onClick={() => props.onRestore(d)}>
                Open
              </button>{' '}
              <button type="button" aria-label={`Delete draft: ${preview(d)}`} onClick={() => props.onDelete(d)}>
                Delete
              </button>
            </li>
          ))}
        </ul>
      </details>
    </div>
  );
}
