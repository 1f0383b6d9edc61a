/** True when snowflake id `a` is newer than `b` (ids are strings of digits of varying length). */
export function newerId(a: string, b: string | null | undefined): boolean {
  return !b || a.length > b.length || (a.length === b.length && a > b);
}
