import type { RuleRow } from '../db/repos/instance.js';

/** Mastodon's Rule entity. */
export interface Rule {
  /** The rule's id as a string. */
  id: string;
  text: string;
  /** Longer explanation; empty when none. */
  hint: string;
  /** Translations by locale; Hearth keeps rules in one language, so always empty. */
  translations: Record<string, { text: string; hint: string }>;
}

/** A server rule as clients see it. */
export function toMastodonRule(row: RuleRow): Rule {
  return { id: row.id, text: row.text, hint: row.hint, translations: {} };
}
