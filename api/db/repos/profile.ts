import type { Db } from '../connection.js';

/** The profile settings of an account that only the profile API reads and writes (migration 0082). */
export interface ProfileSettingsRow {
  avatar_description: string;
  header_description: string;
  show_media: number;
  show_media_replies: number;
  show_featured: number;
}

/** A change of those settings; absent means unchanged. */
export type ProfileSettingsChange = Partial<ProfileSettingsRow>;

/** The profile settings of an account, if it exists. */
export function findProfileSettings(db: Db, accountId: string): ProfileSettingsRow | undefined {
  return db
    .query<ProfileSettingsRow>('SELECT avatar_description, header_description, show_media, show_media_replies, show_featured FROM accounts WHERE id = ?')
    .get(accountId);
}

const COLUMNS = ['avatar_description', 'header_description', 'show_media', 'show_media_replies', 'show_featured'] as const;

/** Writes the given profile settings of an account (nothing when the change is empty). */
export function updateProfileSettings(db: Db, accountId: string, change: ProfileSettingsChange, at: number): void {
  const set = COLUMNS.filter((c) => change[c] !== undefined);
  if (set.length === 0) return;
  const params: Record<string, string | number> = { id: accountId, updated_at: at };
  for (const c of set) params[c] = change[c] as string | number;
  db.query(`UPDATE accounts SET ${set.map((c) => `${c} = @${c}`).join(', ')}, updated_at = @updated_at WHERE id = @id`).run(params);
}
