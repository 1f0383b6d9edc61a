import { insertEmojiRow } from '../../db/repos/instance.js';
import { findRemoteEmoji, setRemoteEmojiImage } from '../../db/repos/remote-emojis.js';
import { now } from '../../util/clock.js';
import { newId } from '../../util/ids.js';
import { isEmojiShortcode } from '../../util/text/emoji.js';
import type { Deps } from '../deps.js';

/** A custom emoji a remote object declares in its tags (`Emoji` with `name` and `icon`). */
export interface RemoteEmojiData {
  /** Without colons. */
  shortcode: string;
  uri: string | null;
  url: string;
}

/** How many emojis one object may declare (Mastodon caps what it reads, too). */
const MAX_EMOJIS = 64;

/**
 * Stores the custom emojis a remote status or actor declares, keyed by shortcode and the author's
 * domain (as statuses and accounts look them up when rendered): new ones are added, known ones
 * follow a changed image. Shortcodes that are not valid and non-http(s) images are ignored.
 */
export function saveRemoteEmojis(deps: Deps, domain: string, emojis: readonly RemoteEmojiData[]): void {
  const valid = emojis.filter((e) => isEmojiShortcode(e.shortcode) && /^https?:\/\//i.test(e.url)).slice(0, MAX_EMOJIS);
  if (valid.length === 0) return;
  const at = now();
  deps.db.transaction(() => {
    for (const e of valid) {
      const known = findRemoteEmoji(deps.db, e.shortcode, domain);
      if (!known) {
        insertEmojiRow(deps.db, {
          id: newId(at),
          shortcode: e.shortcode,
          domain,
          uri: e.uri,
          image_file: null,
          static_file: null,
          image_remote_url: e.url,
          category: null,
          visible_in_picker: 0,
          disabled: 0,
          created_at: at,
          updated_at: at,
        });
      } else if (known.image_remote_url !== e.url) {
        setRemoteEmojiImage(deps.db, known.id, e.uri, e.url, at);
      }
    }
  });
}
