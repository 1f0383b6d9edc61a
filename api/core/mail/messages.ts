/**
 * The texts of the instance's e-mails (plain text; the same words whether they go out by SMTP or
 * wait in the outbox for the owner). Each builder takes what it names and returns a subject and
 * a body.
 */

/** A written message. */
export interface MailText {
  subject: string;
  body: string;
}

/** How long the links in these mails work, as the mails say it. */
export const CONFIRMATION_VALID_FOR = 'two days';
export const RESET_VALID_FOR = 'six hours';

/** The link that confirms an e-mail address, sent after signing up (or asking again). */
export function confirmationMail(p: { username: string; domain: string; link: string }): MailText {
  return {
    subject: `Confirm your e-mail address for ${p.domain}`,
    body: [
      `Hello @${p.username},`,
      '',
      `To start using your account on ${p.domain}, confirm your e-mail address by opening this link:`,
      '',
      p.link,
      '',
      `The link works for ${CONFIRMATION_VALID_FOR}. If you did not sign up, you can ignore this message.`,
    ].join('\n'),
  };
}

/** The link that sets a new password, sent when someone asked for it. */
export function passwordResetMail(p: { username: string; domain: string; link: string }): MailText {
  return {
    subject: `Reset your password on ${p.domain}`,
    body: [
      `Hello @${p.username},`,
      '',
      `Someone asked to change the password of your account on ${p.domain}. To choose a new one, open this link:`,
      '',
      p.link,
      '',
      `The link works for ${RESET_VALID_FOR}, once. Changing the password signs you out of every app.`,
      'If you did not ask for this, you can ignore this message: your password stays as it is.',
    ].join('\n'),
  };
}

/** The news that a sign-up was approved. */
export function approvedMail(p: { username: string; domain: string; base: string }): MailText {
  return {
    subject: `Your account on ${p.domain} was approved`,
    body: [
      `Hello @${p.username},`,
      '',
      `Your account on ${p.domain} has been approved: you can sign in and start using it now, in any Mastodon app, at ${p.base}.`,
    ].join('\n'),
  };
}

/** To staff who approve sign-ups: a new one waits. */
export function pendingSignUpMail(p: { username: string; email: string | null; reason: string | null; domain: string }): MailText {
  return {
    subject: `New account up for review on ${p.domain}: @${p.username}`,
    body: [
      `A new account is waiting for your approval on ${p.domain}:`,
      '',
      `Username: @${p.username}`,
      `E-mail: ${p.email ?? '(none)'}`,
      `Reason given: ${p.reason?.trim() || '(none)'}`,
      '',
      'Approve or reject it in your app (the moderation screen of a Mastodon admin client).',
    ].join('\n'),
  };
}

/** To staff who handle reports: a new one was filed. */
export function newReportMail(p: {
  reportId: string;
  domain: string;
  reporter: string;
  target: string;
  category: string;
  comment: string;
  statusCount: number;
  remote: boolean;
}): MailText {
  return {
    subject: `New report for ${p.domain} (#${p.reportId})`,
    body: [
      `${p.reporter} reported ${p.target}${p.remote ? ' (the report came from their server)' : ''}.`,
      '',
      `Category: ${p.category}`,
      `Statuses attached: ${p.statusCount}`,
      `Comment: ${p.comment.trim() || '(none)'}`,
      '',
      `Handle report #${p.reportId} in your app (the moderation screen of a Mastodon admin client).`,
    ].join('\n'),
  };
}
