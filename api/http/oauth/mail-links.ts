import { confirmEmail, requestPasswordReset, resetCodeValid, resetPassword } from '../../core/mail/account-mail.js';
import { ApiError } from '../../util/errors.js';
import { countSignInAttempt } from '../middleware/rate-limit.js';
import { sendPage } from '../pages/layout.js';
import { passwordEditPage, passwordRequestPage } from '../pages/mail-links.js';
import { messagePage } from '../pages/messages.js';
import { field, formCsrfToken, formCsrfValid, page, sendErrorPage } from '../pages/web.js';
import type { Ctx, Routes } from '../routes.js';

const EXPIRED_FORM = 'This form has expired. Please try again.';
const BAD_LINK = 'This link is invalid or has expired. Ask for a new one.';

function showRequest(ctx: Ctx, options: { email?: string; error?: string; status?: number } = {}): void {
  sendPage(ctx.res, passwordRequestPage({ csrfToken: formCsrfToken(ctx), domain: ctx.deps.uris.domain, email: options.email, error: options.error }), {
    title: 'Forgot your password?',
    status: options.status ?? 200,
  });
}

function showEdit(ctx: Ctx, code: string, options: { error?: string; status?: number } = {}): void {
  sendPage(ctx.res, passwordEditPage({ csrfToken: formCsrfToken(ctx), code, error: options.error }), { title: 'Choose a new password', status: options.status ?? 200 });
}

/**
 * The pages the instance's mail links to, as Mastodon's: `GET /auth/confirmation` confirms an
 * e-mail address; `/auth/password/new` asks for a password reset link (`POST /auth/password`,
 * counted under the sign-in limits, answered the same whether the address has a login), and
 * `/auth/password/edit` sets the new password with the link's code.
 */
export function register(r: Routes): void {
  r.get(
    '/auth/confirmation',
    'none',
    [],
    page((ctx) => {
      if (confirmEmail(ctx.deps, field(ctx.input, 'confirmation_token') ?? '') === 'confirmed') {
        sendPage(ctx.res, messagePage('E-mail address confirmed', 'Your e-mail address is confirmed. You can go back to your app.'), { title: 'E-mail address confirmed' });
      } else {
        sendErrorPage(ctx.res, 404, BAD_LINK);
      }
    }),
  );

  r.get('/auth/password/new', 'none', [], page((ctx) => showRequest(ctx)));

  r.post(
    '/auth/password',
    'none',
    [],
    page((ctx) => {
      const email = (field(ctx.input, 'email') ?? '').trim();
      countSignInAttempt(ctx.deps, ctx.req, ctx.res, email);
      if (!formCsrfValid(ctx, field(ctx.input, 'csrf_token'))) {
        showRequest(ctx, { email, error: EXPIRED_FORM, status: 403 });
        return;
      }
      requestPasswordReset(ctx.deps, email);
      sendPage(
        ctx.res,
        messagePage('Check your e-mail', 'If your e-mail address has an account here, a link to choose a new password is on its way. It works for six hours.'),
        { title: 'Check your e-mail' },
      );
    }),
  );

  r.get(
    '/auth/password/edit',
    'none',
    [],
    page((ctx) => {
      const code = field(ctx.input, 'reset_password_token') ?? '';
      if (!resetCodeValid(ctx.deps, code)) sendErrorPage(ctx.res, 404, BAD_LINK);
      else showEdit(ctx, code);
    }),
  );

  r.post(
    '/auth/password/edit',
    'none',
    [],
    page(async (ctx) => {
      const code = field(ctx.input, 'reset_password_token') ?? '';
      if (!formCsrfValid(ctx, field(ctx.input, 'csrf_token'))) {
        showEdit(ctx, code, { error: EXPIRED_FORM, status: 403 });
        return;
      }
      let changed: boolean;
      try {
        changed = await resetPassword(ctx.deps, code, field(ctx.input, 'password') ?? '', field(ctx.input, 'password_confirmation') ?? '');
      } catch (err) {
        // A password out of bounds, or two that differ: the form again, saying why.
        if (err instanceof ApiError && err.status === 422) {
          showEdit(ctx, code, { error: err.message.replace(/^Validation failed: /, ''), status: 422 });
          return;
        }
        throw err;
      }
      if (!changed) {
        sendErrorPage(ctx.res, 404, BAD_LINK);
        return;
      }
      sendPage(ctx.res, messagePage('Password changed', 'Your password is changed. Sign in again in your apps with the new one.'), { title: 'Password changed' });
    }),
  );
}
