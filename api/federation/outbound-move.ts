import type { Federation } from '@fedify/fedify';
import { Move } from '@fedify/vocab';
import { setAccountFetcher } from '../core/accounts/move.js';
import type { Deps } from '../core/deps.js';
import { accountById } from '../core/federation/local.js';
import { loadFollowerRecipients, send, sendsSettled } from './outbound.js';
import { resolveRemoteAccount } from './resolve.js';
import { actorUri } from './to-ap.js';

/**
 * Moves of local accounts: installs the fresh remote-account fetch that a move (and an alias)
 * needs, and sends Move {actor: old, object: old, target: new} to the old account's followers
 * (one request per shared inbox, through the durable outbox queue) when 'account.moved' is
 * emitted. Their servers check the new account's `alsoKnownAs` and move the follows. Returns the
 * stop function; it waits for Moves still being put on the queue (the CLI closes the database
 * right after).
 */
export function installMoveOutbound(deps: Deps, federation: Federation<Deps>): () => Promise<void> {
  const ctx = () => federation.createContext(new URL(deps.uris.base), deps);
  setAccountFetcher(deps, (handleOrUri) => resolveRemoteAccount(federation, deps, handleOrUri));
  const off = deps.events.on('account.moved', ({ accountId, targetAccountId, migrationId }) => {
    const origin = accountById(deps, accountId);
    const target = accountById(deps, targetAccountId);
    if (!origin || origin.domain !== null || !target) return;
    const me = new URL(actorUri(origin, deps.uris));
    const move = new Move({
      id: new URL(`${me.href}#moves/${migrationId}`),
      actor: me,
      object: me,
      target: new URL(actorUri(target, deps.uris)),
      to: new URL(deps.uris.followersUri(origin.username)),
    });
    // The remote followers stay until their servers act on the Move (only the local ones are
    // carried over here), so reading them a page at a time after this turn sees them all. Both
    // the read and the send are tracked: stopping waits for them (see sendsSettled).
    loadFollowerRecipients(deps, origin.id)
      .then((recipients) => send(ctx(), origin, recipients, move))
      .catch((err: unknown) => console.error('federation: sending Move failed', err));
  });
  return async () => {
    off();
    setAccountFetcher(deps, null);
    await sendsSettled(deps);
  };
}
