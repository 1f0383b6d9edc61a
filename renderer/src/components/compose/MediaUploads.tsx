import type { JSX } from 'preact';
import type { Upload } from './media';

/** Keeps a number within -1..1 with two decimals. */
function clampFocus(n: number): number {
  if (!Number.isFinite(n)) return 0;
  return Math.round(Math.min(1, Math.max(-1, n)) * 100) / 100;
}

/**
 * The attachments of a post being written: each with its upload progress bar (a `progressbar`
 * named "Uploading NAME"), then its preview, where a click sets the focal point (also as two
 * numbers), its alt text, and a button to remove it.
 */
export function MediaUploads(props: { uploads: Upload[]; onChange: (key: string, patch: Partial<Upload>) => void; onRemove: (key: string) => void; descriptionLimit: number }): JSX.Element | null {
  if (props.uploads.length === 0) return null;
  return (
    <ul class="compose-media" aria-label="Attachments">
      {props.uploads.map((u, i) => (
        <li key={u.key} class="compose-media-item">
          {u.state === 'uploading' && (
            <div class="compose-progress">
              <span aria-hidden="true">Uploading {u.name}</span>
              <progress aria-label={`Uploading ${u.name}`} max={100} value={Math.round(u.progress * 100)} />
            </div>
          )}
          {u.state === 'processing' && (
            <p role="status" class="compose-processing">
              Processing {u.name}…
            </p>
          )}
          {u.state === 'failed' && (
            <p role="alert" class="error">
              {u.name}: {u.error}
            </p>
          )}
          {u.state === 'ready' && (
            <div class="compose-media-ready">
              <FocusPicker upload={u} index={i} onChange={(x, y) => props.onChange(u.key, { focusX: x, focusY: y, dirty: true })} />
              <div class="compose-media-fields">
                <label for={`alt-${u.key}`}>Alt text for attachment {i + 1}</label>
                <textarea
                  id={`alt-${u.key}`}
                  rows={2}
                  maxLength={props.descriptionLimit}
                  value={u.description}
                  onInput={(e) => props.onChange(u.key, { description: e.currentTarget.value, dirty: true })}
                />
                <fieldset class="compose-focus">
                  <legend>Focal point of attachment {i + 1}</legend>
                  <label for={`fx-${u.key}`}>Horizontal (-1 left, 1 right)</label>
                  <input
                    id={`fx-${u.key}`}
                    type="number"
                    min={-1}
                    max={1}
                    step={0.01}
                    value={u.focusX}
                    onChange={(e) => props.onChange(u.key, { focusX: clampFocus(e.currentTarget.valueAsNumber), dirty: true })}
                  />
                  <label for={`fy-${u.key}`}>Vertical (-1 bottom, 1 top)</label>
                  <input
                    id={`fy-${u.key}`}
                    type="number"
                    min={-1}
                    max={1}
                    step={0.01}
                    value={u.focusY}
                    onChange={(e) => props.onChange(u.key, { focusY: clampFocus(e.currentTarget.valueAsNumber), dirty: true })}
                  />
                </fieldset>
              </div>
            </div>
          )}
          <button type="button" onClick={() => props.onRemove(u.key)} aria-label={`Remove attachment ${i + 1}`}>
            Remove
          </button>
        </li>
      ))}
    </ul>
  );
}

/** The preview; clicking a spot makes it the focal point (the marker shows where it is). */
function FocusPicker(props: { upload: Upload; index: number; onChange: (x: number, y: number) => void }): JSX.Element {
  const u = props.upload;
  const onClick = (e: MouseEvent) => {
    const box = (e.currentTarget as HTMLElement).getBoundingClientRect();
    // A keyboard "click" has no position: it keeps the current point.
    if (e.detail === 0 || box.width === 0 || box.height === 0) return;
    const x = ((e.clientX - box.left) / box.width) * 2 - 1;
    const y = 1 - ((e.clientY - box.top) / box.height) * 2;
    props.onChange(clampFocus(x), clampFocus(y));
  };
  return (
    <button
      type="button"
      class="compose-focus-picker"
      // A number computed here, set through the CSSOM (allowed by the CSP), never a style string.
      style={u.aspect ? { aspectRatio: String(Math.min(4, Math.max(0.5, u.aspect))) } : undefined}
      aria-label={`Set the focal point of attachment ${props.index + 1}`} onClick={onClick}>
      {u.previewUrl ? <img src={u.previewUrl} alt="" draggable={false} /> : <span class="compose-media-type">{u.type}</span>}
      <span class="compose-focus-marker" aria-hidden="true" style={{ left: `${((u.focusX + 1) / 2) * 100}%`, top: `${((1 - u.focusY) / 2) * 100}%` }} />
    </button>
  );
}
