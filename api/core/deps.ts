import type { Config } from '../config.js';
import type { Db } from '../db/connection.js';
import type { Uris } from '../util/uris.js';
import type { Events } from './events.js';

/**
 * What every core function receives first: the database, configuration, the event bus and the URL
 * builders. Core functions take the acting account as an argument, never an HTTP request, so the
 * REST API and the federation inbox call the same code.
 */
export interface Deps {
  readonly db: Db;
  readonly config: Config;
  readonly events: Events;
  /** URL builders; the base is known once the server listens (port 0 in tests). */
  readonly uris: Uris;
}
