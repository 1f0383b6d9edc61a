import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type HearthApp } from '../../api/app.js';
import { resolveConfig, type ConfigInput } from '../../api/config.js';
import { createLocalUser } from '../../api/core/accounts/create.js';
import type { Deps } from '../../api/core/deps.js';
import { issueToken } from '../../api/core/oauth/tokens.js';
import type { UserRole } from '../../api/db/repos/users.js';
import { TestClient } from './client.js';

/** A user made by the rig, with what tests need to act as them. */
export interface TestUser {
  userId: string;
  accountId: string;
  username: string;
  password: string;
  /** An access token with the scopes asked for (default: read write follow push). */
  token: string;
  /** A client that sends that token. */
  client: TestClient;
}

/** A running instance on an ephemeral loopback port with its own fresh data directory. */
export interface TestInstance {
  url: string;
  app: HearthApp;
  deps: Deps;
  dataDir: string;
  /** An anonymous client. */
  anon: TestClient;
  /** Creates a local user and a token for them. */
  createUser(username: string, options?: { role?: UserRole; password?: string; scopes?: string; email?: string }): Promise<TestUser>;
  /** A new token for an existing user with the given scopes. */
  tokenFor(user: { userId: string }, scopes: string): string;
  close(): Promise<void>;
}

const open: TestInstance[] = [];

/**
 * Starts a real instance: a fresh SQLite file in a new temp directory (or the given `dataDir`,
 * kept on close, to restart on the same data), the full app, listening on 127.0.0.1 with port 0.
 * Close it in afterEach/afterAll (or call `closeAllInstances`).
 */
export async function startInstance(input: ConfigInput = {}): Promise<TestInstance> {
  // A given `dataDir` is reused (restart tests) and left in place on close; the caller removes it.
  const ownDir = input.dataDir === undefined;
  const dataDir = input.dataDir ?? mkdtempSync(join(tmpdir(), 'hearth-test-'));
  const config = resolveConfig({ port: 0, bind: '127.0.0.1', registrations: 'open', ...input, dataDir }, {});
  const app = await createApp(config);
  const url = await app.listen();
  const deps = app.deps;
  const tokenFor = (user: { userId: string }, scopes: string) =>
    issueToken(deps, { applicationId: null, userId: user.userId, scopes: scopes.split(/\s+/).filter(Boolean) }).accessToken;
  const instance: TestInstance = {
    url,
    app,
    deps,
    dataDir,
    anon: new TestClient(url),
    async createUser(username, options = {}) {
      const password = options.password ?? `${username}-password-123`;
      const { userId, accountId } = await createLocalUser(deps, {
        username,
        password,
        role: options.role ?? 'user',
        email: options.email ?? `${username}@example.test`,
        allowReserved: true,
      });
      const token = tokenFor({ userId }, options.scopes ?? 'read write follow push');
      return { userId, accountId, username, password, token, client: new TestClient(url, token) };
    },
    tokenFor,
    async close() {
      const i = open.indexOf(instance);
      if (i >= 0) open.splice(i, 1);
      await app.close();
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  open.push(instance);
  return instance;
}

/** Closes every instance the rig started and has not closed yet. */
export async function closeAllInstances(): Promise<void> {
  await Promise.all([...open].map((i) => i.close()));
}
