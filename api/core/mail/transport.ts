import type { Transporter } from 'nodemailer';
import type { MailConfig } from '../../config.js';

/** A message as it goes to the SMTP server. */
export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
}

/** Why a message was not sent; `permanent` when the server refused it for good (a 5xx reply). */
export class MailSendError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'MailSendError';
  }
}

const transports = new WeakMap<MailConfig, Transporter>();

/**
 * The nodemailer transport for a mail configuration, made on first use (nodemailer is loaded only
 * by instances that send mail). Each message opens its own connection: a personal instance sends a
 * few a day.
 */
async function transportFor(config: MailConfig): Promise<Transporter> {
  let transport = transports.get(config);
  if (!transport) {
    const nodemailer = (await import('nodemailer')).default;
    transport = nodemailer.createTransport({
      host: config.host,
      port: config.port,
      secure: config.secure,
      auth: config.user !== null ? { user: config.user, pass: config.password ?? '' } : undefined,
      connectionTimeout: 30_000,
      greetingTimeout: 30_000,
      socketTimeout: 60_000,
    });
    transports.set(config, transport);
  }
  return transport;
}

/** Sends one message; rejects with a MailSendError when the server did not take it. */
export async function sendMail(config: MailConfig, mail: OutgoingMail): Promise<void> {
  const transport = await transportFor(config);
  try {
    await transport.sendMail({ from: mail.from, to: mail.to, subject: mail.subject, text: mail.text });
  } catch (err) {
    const code = (err as { responseCode?: unknown }).responseCode;
    throw new MailSendError((err as Error).message, typeof code === 'number' && code >= 500 && code < 600, { cause: err });
  }
}
