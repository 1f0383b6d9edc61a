/**
 * Whether a reaction name is a Unicode emoji. Mastodon accepts the emojis of its web client's
 * emoji map; the nearest standard set is Unicode's recommended emoji (RGI: single emojis, skin
 * tones, flags, keycaps and ZWJ sequences), as the JavaScript engine knows them. The variation
 * selector U+FE0F is optional, as clients send emojis both with and without it.
 */
const RGI_EMOJI = new RegExp('^\\p{RGI_Emoji}$', 'v');
const VARIATION_SELECTOR = /\uFE0F/g;

/** True when `name` is one Unicode emoji (with or without its variation selectors). */
export function isUnicodeEmoji(name: string): boolean {
  if (name === '' || name.length > 64) return false;
  if (RGI_EMOJI.test(name)) return true;
  const bare = name.replace(VARIATION_SELECTOR, '');
  return bare !== '' && (RGI_EMOJI.test(bare) || RGI_EMOJI.test(`${bare}\uFE0F`));
}
