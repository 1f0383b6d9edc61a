/*
 * The browser tests hand functions to page.evaluate, which run inside Chromium. Their `window` and
 * `document` are the page's; the project type-checks without the DOM library (the server has no
 * DOM), so here they are declared loosely, for that page-side code only.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const window: any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const document: any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const getComputedStyle: any;
