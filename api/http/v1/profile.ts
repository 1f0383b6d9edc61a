import { prepareProfileImages, settleProfileImages } from '../../core/media/profile-images.js';
import { getProfile, updateProfile } from '../../core/profile/profile.js';
import { arrayOf, bool, parse, str, z } from '../params.js';
import type { Routes, UserCtx } from '../routes.js';

// A profile field entry; anything that is not an object (a stray multipart value) is left out, as
// Rails leaves out what it cannot read as a hash.
const field = z.object({ name: str(), value: str() });
const fieldList = z.preprocess(
  (v) => (Array.isArray(v) ? v.filter((f) => typeof f === 'object' && f !== null) : v),
  z.array(field).optional(),
);

const profileSchema = z.object({
  display_name: str(),
  note: str(),
  avatar_description: str(),
  header_description: str(),
  locked: bool(),
  bot: bool(),
  discoverable: bool(),
  hide_collections: bool(),
  indexable: bool(),
  show_media: bool(),
  show_media_replies: bool(),
  show_featured: bool(),
  attribution_domains: arrayOf(z.string()),
  fields_attributes: z.preprocess((v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.values(v) : v), fieldList),
});

/** `PATCH /api/v1/profile`: what update_credentials changes, plus picture descriptions and profile tabs. */
async function updateHandler(ctx: UserCtx) {
  const p = parse(profileSchema, ctx.input);
  // Pictures are processed and stored first; they are kept only if the rest is saved.
  const files = ctx.req.files ?? {};
  const images = await prepareProfileImages(ctx.deps, ctx.account, { avatar: files.avatar, header: files.header });
  let saved = false;
  try {
    const profile = updateProfile(
      ctx.deps,
      ctx.user,
      {
        display_name: p.display_name,
        note: p.note,
        locked: p.locked,
        bot: p.bot,
        discoverable: p.discoverable,
        hide_collections: p.hide_collections,
        indexable: p.indexable,
        fields: p.fields_attributes,
        attribution_domains: p.attribution_domains,
        images: images.change,
      },
      {
        avatar_description: p.avatar_description,
        header_description: p.header_description,
        show_media: p.show_media,
        show_media_replies: p.show_media_replies,
        show_featured: p.show_featured,
      },
    );
    saved = true;
    return profile;
  } finally {
    await settleProfileImages(ctx.deps, images, saved);
  }
}

/**
 * The profile API (Mastodon 4.6): the signed-in user's profile as they edit it. Deleting the
 * avatar and the header is in profile-images.ts.
 */
export function register(r: Routes): void {
  r.get('/api/v1/profile', 'user', ['profile', 'read:accounts'], (ctx) => getProfile(ctx.deps, ctx.user));
  r.patch('/api/v1/profile', 'user', ['write:accounts'], updateHandler);
  // Rails routes the update of a resource by PUT too (masto.js uses it).
  r.put('/api/v1/profile', 'user', ['write:accounts'], updateHandler);
}
