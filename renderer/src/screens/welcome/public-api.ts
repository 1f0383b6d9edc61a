import { ApiFailure } from '../../instance/client';

/**
 * The calls the signed-out screens make without a user token: the instance's public description,
 * the first-run endpoints and sign-up. Failures keep the instance's message, its HTTP status and,
 * for a form the instance refused (422), which field each message belongs to.
 */

/** A refused request with the instance's messages per field (Mastodon's `details`). */
export class FormFailure extends ApiFailure {
  constructor(
    message: string,
    status: number,
    readonly fields: Record<string, string>,
  ) {
    super(message, status);
  }
}

/** How the fields are called in the messages shown under them. */
const LABELS: Record<string, string> = {
  username: 'Username',
  email: 'E-mail address',
  password: 'Password',
  password_confirmation: 'Password confirmation',
  reason: 'Reason',
};

/** The field names of a sign-up or setup form, as the instance names them in its messages. */
const FIELD_WORDS: [RegExp, string][] = [
  [/^username\b/i, 'username'],
  [/^e-?mail\b/i, 'email'],
  [/^password confirmation\b/i, 'password_confirmation'],
  [/^password\b/i, 'password'],
  [/^reason\b/i, 'reason'],
  [/^agreement\b/i, 'agreement'],
];

/**
 * Which field each of the instance's messages is about: `details` when it gave them (as
 * `POST /api/v1/accounts` does), otherwise the field the message starts with ("Username is taken").
 */
export function fieldMessages(body: unknown, message: string): Record<string, string> {
  const out: Record<string, string> = {};
  const details = body && typeof body === 'object' && 'details' in body ? body.details : null;
  if (details && typeof details === 'object') {
    for (const [field, list] of Object.entries(details as Record<string, unknown>)) {
      if (!Array.isArray(list)) continue;
      const words = list.map((d: unknown) => (d && typeof d === 'object' && 'description' in d && typeof d.description === 'string' ? d.description : '')).filter(Boolean);
      // Mastodon's descriptions leave out the field ("has already been taken"): name it, as the page does.
      if (words.length) out[field] = `${LABELS[field] ?? ''} ${words.join(', ')}`.trim();
    }
    if (Object.keys(out).length) return out;
  }
  for (const part of message.replace(/^Validation failed: /, '').split(/, (?=[A-Z])/)) {
    const found = FIELD_WORDS.find(([pattern]) => pattern.test(part));
    if (found && !out[found[1]]) out[found[1]] = part;
  }
  return out;
}

/** A JSON request to the instance (no user token); throws FormFailure with the instance's words. */
export async function requestJson<T>(path: string, init: { method?: string; body?: unknown; token?: string } = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  const res = await fetch(path, { method: init.method ?? 'GET', headers, body: init.body === undefined ? null : JSON.stringify(init.body) });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!res.ok) {
    const message = body && typeof body === 'object' && 'error' in body && typeof body.error === 'string' ? body.error : res.statusText;
    throw new FormFailure(message, res.status, res.status === 422 ? fieldMessages(body, message) : {});
  }
  return body as T;
}

/** `GET /api/hearth/setup`: whether the first run is still to do, and whether this browser may do it. */
export interface SetupState {
  needed: boolean;
  allowed: boolean;
}

/** What the signed-out screens show of `GET /api/v2/instance`. */
export interface InstanceInfo {
  title: string;
  description: string;
  domain: string;
  registrations: { enabled: boolean; approval_required: boolean; reason_required?: boolean; message: string | null };
  configuration?: { accounts?: { max_pinned_statuses?: number } };
}

/** One of the instance's rules (`GET /api/v1/instance/rules`). */
export interface Rule {
  id: string;
  text: string;
  hint?: string;
}
