import { constants } from 'node:fs';
import { access, readdir, stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';

/** The database file a Hearth data directory holds (api's layout; electron/data/layout.ts too). */
const DATABASE_FILE = 'hearth.sqlite3';

/**
 * Why a folder cannot be the instance's data directory, or null when it can: it must be an
 * existing folder Hearth can write to, and either empty (a fresh instance starts there) or one
 * that already holds Hearth's data (moving back to an earlier one). A folder of other things (the
 * person's Documents, by mistake) is refused, so Hearth never scatters its files among theirs.
 * Hidden entries (`.DS_Store`, `.directory`) do not count as other things.
 */
export async function dataDirProblem(dir: string): Promise<string | null> {
  if (!isAbsolute(dir)) return 'The data directory must be a full path, starting at the root of a drive.';
  const found = await stat(dir).catch(() => null);
  if (!found) return 'That folder does not exist.';
  if (!found.isDirectory()) return 'That is a file, not a folder.';
  try {
    await access(dir, constants.R_OK | constants.W_OK);
  } catch {
    return 'Hearth cannot write to that folder.';
  }
  const names = await readdir(dir).catch(() => null);
  if (!names) return 'Hearth cannot read that folder.';
  if (names.includes(DATABASE_FILE)) {
    const db = await stat(join(dir, DATABASE_FILE)).catch(() => null);
    return db?.isFile() ? null : 'That folder holds something named like Hearth’s database that is not one.';
  }
  const visible = names.filter((name) => !name.startsWith('.'));
  if (visible.length > 0) return 'That folder holds other files. Choose an empty folder, or one that already holds Hearth’s data.';
  return null;
}
