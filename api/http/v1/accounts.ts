import { credentialAccount, getAccountForApi, getAccountsForApi, lookupAccount } from '../../core/accounts/read.js';
import { registerAccount } from '../../core/accounts/register.js';
import { updateCredentials } from '../../core/accounts/update.js';
import { prepareProfileImages, settleProfileImages } from '../../core/media/profile-images.js';
import { toMastodonAccount } from '../../serializers/account.js';
import { requestAddress } from '../middleware/client-address.js';
import { ApiError } from '../../util/errors.js';
import { arrayOf, bool, str, z } from '../params.js';
import type { Ctx, Routes, UserCtx } from '../routes.js';

/**
 * Validates input like `parse`, but a failure names the offending attribute in `details`, as
 * Mastodon's validation errors do (clients such as the sign-up forms show them per field).
 */
function parseWithDetails<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details: Record<string, { error: string; description: string }[]> = {};
  const messages: string[] = [];
  for (const issue of result.error.issues) {
    const attribute = issue.path.map(String).join('.') || 'base';
    (details[attribute] ??= []).push({ error: 'ERR_INVALID', description: 'is invalid' });
    messages.push(`${attribute} is invalid`);
  }
  throw new ApiError(422, `Validation failed: ${messages.join(', ')}`, { cause: result.error, extra: { details } });
}

// A value given as text; numbers are read as their decimal text, null as absent.
const text = str();

const updateSchema = z.object({
  display_name: text,
  note: text,
  locked: bool(),
  bot: bool(),
  discoverable: bool(),
  hide_collections: bool(),
  indexable: bool(),
  fields_attributes: arrayOf(z.object({ name: text, value: text })),
  attribution_domains: arrayOf(z.string()),
  source: z
    .preprocess(
      (v) => (v === null || v === '' ? undefined : v),
      z
        .object({
          privacy: text,
          sensitive: bool(),
          // null or '' clears the default language.
          language: z.preprocess((v) => (v === null ? '' : v), z.string().optional()),
          quote_policy: text,
        })
        .optional(),
    )
    .optional(),
});

/** A scalar as Rails permits one (text, number, boolean), as text; anything else is not permitted. */
function permittedScalar(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/**
 * `fields_attributes` as Rails' `permit(fields_attributes: [:name, :value])` leaves it: an entry
 * that is not a name/value object is dropped, and so are a `name` or `value` that are not plain
 * values, instead of failing the whole update. A key a form repeats (`…[0][name]` twice) keeps its
 * last value, as Rack parses forms. Anything but a list or an object of entries is left as given
 * (the schema refuses it).
 */
function permittedFields(raw: unknown, fromForm: boolean): unknown {
  if (raw === undefined || raw === null || raw === '' || typeof raw !== 'object') return raw;
  const entries = Array.isArray(raw)
    ? raw
    : Object.keys(raw)
        .sort((a, b) => Number(a) - Number(b))
        .map((k) => (raw as Record<string, unknown>)[k]);
  const pick = (value: unknown): string | undefined => {
    if (fromForm && Array.isArray(value)) return permittedScalar(value.at(-1));
    return permittedScalar(value);
  };
  return entries.flatMap((entry) => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return [];
    const { name, value } = entry as Record<string, unknown>;
    return [{ name: pick(name), value: pick(value) }];
  });
}

const registrationSchema = z.object({
  username: text,
  email: text,
  password: text,
  agreement: bool(),
  locale: text,
  reason: text,
  invite_code: text,
});

const idList = arrayOf(z.union([z.string(), z.number()]).transform(String));

/** `PATCH /api/v1/accounts/update_credentials` (also PUT): profile, avatar and header, posting defaults. */
async function updateHandler(ctx: UserCtx) {
  const fromForm = ctx.req.rawForm !== undefined;
  const p = parseWithDetails(updateSchema, { ...ctx.input, fields_attributes: permittedFields(ctx.input.fields_attributes, fromForm) });
  // Avatar and header files are processed and stored first; they are kept only if the rest saves.
  const files = ctx.req.files ?? {};
  const images = await prepareProfileImages(ctx.deps, ctx.account, { avatar: files.avatar, header: files.header });
  let saved = false;
  try {
    updateCredentials(ctx.deps, ctx.user, {
      display_name: p.display_name,
      note: p.note,
      locked: p.locked,
      bot: p.bot,
      discoverable: p.discoverable,
      hide_collections: p.hide_collections,
      indexable: p.indexable,
      fields: p.fields_attributes,
      attribution_domains: p.attribution_domains,
      source: p.source,
      images: images.change,
    });
    saved = true;
  } finally {
    await settleProfileImages(ctx.deps, images, saved);
  }
  return credentialAccount(ctx.deps, ctx.user.id);
}

/** `POST /api/v1/accounts`: sign-up by an app; answers a Token entity for the new user. */
async function registerHandler(ctx: Ctx) {
  // Mastodon's words (grammar slip included): sign-up takes an app's token, not a user's.
  if (ctx.auth?.user) throw new ApiError(403, 'This method requires an client credentials authentication');
  const p = parseWithDetails(registrationSchema, ctx.input);
  const auth = ctx.auth;
  const { token } = await registerAccount(
    ctx.deps,
    { applicationId: auth?.applicationId ?? null, scopes: auth ? [...auth.scopes] : [], ip: requestAddress(ctx.req) || null },
    { username: p.username, email: p.email, password: p.password, agreement: p.agreement, locale: p.locale, reason: p.reason, inviteCode: p.invite_code },
  );
  return {
    access_token: token.accessToken,
    token_type: 'Bearer',
    scope: token.row.scopes,
    created_at: Math.floor(token.row.created_at / 1000),
  };
}

/**
 * The accounts area (profiles, credentials, sign-up). Registered last among areas: the
 * `/api/v1/accounts/:id` pattern would otherwise catch literal paths such as
 * `/api/v1/accounts/relationships` registered by other areas.
 */
export function register(r: Routes): void {
  r.get('/api/v1/accounts/verify_credentials', 'user', ['profile', 'read:accounts'], (ctx) => credentialAccount(ctx.deps, ctx.user.id));
  r.patch('/api/v1/accounts/update_credentials', 'user', ['write:accounts'], updateHandler);
  r.put('/api/v1/accounts/update_credentials', 'user', ['write:accounts'], updateHandler);

  r.get('/api/v1/accounts/lookup', 'public', ['read:accounts'], (ctx) => {
    const acct = ctx.input.acct;
    return toMastodonAccount(lookupAccount(ctx.deps, typeof acct === 'string' ? acct : ''), ctx.deps.uris);
  });

  r.get('/api/v1/accounts', 'public', ['read:accounts'], (ctx) => {
    const { id } = parseWithDetails(z.object({ id: idList }), ctx.input);
    return getAccountsForApi(ctx.deps, id ?? []).map((view) => toMastodonAccount(view, ctx.deps.uris));
  });

  r.post('/api/v1/accounts', 'app', ['write:accounts'], registerHandler);

  r.get('/api/v1/accounts/:id', 'public', ['read:accounts'], (ctx) => toMastodonAccount(getAccountForApi(ctx.deps, String(ctx.input.id)), ctx.deps.uris));
}
