import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { idAtTime, newId } from '../../api/util/ids.js';
import type { TestClient } from '../helpers/client.js';
import type { TestInstance } from '../helpers/instance.js';

export { postStatus as post, seedRemoteAccount } from '../helpers/fixtures.js';

export const DAY = 86_400_000;

/** The account opts into discovery (what trending statuses and links require). */
export async function discoverable(client: TestClient, value = true): Promise<void> {
  const res = await client.patch('/api/v1/accounts/update_credentials', { discoverable: value });
  expect(res.status, res.text).toBe(200);
}

/**
 * Seeds a remote public status written `daysAgo` days ago (its id made from that time, as
 * federation makes ids of remote statuses), with the hashtags and the card given.
 */
export function seedOldStatus(inst: TestInstance, accountId: string, daysAgo: number, options: { tags?: string[]; cardId?: string; cardUrl?: string } = {}): string {
  const at = Date.now() - daysAgo * DAY;
  const id = idAtTime(at);
  inst.deps.db
    .query(
      `INSERT INTO statuses (id, account_id, local, uri, url, visibility, content, created_at, updated_at)
       VALUES (@id, @account_id, 0, @uri, @url, 'public', '<p>old words</p>', @at, @at)`,
    )
    .run({ id, account_id: accountId, uri: `https://remote.example/statuses/${id}`, url: `https://remote.example/@x/${id}`, at });
  for (const name of options.tags ?? []) {
    let tag = inst.deps.db.query<{ id: string }>('SELECT id FROM tags WHERE name_normalized = lower(?)').get(name);
    if (!tag) {
      const tagId = newId();
      inst.deps.db.query('INSERT INTO tags (id, name, name_normalized, created_at) VALUES (?, ?, lower(?), ?)').run(tagId, name, name, at);
      tag = { id: tagId };
    }
    inst.deps.db.query('INSERT INTO statuses_tags (status_id, tag_id) VALUES (?, ?)').run(id, tag.id);
  }
  if (options.cardId) inst.deps.db.query('INSERT INTO preview_cards_statuses (status_id, preview_card_id, url) VALUES (?, ?, ?)').run(id, options.cardId, options.cardUrl ?? '');
  return id;
}

/** A stand-in web site with article pages (title, description, site name), for link cards. */
export class Articles {
  private server!: Server;
  base = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/untitled') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end('<!doctype html><html><head><meta charset="utf-8"></head><body><p>nothing</p></body></html>');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${path}</title>` +
          `<meta property="og:title" content="Article ${path.slice(1)}"><meta property="og:description" content="About ${path.slice(1)}">` +
          `<meta property="og:site_name" content="Daily News"><meta property="og:type" content="article"></head><body><p>text</p></body></html>`,
      );
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
