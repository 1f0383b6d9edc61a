/** The path of a post's thread inside the app. */
export function threadPath(status: { id: string; account: { acct: string } }): string {
  return `/@${status.account.acct}/${status.id}`;
}

/** The path of an account's profile inside the app. */
export function profilePath(account: { acct: string }): string {
  return `/@${account.acct}`;
}
