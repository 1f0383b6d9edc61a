import { credentialAccount } from '../../core/accounts/read.js';
import { deleteProfileImage } from '../../core/media/profile-images.js';
import type { Routes } from '../routes.js';

/** `DELETE /api/v1/profile/avatar` and `/header`: back to the default picture; answers the CredentialAccount. */
export function register(r: Routes): void {
  for (const kind of ['avatar', 'header'] as const) {
    r.delete(`/api/v1/profile/${kind}`, 'user', ['write:accounts'], async (ctx) => {
      await deleteProfileImage(ctx.deps, ctx.account.id, kind);
      return credentialAccount(ctx.deps, ctx.user.id);
    });
  }
}
