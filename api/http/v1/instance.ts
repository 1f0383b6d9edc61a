import { extendedDescription, privacyPolicy, termsOfService, type RenderedTerms } from '../../core/instance/documents.js';
import { currentInstanceView, instanceLimits, publicDomainBlocks } from '../../core/instance/info.js';
import { supportedLanguages } from '../../core/instance/languages.js';
import { listRules } from '../../core/instance/rules.js';
import { getInstanceSetting } from '../../core/instance/settings.js';
import { knownPeers, weeklyActivity } from '../../core/instance/stats.js';
import { DEFAULT_THUMBNAIL_PATH, defaultThumbnailPng } from '../../core/instance/thumbnail.js';
import { toMastodonInstanceV1, type InstanceView } from '../../serializers/instance.js';
import { toMastodonRule } from '../../serializers/rule.js';
import { isoTime } from '../../util/clock.js';
import { notFound, unauthorized } from '../../util/errors.js';
import { JsonText, Reply, type Routes } from '../routes.js';

/** Mastodon answers a switched-off API with a bare 404: no body at all. */
const DISABLED = new Reply(404, undefined);

function toMastodonTerms(terms: RenderedTerms) {
  return { effective_date: terms.effectiveDate, effective: terms.effective, content: terms.html, succeeded_by: terms.succeededBy };
}

// The v1 entity rendered once per loaded instance view (see currentInstanceView).
const renderedV1 = new WeakMap<InstanceView, JsonText>();

/**
 * Instance information (`/api/v1/instance` and its sub-resources). All are public: no token
 * needed, but a token that is given must be valid. The default thumbnail is served here too.
 */
export function register(r: Routes): void {
  r.get('/api/v1/instance', 'public', [], (ctx) => {
    const view = currentInstanceView(ctx.deps);
    let body = renderedV1.get(view);
    if (!body) {
      body = new JsonText(JSON.stringify(toMastodonInstanceV1(view, instanceLimits(), ctx.deps.uris)));
      renderedV1.set(view, body);
    }
    return body;
  });

  r.get('/api/v1/instance/peers', 'public', [], (ctx) => (ctx.deps.config.peersApi ? knownPeers(ctx.deps) : DISABLED));

  r.get('/api/v1/instance/activity', 'public', [], (ctx) => (ctx.deps.config.activityApi ? weeklyActivity(ctx.deps) : DISABLED));

  r.get('/api/v1/instance/rules', 'public', [], (ctx) => listRules(ctx.deps).map(toMastodonRule));

  r.get('/api/v1/instance/privacy_policy', 'public', [], (ctx) => {
    const policy = privacyPolicy(ctx.deps);
    return { updated_at: isoTime(policy.updatedAt), content: policy.html };
  });

  r.get('/api/v1/instance/terms_of_service', 'public', [], (ctx) => {
    const terms = termsOfService(ctx.deps);
    if (!terms) throw notFound();
    return toMastodonTerms(terms);
  });

  r.get('/api/v1/instance/terms_of_service/:date', 'public', [], (ctx) => {
    const date = String(ctx.input.date ?? '');
    const terms = /^\d{4}-\d{2}-\d{2}$/.test(date) ? termsOfService(ctx.deps, date) : null;
    if (!terms) throw notFound();
    return toMastodonTerms(terms);
  });

  r.get('/api/v1/instance/extended_description', 'public', [], (ctx) => {
    const about = extendedDescription(ctx.deps);
    return { updated_at: about.updatedAt === null ? null : isoTime(about.updatedAt), content: about.html };
  });

  r.get('/api/v1/instance/languages', 'public', [], () => supportedLanguages());

  // Hearth has no translation engine: no language pairs.
  r.get('/api/v1/instance/translation_languages', 'public', [], () => ({}));

  r.get('/api/v1/instance/domain_blocks', 'public', [], (ctx) => {
    const visibility = getInstanceSetting(ctx.deps, 'show_domain_blocks');
    if (visibility === 'disabled') return DISABLED;
    if (visibility === 'users' && !ctx.auth?.user) throw unauthorized('This method requires an authenticated user');
    return publicDomainBlocks(ctx.deps);
  });

  r.get(DEFAULT_THUMBNAIL_PATH, 'none', [], (ctx) => {
    ctx.res.type('image/png').set('Cache-Control', 'public, max-age=86400').send(defaultThumbnailPng());
  });
}

