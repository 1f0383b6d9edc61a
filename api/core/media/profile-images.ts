import { findAccountById, updateAccount, type AccountRow, type AccountUpdate } from '../../db/repos/accounts.js';
import { imageSlot, processProfileImage } from '../../media/image.js';
import { now } from '../../util/clock.js';
import { ApiError, notFound } from '../../util/errors.js';
import type { Deps } from '../deps.js';
import { MEDIA_PROCESSING } from '../instance/limits.js';
import { asUploadError, checkSize, detectOrRefuse, inspectOrRefuse, type IncomingFile } from './rules.js';
import { mediaStorage } from './storage.js';

/**
 * Avatars and headers: an upload is cropped to Mastodon's sizes (avatar 400×400, header
 * 1500×500), metadata dropped; an animated one stays animated and gets a still first frame for
 * `avatar_static` / `header_static`.
 */

export type ProfileImageKind = 'avatar' | 'header';

/** The account columns of new profile images, and the files they replace. */
export interface PreparedProfileImages {
  change: Pick<AccountUpdate, 'avatar_file' | 'avatar_static_file' | 'header_file' | 'header_static_file'>;
  /** Files written for the change (removed again if the change is not saved). */
  written: string[];
  /** Files of the images replaced (removed once the change is saved). */
  replaced: string[];
}

function columns(kind: ProfileImageKind): { file: 'avatar_file' | 'header_file'; still: 'avatar_static_file' | 'header_static_file' } {
  return kind === 'avatar' ? { file: 'avatar_file', still: 'avatar_static_file' } : { file: 'header_file', still: 'header_static_file' };
}

const LABEL: Record<ProfileImageKind, string> = { avatar: 'Avatar', header: 'Header' };

async function prepareOne(deps: Deps, account: AccountRow, kind: ProfileImageKind, file: IncomingFile, out: PreparedProfileImages): Promise<void> {
  const type = await detectOrRefuse(file).catch(() => {
    throw new ApiError(422, `Validation failed: ${LABEL[kind]} content type is invalid, ${LABEL[kind]} is invalid`);
  });
  if (type.kind !== 'image') throw new ApiError(422, `Validation failed: ${LABEL[kind]} content type is invalid, ${LABEL[kind]} is invalid`);
  checkSize(file.size, MEDIA_PROCESSING.profile_image_size_limit, LABEL[kind]);
  const info = await inspectOrRefuse(file.path);
  const size = kind === 'avatar' ? MEDIA_PROCESSING.avatar_size : MEDIA_PROCESSING.header_size;
  const { image, still } = await imageSlot(() => processProfileImage(file.path, type, info, size)).catch((err: unknown) => {
    throw asUploadError(err);
  });
  const storage = mediaStorage(deps);
  const storedKind = kind === 'avatar' ? 'accounts/avatars' : 'accounts/headers';
  const key = storage.newKey(storedKind, account.id, 'original', image.ext);
  await storage.write(key, image.data);
  out.written.push(key);
  let stillKey: string | null = null;
  if (still) {
    stillKey = storage.newKey(storedKind, account.id, 'static', still.ext);
    await storage.write(stillKey, still.data);
    out.written.push(stillKey);
  }
  const col = columns(kind);
  out.change[col.file] = key;
  out.change[col.still] = stillKey;
  out.replaced.push(...[account[col.file], account[col.still]].filter((k): k is string => k !== null));
}

/**
 * Checks and processes the avatar and header files of an update_credentials request, writing
 * their files (422 for a file that is not an image or is too large; nothing is left behind on
 * failure). The caller saves `change` with the rest of the profile, then calls `settle`.
 */
export async function prepareProfileImages(deps: Deps, account: AccountRow, files: Partial<Record<ProfileImageKind, IncomingFile>>): Promise<PreparedProfileImages> {
  const out: PreparedProfileImages = { change: {}, written: [], replaced: [] };
  try {
    for (const kind of ['avatar', 'header'] as const) {
      const file = files[kind];
      if (file) await prepareOne(deps, account, kind, file, out);
    }
  } catch (err) {
    await mediaStorage(deps).remove(out.written);
    throw err;
  }
  return out;
}

/** After the profile change: removes the replaced files when it was saved, the new ones when not. */
export async function settleProfileImages(deps: Deps, prepared: PreparedProfileImages, saved: boolean): Promise<void> {
  await mediaStorage(deps).remove(saved ? prepared.replaced : prepared.written);
}

/**
 * DELETE /api/v1/profile/avatar and /header: removes the picture (the default one is shown again)
 * and its files; succeeds when there was none. Emits 'account.updated'.
 */
export async function deleteProfileImage(deps: Deps, accountId: string, kind: ProfileImageKind): Promise<void> {
  const account = findAccountById(deps.db, accountId);
  if (!account) throw notFound();
  const col = columns(kind);
  const old = [account[col.file], account[col.still]];
  if (old.every((k) => k === null)) return;
  updateAccount(deps.db, account.id, { [col.file]: null, [col.still]: null, updated_at: now() });
  await mediaStorage(deps).remove(old);
  deps.events.emit('account.updated', { accountId: account.id });
}
