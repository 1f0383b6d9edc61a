/**
 * Webhook body templates (Mastodon 4.3's custom payload templates): the text of the template with
 * each `{{path}}` replaced by the value at that path of the payload (`event`, `created_at`,
 * `object.username`, `object.media_attachments.0.url`, …). Values are written JSON-escaped, so a
 * template such as `{"content": "New sign-up: {{object.username}}"}` stays valid JSON: strings
 * without their quotes, numbers and booleans as they are, objects and arrays as JSON, and
 * anything missing or null as nothing.
 */

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)\s*\}\}/g;

/** The longest template accepted. */
export const MAX_TEMPLATE_LENGTH = 10_000;

/** Whether a template is well-formed: every `{{` opens a placeholder naming a path, closed by `}}`. */
export function templateIsValid(template: string): boolean {
  if (template.length > MAX_TEMPLATE_LENGTH) return false;
  const rest = template.replace(PLACEHOLDER, '');
  return !rest.includes('{{') && !rest.includes('}}');
}

/** The value at a dotted path of a document (array members by their index). */
function valueAt(document: unknown, path: string): unknown {
  let here: unknown = document;
  for (const segment of path.split('.')) {
    if (Array.isArray(here) && /^\d+$/.test(segment)) here = here[Number(segment)];
    else if (here !== null && typeof here === 'object' && !Array.isArray(here)) here = (here as Record<string, unknown>)[segment];
    else return undefined;
  }
  return here;
}

/** A value as it goes into the template's text. */
function written(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return JSON.stringify(value).slice(1, -1);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** Renders a template against a payload (see the module comment). */
export function renderTemplate(template: string, payload: unknown): string {
  return template.replace(PLACEHOLDER, (_whole, path: string) => written(valueAt(payload, path)));
}
