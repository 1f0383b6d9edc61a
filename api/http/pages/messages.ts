import { html, type SafeHtml } from '../../util/html-template.js';

/** The authorization code page for `urn:ietf:wg:oauth:2.0:oob`: the user copies it into the app. */
export function codePage(appName: string, code: string): SafeHtml {
  return html`<h1>Authorization code</h1>
<p>Copy this code and paste it into <strong>${appName}</strong>:</p>
<p class="code" id="authorization-code">${code}</p>
<p class="muted">The code can be used once and expires in ten minutes.</p>`;
}

/** An error or notice page with a heading and one paragraph. */
export function messagePage(title: string, message: string, extra?: SafeHtml): SafeHtml {
  return html`<h1>${title}</h1>
<p>${message}</p>
${extra ?? null}`;
}
