import { getUserSettings } from '../../core/accounts/settings.js';
import type { Routes } from '../routes.js';

/** `GET /api/v1/preferences`: the signed-in user's posting defaults and reading preferences. */
export function register(r: Routes): void {
  r.get('/api/v1/preferences', 'user', ['read:accounts'], (ctx) => {
    const s = getUserSettings(ctx.user);
    return {
      'posting:default:visibility': s.default_privacy,
      'posting:default:sensitive': s.default_sensitive,
      // A language code, or null when none was chosen (never an empty string).
      'posting:default:language': s.default_language,
      'posting:default:quote_policy': s.default_quote_policy,
      'reading:expand:media': s.expand_media,
      'reading:expand:spoilers': s.expand_spoilers,
      'reading:autoplay:gifs': s.autoplay_gifs,
    };
  });
}
