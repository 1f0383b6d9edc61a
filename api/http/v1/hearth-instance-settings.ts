import { requireOwner } from '../../core/federation/delivery-failures.js';
import { addCustomEmoji, listAllCustomEmojis, removeCustomEmoji } from '../../core/emojis/manage.js';
import { addRule, listRules, removeRule, updateRule } from '../../core/instance/rules.js';
import { setRegistrationMode } from '../../core/instance/registrations.js';
import { loadInstanceSettings, setInstanceSetting } from '../../core/instance/settings.js';
import { toMastodonCustomEmoji } from '../../serializers/custom-emoji.js';
import { toMastodonRule } from '../../serializers/rule.js';
import { unprocessable } from '../../util/errors.js';
import { bool, int, parse, required, str, z } from '../params.js';
import type { Routes, UserCtx } from '../routes.js';

const settingsSchema = z.object({
  title: str(200),
  short_description: str(2000),
  description: str(20_000),
  registrations: str(20),
});
const ruleSchema = z.object({ text: str(1000), hint: str(2000), position: int(0) });
const emojiSchema = z.object({ shortcode: str(100), category: str(100), visible_in_picker: bool() });

/** The owner's view of the instance's own settings. */
function settingsJson(ctx: UserCtx) {
  const s = loadInstanceSettings(ctx.deps);
  return {
    title: s.title,
    short_description: s.short_description,
    description: s.description,
    registrations: ctx.deps.config.registrations,
    rules: listRules(ctx.deps).map(toMastodonRule),
  };
}

function emojisJson(ctx: UserCtx) {
  return listAllCustomEmojis(ctx.deps).map((row) => ({ ...toMastodonCustomEmoji(row, ctx.deps.uris), disabled: row.disabled === 1 }));
}

/**
 * Hearth's own settings of the instance for its owner (Mastodon keeps these in its web admin,
 * with no API): `GET`/`PATCH /api/hearth/instance` (title, short description, description, and
 * how people may join), the server rules (`POST /api/hearth/instance/rules`, `PUT` and `DELETE`
 * `/api/hearth/instance/rules/:id`), and the custom emojis (`GET`/`POST /api/hearth/custom_emojis`
 * with a multipart `image`, `DELETE /api/hearth/custom_emojis/:shortcode`). Owner only (403 for
 * anyone else); the same storage the instance entity, the rules and the emojis are read from.
 */
export function register(r: Routes): void {
  r.get('/api/hearth/instance', 'user', ['admin:read'], (ctx) => {
    requireOwner(ctx.user);
    return settingsJson(ctx);
  });

  r.patch('/api/hearth/instance', 'user', ['admin:write'], (ctx) => {
    requireOwner(ctx.user);
    const p = parse(settingsSchema, ctx.input);
    // Everything is checked before anything is stored.
    if (p.title !== undefined && p.title.trim() === '') throw unprocessable("Title can't be blank");
    if (p.registrations !== undefined && !['open', 'approval', 'closed'].includes(p.registrations)) throw unprocessable('Registrations must be open, approval or closed');
    ctx.deps.db.transaction(() => {
      if (p.title !== undefined) setInstanceSetting(ctx.deps, 'title', p.title.trim());
      if (p.short_description !== undefined) setInstanceSetting(ctx.deps, 'short_description', p.short_description);
      if (p.description !== undefined) setInstanceSetting(ctx.deps, 'description', p.description);
    });
    if (p.registrations !== undefined) setRegistrationMode(ctx.deps, p.registrations);
    return settingsJson(ctx);
  });

  r.post('/api/hearth/instance/rules', 'user', ['admin:write'], (ctx) => {
    requireOwner(ctx.user);
    const p = parse(ruleSchema, ctx.input);
    return toMastodonRule(addRule(ctx.deps, { text: required(p.text, 'text'), hint: p.hint, position: p.position }));
  });

  r.put('/api/hearth/instance/rules/:id', 'user', ['admin:write'], (ctx) => {
    requireOwner(ctx.user);
    const p = parse(ruleSchema, ctx.input);
    return toMastodonRule(updateRule(ctx.deps, String(ctx.req.params.id ?? ''), { text: p.text, hint: p.hint, position: p.position }));
  });

  r.delete('/api/hearth/instance/rules/:id', 'user', ['admin:write'], (ctx) => {
    requireOwner(ctx.user);
    removeRule(ctx.deps, String(ctx.req.params.id ?? ''));
    return {};
  });

  r.get('/api/hearth/custom_emojis', 'user', ['admin:read'], (ctx) => {
    requireOwner(ctx.user);
    return emojisJson(ctx);
  });

  r.post('/api/hearth/custom_emojis', 'user', ['admin:write'], async (ctx) => {
    requireOwner(ctx.user);
    const p = parse(emojiSchema, ctx.input);
    const image = ctx.req.files?.image;
    if (!image) throw unprocessable("Image can't be blank");
    const row = await addCustomEmoji(ctx.deps, { shortcode: required(p.shortcode, 'shortcode').trim(), file: image.path, category: p.category, visibleInPicker: p.visible_in_picker });
    return toMastodonCustomEmoji(row, ctx.deps.uris);
  });

  r.delete('/api/hearth/custom_emojis/:shortcode', 'user', ['admin:write'], async (ctx) => {
    requireOwner(ctx.user);
    await removeCustomEmoji(ctx.deps, String(ctx.req.params.shortcode ?? ''));
    return {};
  });
}
