import { createOwner, FORWARDING_HEADERS, needsSetup, setupAllowed, setupToken } from '../core/setup.js';
import { ApiError } from '../util/errors.js';
import { sendPage } from './pages/layout.js';
import { setupDonePage, setupFormPage } from './pages/setup.js';
import { beginWebSession, field, formCsrfToken, formCsrfValid, page, sendErrorPage } from './pages/web.js';
import type { Ctx, Routes } from './routes.js';

/**
 * Checks that setup is open (no owner yet: otherwise 404) and that this request may use it
 * (loopback peer or the setup token: otherwise 403). Returns false once an answer was sent.
 */
function guard(ctx: Ctx): boolean {
  if (!needsSetup(ctx.deps)) {
    sendErrorPage(ctx.res, 404, 'There is nothing here.');
    return false;
  }
  const allowed = setupAllowed({
    remoteAddress: ctx.req.socket.remoteAddress,
    forwarded: FORWARDING_HEADERS.some((h) => ctx.req.headers[h] !== undefined),
    givenToken: field(ctx.input, 'token'),
    expectedToken: setupToken(ctx.deps),
  });
  if (!allowed) {
    sendErrorPage(ctx.res, 403, 'Setup is only possible from this computer, or with the link the server printed when it started.');
    return false;
  }
  return true;
}

function showForm(ctx: Ctx, values: { username?: string; email?: string; error?: string }, status = 200): void {
  const body = setupFormPage({
    csrfToken: formCsrfToken(ctx),
    setupToken: field(ctx.input, 'token') ?? '',
    instanceUrl: ctx.deps.uris.base,
    ...values,
  });
  sendPage(ctx.res, body, { title: 'Set up Hearth', status });
}

/** `GET /setup` shows the first-run form; `POST /setup` creates the owner and signs them in. */
export function register(r: Routes): void {
  r.get(
    '/setup',
    'none',
    [],
    page((ctx) => {
      if (guard(ctx)) showForm(ctx, {});
    }),
  );

  r.post(
    '/setup',
    'none',
    [],
    page(async (ctx) => {
      if (!guard(ctx)) return;
      const username = (field(ctx.input, 'username') ?? '').trim();
      const email = (field(ctx.input, 'email') ?? '').trim();
      if (!formCsrfValid(ctx, field(ctx.input, 'csrf_token'))) {
        showForm(ctx, { username, email, error: 'This form has expired. Please try again.' }, 403);
        return;
      }
      let owner: { userId: string; accountId: string };
      try {
        owner = await createOwner(ctx.deps, {
          username,
          email: email || null,
          password: field(ctx.input, 'password') ?? '',
          passwordConfirmation: field(ctx.input, 'password_confirmation') ?? '',
        });
      } catch (err) {
        if (err instanceof ApiError && err.status === 422) {
          showForm(ctx, { username, email, error: err.message.replace(/^Validation failed: /, '') }, 422);
          return;
        }
        throw err;
      }
      beginWebSession(ctx, owner.userId);
      sendPage(ctx.res, setupDonePage({ instanceUrl: ctx.deps.uris.base, domain: ctx.deps.uris.domain, username }), { title: 'Hearth is ready' });
    }),
  );
}
