import { scopeInfo } from '../../core/oauth/scopes.js';
import { html, type SafeHtml } from '../../util/html-template.js';

/** What the consent page shows and carries back on submit. */
export interface ConsentPage {
  appName: string;
  appWebsite: string | null;
  /** `@alice@kim.example`. */
  handle: string;
  scopes: readonly string[];
  csrfToken: string;
  /** The authorization request, sent back as hidden fields. */
  params: {
    client_id: string;
    redirect_uri: string;
    scope: string;
    state: string | undefined;
    code_challenge: string | null;
    code_challenge_method: string | null;
  };
  /** The same request with `force_login`, to switch accounts. */
  switchAccountUrl: string;
}

/**
 * The authorization form: the app, the account it would act for, every requested scope with its
 * description (dangerous ones marked), and Authorize / Deny buttons posting to `/oauth/authorize`.
 */
export function consentPage(p: ConsentPage): SafeHtml {
  const hidden = (name: string, value: string | null | undefined) =>
    value === null || value === undefined ? null : html`<input type="hidden" name="${name}" value="${value}">\n`;
  const scopes = p.scopes.map((scope) => {
    const info = scopeInfo(scope);
    return html`<li class="${info.dangerous ? 'scope dangerous-scope' : 'scope'}" data-scope="${scope}">
${info.dangerous ? html`<span class="dangerous" title="This permission allows changes that are hard to undo">⚠ Dangerous:</span> ` : null}${info.description}
<br><code>${scope}</code></li>\n`;
  });
  return html`<h1>Authorize ${p.appName}?</h1>
<p><strong>${p.appName}</strong>${p.appWebsite ? html` (<span class="muted">${p.appWebsite}</span>)` : null} wants to use your account <strong>${p.handle}</strong>.
<a href="${p.switchAccountUrl}">Use another account</a></p>
<p>It asks for these permissions:</p>
<ul class="scopes">
${scopes}</ul>
<form method="post" action="/oauth/authorize">
<input type="hidden" name="csrf_token" value="${p.csrfToken}">
<input type="hidden" name="response_type" value="code">
${hidden('client_id', p.params.client_id)}${hidden('redirect_uri', p.params.redirect_uri)}${hidden('scope', p.params.scope)}${hidden('state', p.params.state)}${hidden('code_challenge', p.params.code_challenge)}${hidden('code_challenge_method', p.params.code_challenge_method)}<div class="actions">
<button type="submit" name="decision" value="approve">Authorize</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</div>
</form>
<p class="muted">Only authorize apps you trust.</p>`;
}
