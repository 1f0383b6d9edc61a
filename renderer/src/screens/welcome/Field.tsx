import type { JSX } from 'preact';

/**
 * A labelled text input with the instance's message about it shown underneath and announced
 * with the field (aria-describedby, aria-invalid).
 */
export function Field(props: {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  error?: string | undefined;
  type?: 'text' | 'email' | 'password' | 'url';
  autoComplete?: string;
  hint?: string;
  required?: boolean;
  multiline?: boolean;
}): JSX.Element {
  const errorId = `${props.id}-error`;
  const hintId = `${props.id}-hint`;
  const describedBy = [props.hint ? hintId : '', props.error ? errorId : ''].filter(Boolean).join(' ') || undefined;
  const common = {
    id: props.id,
    value: props.value,
    required: props.required ?? true,
    'aria-invalid': props.error ? true : undefined,
    'aria-describedby': describedBy,
  };
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.hint && (
        <p class="field-hint" id={hintId}>
          {props.hint}
        </p>
      )}
      {props.multiline ? (
        <textarea {...common} rows={3} onInput={(e) => props.onInput(e.currentTarget.value)} />
      ) : (
        <input {...common} type={props.type ?? 'text'} autoComplete={props.autoComplete} onInput={(e) => props.onInput(e.currentTarget.value)} />
      )}
      {props.error && (
        <p class="field-error" id={errorId}>
          {props.error}
        </p>
      )}
    </div>
  );
}
