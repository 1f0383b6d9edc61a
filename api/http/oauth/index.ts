import type { Routes } from '../routes.js';
import * as authorize from './authorize.js';
import * as metadata from './metadata.js';
import * as signIn from './sign-in.js';
import * as token from './token.js';

/** The OAuth area: sign-in and consent pages, token and revocation endpoints, discovery, userinfo. */
export function register(r: Routes): void {
  signIn.register(r);
  authorize.register(r);
  token.register(r);
  metadata.register(r);
}
