import { Emoji, Image, Link, type Object as ApObject } from '@fedify/vocab';
import type { Deps } from '../core/deps.js';
import { saveRemoteEmojis, type RemoteEmojiData } from '../core/federation/remote-emojis.js';

/** An object whose tags can carry custom emojis: a Note, a Question, an actor. */
interface Tagged {
  getTags(): AsyncIterable<ApObject | Link>;
}

/**
 * The custom emojis an object declares (`Emoji` tags, as Mastodon and Misskey write them:
 * `name` `:shortcode:` and an embedded `icon` Image). Only embedded values are read.
 */
export async function emojiTagsOf(object: Tagged): Promise<RemoteEmojiData[]> {
  const out: RemoteEmojiData[] = [];
  for await (const tag of object.getTags()) {
    if (!(tag instanceof Emoji) || tag.name === null) continue;
    const icon = await tag.getIcon().catch(() => null);
    const url = icon instanceof Image ? (icon.url instanceof URL ? icon.url.href : icon.url instanceof Link ? (icon.url.href?.href ?? null) : null) : null;
    if (url) out.push({ shortcode: String(tag.name).replace(/^:|:$/g, ''), uri: tag.id?.href ?? null, url });
  }
  return out;
}

/** Stores the custom emojis an object from `domain` declares, so its text renders with them. */
export async function storeEmojiTags(deps: Deps, object: Tagged, domain: string): Promise<void> {
  saveRemoteEmojis(deps, domain, await emojiTagsOf(object).catch(() => []));
}
