import { Parser } from 'htmlparser2';

/**
 * A small browser for the server-rendered pages: keeps cookies, follows redirects within the
 * instance (stopping at a redirect that leaves it, such as the client's redirect URI), and submits
 * forms exactly as they are on the page: their hidden fields (CSRF token included), the fields the
 * test fills in, and the name and value of the button pressed.
 */

/** A form as found on a page. */
export interface PageForm {
  action: string;
  method: string;
  /** Every successful control's current value: hidden, text, password, e-mail… inputs. */
  fields: Record<string, string>;
  buttons: { name: string; value: string; text: string }[];
}

/** A page the browser landed on (after same-site redirects). */
export interface BrowserPage {
  status: number;
  url: string;
  headers: Headers;
  text: string;
  /** Set when the last answer redirected off the instance: where it pointed. */
  redirectedTo: string | null;
  forms: PageForm[];
}

/** Parses the forms of an HTML page. */
export function parseForms(htmlText: string): PageForm[] {
  const forms: PageForm[] = [];
  let current: PageForm | null = null;
  let button: { name: string; value: string; text: string } | null = null;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'form') {
          current = { action: attrs.action ?? '', method: (attrs.method ?? 'get').toLowerCase(), fields: {}, buttons: [] };
          forms.push(current);
          return;
        }
        if (!current) return;
        if (name === 'input' && attrs.name !== undefined) {
          const type = (attrs.type ?? 'text').toLowerCase();
          if (type === 'submit') current.buttons.push({ name: attrs.name, value: attrs.value ?? '', text: attrs.value ?? '' });
          else if ((type === 'checkbox' || type === 'radio') && attrs.checked === undefined) return;
          else current.fields[attrs.name] = attrs.value ?? (type === 'checkbox' ? 'on' : '');
        }
        if (name === 'button' && (attrs.type ?? 'submit').toLowerCase() === 'submit') {
          button = { name: attrs.name ?? '', value: attrs.value ?? '', text: '' };
          current.buttons.push(button);
        }
      },
      ontext(text) {
        if (button) button.text += text;
      },
      onclosetag(name) {
        if (name === 'form') current = null;
        if (name === 'button') button = null;
      },
    },
    { decodeEntities: true },
  );
  parser.write(htmlText);
  parser.end();
  return forms;
}

export class Browser {
  /** Cookies by name (one site: the instance). */
  readonly cookies = new Map<string, string>();

  constructor(readonly baseUrl: string) {}

  private remember(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const maxAge = attrs.map((a) => a.trim().toLowerCase()).find((a) => a.startsWith('max-age='));
      if (maxAge && Number(maxAge.slice('max-age='.length)) <= 0) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  /** One request; same-site redirects are followed as a browser does (303/302 → GET). */
  async request(method: string, path: string, body?: URLSearchParams): Promise<BrowserPage> {
    let url = new URL(path, this.baseUrl).toString();
    let currentMethod = method;
    let currentBody: string | undefined = body?.toString();
    for (let hop = 0; hop < 10; hop++) {
      const headers: Record<string, string> = {};
      const cookie = this.cookieHeader();
      if (cookie) headers.cookie = cookie;
      if (currentBody !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
      const res = await fetch(url, { method: currentMethod, headers, body: currentBody, redirect: 'manual' });
      this.remember(res);
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        const next = new URL(location, url);
        await res.arrayBuffer();
        if (next.origin !== new URL(this.baseUrl).origin) {
          return { status: res.status, url, headers: res.headers, text: '', redirectedTo: next.toString(), forms: [] };
        }
        url = next.toString();
        if (res.status !== 307 && res.status !== 308) {
          currentMethod = 'GET';
          currentBody = undefined;
        }
        continue;
      }
      const text = await res.text();
      return { status: res.status, url, headers: res.headers, text, redirectedTo: null, forms: parseForms(text) };
    }
    throw new Error(`too many redirects from ${path}`);
  }

  /** Loads a page. */
  get(path: string): Promise<BrowserPage> {
    return this.request('GET', path);
  }

  /**
   * Fills in and submits a form of `page` (the one whose action matches `action`, or the only or
   * first one). Only fields that exist on the form may be filled in. `press` names the submit
   * button by its value or text.
   */
  submit(page: BrowserPage, values: Record<string, string> = {}, options: { action?: string; press?: string } = {}): Promise<BrowserPage> {
    const form = options.action ? page.forms.find((f) => f.action === options.action) : page.forms[0];
    if (!form) throw new Error(`no form${options.action ? ` with action ${options.action}` : ''} on ${page.url}:\n${page.text.slice(0, 500)}`);
    const data = new URLSearchParams();
    for (const [name, value] of Object.entries(form.fields)) data.append(name, values[name] ?? value);
    for (const name of Object.keys(values)) {
      if (!(name in form.fields)) throw new Error(`the form has no field named ${name}`);
    }
    if (options.press !== undefined) {
      const button = form.buttons.find((b) => b.value === options.press || b.text.trim() === options.press);
      if (!button) throw new Error(`no button ${options.press} on the form`);
      if (button.name) data.append(button.name, button.value);
    }
    const target = new URL(form.action || page.url, page.url).toString();
    return form.method === 'post' ? this.request('POST', target, data) : this.request('GET', `${target.split('?')[0]}?${data.toString()}`);
  }
}
