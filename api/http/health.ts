import type { Routes } from './routes.js';

/** `GET /health`: 200 once the server is up (database open and migrated). */
export function register(r: Routes): void {
  r.get('/health', 'none', [], (ctx) => {
    ctx.deps.db.query('SELECT 1').get();
    ctx.res.type('text/plain').send('OK');
  });
}
