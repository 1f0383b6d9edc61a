import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A message the sink received, decoded enough for tests to read. */
export interface SinkMessage {
  from: string;
  to: string[];
  subject: string;
  /** The text body, quoted-printable or base64 decoded. */
  text: string;
  raw: string;
}

/** Undoes quoted-printable: soft line breaks and =XX bytes. */
function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  const joined = text.replace(/=\r?\n/g, '');
  for (let i = 0; i < joined.length; i++) {
    const c = joined[i];
    if (c === '=' && /^[0-9A-F]{2}$/i.test(joined.slice(i + 1, i + 3))) {
      bytes.push(parseInt(joined.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(c ?? '', 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** Headers (unfolded, lower-case names) and the decoded text of a single-part message. */
function parseMessage(raw: string): { subject: string; text: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const headers = new Map<string, string>();
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const encoding = (headers.get('content-transfer-encoding') ?? '').toLowerCase();
  const text = encoding === 'quoted-printable' ? decodeQuotedPrintable(body) : encoding === 'base64' ? Buffer.from(body, 'base64').toString('utf8') : body;
  return { subject: headers.get('subject') ?? '', text: text.replace(/\r\n/g, '\n').replace(/\n$/, '') };
}

/**
 * A tiny SMTP server on loopback for tests (RFC 5321's commands as nodemailer uses them: EHLO,
 * AUTH PLAIN and LOGIN, MAIL, RCPT, DATA, RSET, NOOP, QUIT; no TLS). It keeps every message and
 * every login; `refuse` makes it answer MAIL FROM with a given reply (a 4xx to test retries, a
 * 5xx for a refusal) while set.
 */
export class SmtpSink {
  readonly messages: SinkMessage[] = [];
  readonly logins: { user: string; pass: string }[] = [];
  /** While set, MAIL FROM is answered with this reply, e.g. '451 4.3.0 try again later'. */
  refuse: string | null = null;
  /** MAIL FROM commands seen (accepted or refused). */
  attempts = 0;
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((socket) => this.serve(socket));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Messages sent to an address. */
  to(address: string): SinkMessage[] {
    return this.messages.filter((m) => m.to.includes(address));
  }

  private serve(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffer = '';
    let inData = false;
    let data = '';
    let from = '';
    let to: string[] = [];
    let auth: 'plain' | 'login-user' | 'login-pass' | null = null;
    let loginUser = '';
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply('220 sink.test ESMTP ready');
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          data += buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          const raw = Buffer.from(data.replace(/\r\n\.\./g, '\r\n.'), 'latin1').toString('utf8');
          this.messages.push({ from, to, raw, ...parseMessage(raw) });
          data = '';
          reply('250 2.0.0 queued');
          continue;
        }
        const nl = buffer.indexOf('\r\n');
        if (nl < 0) return;
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 2);
        if (auth === 'plain') {
          const [, user = '', pass = ''] = Buffer.from(line, 'base64').toString('utf8').split('\0');
          this.logins.push({ user, pass });
          auth = null;
          reply('235 2.7.0 accepted');
          continue;
        }
        if (auth === 'login-user') {
          loginUser = Buffer.from(line, 'base64').toString('utf8');
          auth = 'login-pass';
          reply('334 UGFzc3dvcmQ6');
          continue;
        }
        if (auth === 'login-pass') {
          this.logins.push({ user: loginUser, pass: Buffer.from(line, 'base64').toString('utf8') });
          auth = null;
          reply('235 2.7.0 accepted');
          continue;
        }
        const verb = line.split(' ')[0]?.toUpperCase() ?? '';
        const rest = line.slice(verb.length).trim();
        switch (verb) {
          case 'EHLO':
            socket.write('250-sink.test\r\n250-AUTH PLAIN LOGIN\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n');
            break;
          case 'HELO':
            reply('250 sink.test');
            break;
          case 'AUTH': {
            const [mechanism = '', initial] = rest.split(' ');
            if (mechanism.toUpperCase() === 'PLAIN') {
              if (initial) {
                const [, user = '', pass = ''] = Buffer.from(initial, 'base64').toString('utf8').split('\0');
                this.logins.push({ user, pass });
                reply('235 2.7.0 accepted');
              } else {
                auth = 'plain';
                reply('334 ');
              }
            } else if (mechanism.toUpperCase() === 'LOGIN') {
              auth = 'login-user';
              reply('334 VXNlcm5hbWU6');
            } else {
              reply('504 5.5.4 unknown mechanism');
            }
            break;
          }
          case 'MAIL':
            this.attempts++;
            if (this.refuse) {
              reply(this.refuse);
              break;
            }
            from = /<([^>]*)>/.exec(rest)?.[1] ?? '';
            to = [];
            reply('250 2.1.0 ok');
            break;
          case 'RCPT':
            to.push(/<([^>]*)>/.exec(rest)?.[1] ?? '');
            reply('250 2.1.5 ok');
            break;
          case 'DATA':
            inData = true;
            reply('354 end data with <CR><LF>.<CR><LF>');
            break;
          case 'RSET':
            from = '';
            to = [];
            reply('250 2.0.0 ok');
            break;
          case 'NOOP':
            reply('250 2.0.0 ok');
            break;
          case 'QUIT':
            reply('221 2.0.0 bye');
            socket.end();
            break;
          default:
            reply('502 5.5.2 command not recognized');
        }
      }
    });
  }
}

/** Waits until `check` holds (mail goes out off the request). */
export async function waitFor<T>(check: () => T | undefined | null | false, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The first link in a text that starts with `prefix`. */
export function linkIn(text: string, prefix: string): string {
  const found = text.split(/\s+/).find((word) => word.startsWith(prefix));
  if (!found) throw new Error(`no link starting with ${prefix} in:\n${text}`);
  return found;
}
