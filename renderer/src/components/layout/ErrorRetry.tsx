import type { JSX } from 'preact';
import { describeError } from '../../instance/errors';

/**
 * A failure shown where its content would be: what went wrong in words a person understands
 * (`describeError`), and a "Try again" button. `what` names the part that failed, when the screen
 * shows several.
 */
export function ErrorRetry(props: { error: unknown; onRetry: () => unknown; what?: string }): JSX.Element {
  return (
    <div class="error" role="alert">
      <p>
        {props.what ? `${props.what}: ` : ''}
        {describeError(props.error)}
      </p>
      <button type="button" onClick={() => void props.onRetry()}>
        Try again
      </button>
    </div>
  );
}
