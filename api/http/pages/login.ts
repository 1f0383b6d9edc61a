import { html, type SafeHtml } from '../../util/html-template.js';

/** What the login page shows. */
export interface LoginPage {
  csrfToken: string;
  /** Local path to return to after signing in. */
  returnTo: string;
  /** The login typed before (never the password). */
  login?: string | undefined;
  error?: string | undefined;
  /** The app asking, when the login is part of an authorization. */
  appName?: string | undefined;
  instanceDomain: string;
}

/** The sign-in form: username or e-mail and password, posting to `/auth/sign_in`. */
export function loginPage(p: LoginPage): SafeHtml {
  return html`<h1>Sign in to ${p.instanceDomain}</h1>
${p.appName ? html`<p>Sign in to continue to <strong>${p.appName}</strong>.</p>` : null}
${p.error ? html`<p class="error" role="alert">${p.error}</p>` : null}
<form method="post" action="/auth/sign_in">
<input type="hidden" name="csrf_token" value="${p.csrfToken}">
<input type="hidden" name="return_to" value="${p.returnTo}">
<label for="login">Username or e-mail address</label>
<input type="text" id="login" name="login" value="${p.login ?? ''}" autocomplete="username" autocapitalize="none" spellcheck="false" required autofocus>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<div class="actions"><button type="submit">Sign in</button></div>
</form>
<p class="muted"><a href="/auth/password/new">Forgot your password?</a></p>`;
}
