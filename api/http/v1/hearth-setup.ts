import { requireOwner } from '../../core/federation/delivery-failures.js';
import { chooseReach, currentReach, requestRestart, type ReachView } from '../../core/reach.js';
import { createOwner, FORWARDING_HEADERS, needsSetup, setupAllowed, setupToken } from '../../core/setup.js';
import { ApiError, forbidden } from '../../util/errors.js';
import { beginWebSession, field } from '../pages/web.js';
import { Reply, type Ctx, type Routes } from '../routes.js';

/** Whether this request may set the instance up: the rule of the /setup page (this computer, or the setup token). */
function allowed(ctx: Ctx): boolean {
  return setupAllowed({
    remoteAddress: ctx.req.socket.remoteAddress,
    forwarded: FORWARDING_HEADERS.some((h) => ctx.req.headers[h] !== undefined),
    givenToken: field(ctx.input, 'token'),
    expectedToken: setupToken(ctx.deps),
  });
}

/**
 * A page on another site must not be able to set the instance up from a browser on this computer
 * (which the loopback rule would let through): the body must be JSON, which a cross-site form
 * cannot send (415 otherwise), and an Origin, which browsers send with every cross-site request
 * that could carry JSON, must be this host's.
 */
function refuseCrossSite(ctx: Ctx): void {
  if (!ctx.req.is('application/json')) throw new ApiError(415, 'Only JSON bodies are accepted here');
  const origin = ctx.req.headers.origin;
  if (origin === undefined) return;
  const host = ctx.req.headers.host;
  const sameHost = URL.canParse(origin) && host !== undefined && new URL(origin).host.toLowerCase() === host.toLowerCase();
  if (!sameHost) throw forbidden('Requests from other sites may not set up this instance');
}

function reachJson(view: ReachView): Record<string, unknown> {
  return {
    mode: view.mode,
    origin: view.origin,
    relay_url: view.relayUrl,
    restart_required: view.restartRequired,
    restart_available: view.restartAvailable,
    last_restart_error: view.lastRestartError,
  };
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * Hearth's own first-run API, for the app's in-app setup (no Mastodon counterpart):
 * - `GET /api/hearth/setup`: `{needed, allowed}`, whether the owner is still to be made, and
 *   whether this request may make them (same rule as the /setup page).
 * - `POST /api/hearth/setup` `{username, email, password, token?}` (JSON only): makes the owner as
 *   the page does (404 once there is one, 403 when not allowed, 422 with `details`), starts the
 *   browser session the OAuth pages recognise, and answers `{account_id, username}`.
 * - `GET`/`PUT /api/hearth/reach` (the owner): how the instance is reached (local-only, its own
 *   origin, or a relay), written into the config file, in force after a restart.
 * - `POST /api/hearth/restart` (the owner): restarts the server in its process, after answering
 *   202, when it runs under `hearth serve` (501 otherwise).
 */
export function register(r: Routes): void {
  r.get('/api/hearth/setup', 'none', [], (ctx) => {
    const needed = needsSetup(ctx.deps);
    return { needed, allowed: needed && allowed(ctx) };
  });

  r.post('/api/hearth/setup', 'none', [], async (ctx) => {
    refuseCrossSite(ctx);
    if (!needsSetup(ctx.deps)) throw new ApiError(404, 'This instance is set up already');
    if (!allowed(ctx)) throw forbidden('Setup is only possible from this computer, or with the token the server printed when it started');
    const username = (text(ctx.input.username) ?? '').trim();
    const email = (text(ctx.input.email) ?? '').trim();
    const password = text(ctx.input.password) ?? '';
    const owner = await createOwner(ctx.deps, { username, email: email || null, password, passwordConfirmation: text(ctx.input.password_confirmation) ?? password });
    beginWebSession(ctx, owner.userId);
    return { account_id: owner.accountId, username };
  });

  r.get('/api/hearth/reach', 'user', ['read'], (ctx) => {
    requireOwner(ctx.user);
    return reachJson(currentReach(ctx.deps));
  });

  r.put('/api/hearth/reach', 'user', ['write'], (ctx) => {
    requireOwner(ctx.user);
    const view = chooseReach(ctx.deps, {
      mode: text(ctx.input.mode),
      origin: text(ctx.input.origin),
      relayUrl: text(ctx.input.relay_url),
      relayCode: text(ctx.input.relay_code),
    });
    return reachJson(view);
  });

  r.post('/api/hearth/restart', 'user', ['write'], (ctx) => {
    requireOwner(ctx.user);
    if (!currentReach(ctx.deps).restartAvailable) throw new ApiError(501, 'This server cannot restart itself; restart it where it runs');
    // The answer goes out first: the restart closes every connection.
    ctx.res.once('finish', () => requestRestart(ctx.deps));
    return new Reply(202, { restarting: true });
  });
}
