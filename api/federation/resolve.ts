import type { Federation } from '@fedify/fedify';
import { isActor } from '@fedify/vocab';
import type { Deps } from '../core/deps.js';
import { upsertRemoteAccount } from '../core/federation/remote-accounts.js';
import type { AccountRow } from '../db/repos/accounts.js';
import { INSTANCE_ACTOR_IDENTIFIER } from '../util/uris.js';
import { fromApActor } from './from-ap.js';

/**
 * Looks up a remote actor by handle (`user@host`, WebFinger) or actor URL, with a GET signed by
 * the instance actor, and stores it as a remote account. Null when it cannot be found.
 */
export async function resolveRemoteAccount(federation: Federation<Deps>, deps: Deps, handleOrUri: string): Promise<AccountRow | null> {
  const ctx = federation.createContext(new URL(deps.uris.base), deps);
  const documentLoader = await ctx.getDocumentLoader({ identifier: INSTANCE_ACTOR_IDENTIFIER });
  const object = await ctx.lookupObject(handleOrUri, { documentLoader }).catch((err: unknown) => {
    console.error(`federation: cannot resolve ${handleOrUri}`, err);
    return null;
  });
  if (!object || !isActor(object)) return null;
  const data = await fromApActor(object);
  return data ? upsertRemoteAccount(deps, data) : null;
}
