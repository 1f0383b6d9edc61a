import type { ComponentChildren, JSX } from 'preact';
import { ErrorRetry } from './ErrorRetry';

/*
 * Small pieces every settings and staff screen shares: the loading and error states of a query,
 * and a section with its heading.
 */

/** A query's state: loading (role=status), failed (the reason and "Try again"), or its content. */
export function QueryState(props: { query: { isPending: boolean; isError: boolean; error: unknown; refetch: () => unknown }; label: string; children: () => ComponentChildren }): JSX.Element {
  const q = props.query;
  if (q.isPending) return <p role="status">Loading {props.label}…</p>;
  if (q.isError)
    return (
      <ErrorRetry error={q.error} onRetry={() => q.refetch()} />
    );
  return <>{props.children()}</>;
}

/** A titled part of a screen (an `<h2>` that names the region). */
export function Section(props: { title: string; children: ComponentChildren }): JSX.Element {
  const id = `section-${props.title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <section aria-labelledby={id} class="settings-section">
      <h2 id={id}>{props.title}</h2>
      {props.children}
    </section>
  );
}

/** A sub-navigation of sections, as links (the current one marked `aria-current`). */
export function SubNav(props: { label: string; base: string; current: string; sections: { id: string; label: string }[] }): JSX.Element {
  return (
    <nav aria-label={props.label} class="sub-nav">
      <ul>
        {props.sections.map((s) => (
          <li key={s.id}>
            <a href={`${props.base}/${s.id}`} aria-current={s.id === props.current ? 'page' : undefined}>
              {s.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** Builds a form body from a flat record (arrays as `name[]`), skipping undefined values. */
export function formBody(values: Record<string, string | Blob | boolean | undefined | string[]>): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) form.append(`${key}[]`, v);
    else if (value instanceof Blob) form.append(key, value, key);
    else form.append(key, String(value));
  }
  return form;
}
