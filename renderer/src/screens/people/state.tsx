import type { JSX } from 'preact';
import { describeError } from '../../instance/errors';

/** Loading, error with "Try again", or empty: the states every list of this screen has. */
export function ListState(props: { isPending: boolean; error: unknown; empty: boolean; emptyText: string; retry: () => void }): JSX.Element | null {
  if (props.isPending)
    return (
      <p class="loading" role="status">
        Loading…
      </p>
    );
  if (props.error)
    return (
      <div class="error" role="alert">
        <p>{describeError(props.error)}</p>
        <button type="button" onClick={props.retry}>
          Try again
        </button>
      </div>
    );
  if (props.empty) return <p class="empty">{props.emptyText}</p>;
  return null;
}
