/**
 * Custom emoji shortcodes as Mastodon recognises them in statuses, display names and bios:
 * `:name:` with two or more letters, digits or underscores, not glued to other letters, digits
 * or colons. The text keeps the shortcode; clients swap in the picture from the `emojis` list.
 */
const SHORTCODE = /(?<![\p{L}\p{N}:]):([a-zA-Z0-9_]{2,}):(?![\p{L}\p{N}:])/gu;

/** The distinct shortcodes used in some texts (plain text or HTML), in order of appearance. */
export function extractEmojiShortcodes(...texts: string[]): string[] {
  const found = new Set<string>();
  for (const text of texts) for (const match of text.matchAll(SHORTCODE)) if (match[1]) found.add(match[1]);
  return [...found];
}

/** Whether a string can be a custom emoji's shortcode. */
export function isEmojiShortcode(value: string): boolean {
  return /^[a-zA-Z0-9_]{2,}$/.test(value);
}
