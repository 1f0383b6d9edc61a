import { listCustomEmojis } from '../../core/instance/info.js';
import { toMastodonCustomEmoji, type CustomEmoji } from '../../serializers/custom-emoji.js';
import type { Routes } from '../routes.js';

/** `GET /api/v1/custom_emojis`: the instance's own enabled emojis. Public. */
export function register(r: Routes): void {
  r.get('/api/v1/custom_emojis', 'public', [], (ctx) =>
    listCustomEmojis(ctx.deps)
      .map((row) => toMastodonCustomEmoji(row, ctx.deps.uris))
      .filter((emoji): emoji is CustomEmoji => emoji !== null),
  );
}
