import { ApiError } from '../../util/errors.js';

/** Mastodon's per-attribute validation details (`{"title": [{"error": "ERR_BLANK", …}]}`). */
export type ValidationDetails = Record<string, { error: string; description: string }[]>;

/**
 * Collects validation problems the way Rails reports them: every problem becomes part of one
 * message ("Validation failed: Title can't be blank, Context …") and of `details` per attribute,
 * and nothing is written unless the whole request is valid. Used by lists and filters.
 */
export class Problems {
  private readonly messages: string[] = [];
  private readonly details: ValidationDetails = {};

  /**
   * Records a problem of `attribute` (as named in `details`); `label` is its human name in the
   * message (Rails' humanized attribute, '' for a problem of the record as a whole).
   */
  add(attribute: string, label: string, code: string, description: string): this {
    this.messages.push(label ? `${label} ${description}` : description);
    (this.details[attribute] ??= []).push({ error: code, description });
    return this;
  }

  /** Records "can't be blank". */
  blank(attribute: string, label: string): this {
    return this.add(attribute, label, 'ERR_BLANK', "can't be blank");
  }

  /** Records "is too long (maximum is N characters)". */
  tooLong(attribute: string, label: string, max: number): this {
    return this.add(attribute, label, 'ERR_TOO_LONG', `is too long (maximum is ${max} characters)`);
  }

  /** True when nothing was recorded. */
  get ok(): boolean {
    return this.messages.length === 0;
  }

  /** Throws the 422 when anything was recorded. */
  throwIfAny(): void {
    if (this.ok) return;
    throw new ApiError(422, `Validation failed: ${this.messages.join(', ')}`, { extra: { details: this.details } });
  }
}

/** Length in characters (code points), as Rails counts length limits. */
export function charLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** Rails' `blank?` for a string: empty or only whitespace. */
export function isBlank(text: string | null | undefined): boolean {
  return text === null || text === undefined || text.trim() === '';
}
