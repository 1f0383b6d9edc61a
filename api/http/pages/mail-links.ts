import { html, type SafeHtml } from '../../util/html-template.js';

/** The form that asks for a password reset link: the e-mail address of the login. */
export function passwordRequestPage(p: { csrfToken: string; domain: string; email?: string | undefined; error?: string | undefined }): SafeHtml {
  return html`<h1>Forgot your password?</h1>
<p>Enter the e-mail address of your account on ${p.domain}, and we will send you a link to choose a new password.</p>
${p.error ? html`<p class="error" role="alert">${p.error}</p>` : null}
<form method="post" action="/auth/password">
<input type="hidden" name="csrf_token" value="${p.csrfToken}">
<label for="email">E-mail address</label>
<input type="email" id="email" name="email" value="${p.email ?? ''}" autocomplete="email" required autofocus>
<div class="actions"><button type="submit">Send the link</button></div>
</form>`;
}

/** The form behind a password reset link: the new password, twice. */
export function passwordEditPage(p: { csrfToken: string; code: string; error?: string | undefined }): SafeHtml {
  return html`<h1>Choose a new password</h1>
${p.error ? html`<p class="error" role="alert">${p.error}</p>` : null}
<form method="post" action="/auth/password/edit">
<input type="hidden" name="csrf_token" value="${p.csrfToken}">
<input type="hidden" name="reset_password_token" value="${p.code}">
<label for="password">New password</label>
<input type="password" id="password" name="password" autocomplete="new-password" minlength="8" maxlength="72" required autofocus>
<label for="password_confirmation">Confirm new password</label>
<input type="password" id="password_confirmation" name="password_confirmation" autocomplete="new-password" minlength="8" maxlength="72" required>
<p class="muted">Changing your password signs you out of every app.</p>
<div class="actions"><button type="submit">Change password</button></div>
</form>`;
}
