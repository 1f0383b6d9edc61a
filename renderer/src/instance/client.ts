import { createRestAPIClient, createStreamingAPIClient, type mastodon } from 'masto';
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { StoredAccount } from './session';

/** What every screen talks to the instance through: masto's REST and streaming clients for the active account. */
export interface Api {
  account: StoredAccount;
  rest: mastodon.rest.Client;
  /** Opened lazily on first use; one WebSocket shared by every subscription. */
  streaming(): mastodon.streaming.Client;
  /** A plain authorized fetch for Hearth's own endpoints (`/api/hearth/…`) that masto does not know. */
  fetchJson<T>(path: string, init?: RequestInit): Promise<T>;
}

/** An error with the instance's own message and the HTTP status, for messages a person understands. */
export class ApiFailure extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** Builds the clients for one signed-in account on this origin. */
export function createApi(account: StoredAccount): Api {
  const rest = createRestAPIClient({ url: location.origin, accessToken: account.accessToken });
  let streaming: mastodon.streaming.Client | null = null;
  return {
    account,
    rest,
    streaming() {
      streaming ??= createStreamingAPIClient({
        streamingApiUrl: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}`,
        accessToken: account.accessToken,
        retry: true,
      });
      return streaming;
    },
    async fetchJson<T>(path: string, init: RequestInit = {}): Promise<T> {
      const headers = new Headers(init.headers);
      headers.set('Authorization', `Bearer ${account.accessToken}`);
      if (init.body && typeof init.body === 'string' && !headers.has('Content-Type')) headers.set('Content-Type', 'application/json');
      const res = await fetch(path, { ...init, headers });
      const text = await res.text();
      const body: unknown = text ? JSON.parse(text) : null;
      if (!res.ok) {
        const message = body && typeof body === 'object' && 'error' in body && typeof body.error === 'string' ? body.error : res.statusText;
        throw new ApiFailure(message, res.status);
      }
      return body as T;
    },
  };
}

export const ApiContext = createContext<Api | null>(null);

/** The active account's clients; only inside the signed-in part of the app. */
export function useApi(): Api {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi outside a signed-in screen');
  return api;
}
