import { html, type SafeHtml } from '../../util/html-template.js';

/** What the first-run form shows. */
export interface SetupForm {
  csrfToken: string;
  /** The setup token from the URL, carried through the form (empty on loopback). */
  setupToken: string;
  instanceUrl: string;
  username?: string | undefined;
  email?: string | undefined;
  error?: string | undefined;
}

/** The first-run form that creates the owner account. */
export function setupFormPage(p: SetupForm): SafeHtml {
  return html`<h1>Welcome to Hearth</h1>
<p>Create the owner account of <strong>${p.instanceUrl}</strong>. This is your account: it can manage everything on this instance.</p>
${p.error ? html`<p class="error" role="alert">${p.error}</p>` : null}
<form method="post" action="/setup">
<input type="hidden" name="csrf_token" value="${p.csrfToken}">
<input type="hidden" name="token" value="${p.setupToken}">
<label for="username">Username</label>
<input type="text" id="username" name="username" value="${p.username ?? ''}" autocomplete="username" autocapitalize="none" spellcheck="false" maxlength="30" pattern="[A-Za-z0-9_]+" required autofocus>
<p class="muted">Letters, numbers and underscores. It cannot be changed later.</p>
<label for="email">E-mail address (optional)</label>
<input type="email" id="email" name="email" value="${p.email ?? ''}" autocomplete="email">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="new-password" minlength="8" maxlength="72" required>
<label for="password_confirmation">Confirm password</label>
<input type="password" id="password_confirmation" name="password_confirmation" autocomplete="new-password" minlength="8" maxlength="72" required>
<div class="actions"><button type="submit">Create account</button></div>
</form>`;
}

/** The page after setup: the instance URL, the new handle and how to connect a client. */
export function setupDonePage(p: { instanceUrl: string; domain: string; username: string }): SafeHtml {
  return html`<h1>You are all set</h1>
<p>Your account <strong>@${p.username}@${p.domain}</strong> is ready, and you are signed in.</p>
<p>Your instance lives at:</p>
<p class="code" id="instance-url">${p.instanceUrl}</p>
<h2>Connect an app</h2>
<p>Open any Mastodon app (on your phone or in a browser) and, where it asks for your server, enter
<strong>${p.instanceUrl}</strong>. The app will send you back here to sign in and approve it.</p>`;
}
