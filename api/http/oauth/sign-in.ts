import { checkCredentials } from '../../core/oauth/web-sessions.js';
import { countSignInAttempt } from '../middleware/rate-limit.js';
import { sendPage } from '../pages/layout.js';
import { loginPage } from '../pages/login.js';
import { messagePage } from '../pages/messages.js';
import { beginWebSession, field, formCsrfToken, formCsrfValid, page } from '../pages/web.js';
import type { Ctx, Routes } from '../routes.js';

/** A local path to go back to after signing in, or null for anything that could leave the site. */
export function safeReturnTo(value: string | undefined): string | null {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return null;
  // Control characters and backslashes could be read as another host by a lenient browser.
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return null;
  return value;
}

/** Shows the sign-in form. */
export function showLogin(
  ctx: Ctx,
  options: { returnTo: string; appName?: string | undefined; error?: string | undefined; login?: string | undefined; status?: number },
): void {
  const body = loginPage({
    csrfToken: formCsrfToken(ctx),
    returnTo: options.returnTo,
    login: options.login,
    error: options.error,
    appName: options.appName,
    instanceDomain: ctx.deps.uris.domain,
  });
  sendPage(ctx.res, body, { title: 'Sign in', status: options.status ?? 200 });
}

const REFUSALS = {
  // One message for an unknown login and a wrong password, so neither is confirmed.
  invalid: 'Invalid username, e-mail address or password.',
  pending: 'Your account is waiting for approval by the administrator.',
  disabled: 'Your account has been disabled.',
} as const;

/**
 * `GET /auth/sign_in` shows the form; `POST /auth/sign_in` checks the login (username or
 * e-mail) and password, starts a browser session and returns to `return_to`. Attempts are rate
 * limited (429 once used up, see countSignInAttempt).
 */
export function register(r: Routes): void {
  r.get(
    '/auth/sign_in',
    'none',
    [],
    page((ctx) => {
      showLogin(ctx, { returnTo: safeReturnTo(field(ctx.input, 'return_to')) ?? '' });
    }),
  );

  r.post(
    '/auth/sign_in',
    'none',
    [],
    page(async (ctx) => {
      const returnTo = safeReturnTo(field(ctx.input, 'return_to'));
      const login = (field(ctx.input, 'login') ?? field(ctx.input, 'username') ?? '').trim();
      // Every attempt counts (per address and per login), before anything is checked.
      countSignInAttempt(ctx.deps, ctx.req, ctx.res, login);
      if (!formCsrfValid(ctx, field(ctx.input, 'csrf_token'))) {
        showLogin(ctx, { returnTo: returnTo ?? '', login, error: 'This form has expired. Please try again.', status: 403 });
        return;
      }
      const result = await checkCredentials(ctx.deps, login, field(ctx.input, 'password') ?? '');
      if (!result.ok) {
        showLogin(ctx, { returnTo: returnTo ?? '', login, error: REFUSALS[result.reason], status: 401 });
        return;
      }
      beginWebSession(ctx, result.user.id);
      if (returnTo) {
        ctx.res.redirect(303, returnTo);
        return;
      }
      sendPage(ctx.res, messagePage('Signed in', 'You are signed in. You can go back to your app.'), { title: 'Signed in' });
    }),
  );
}
