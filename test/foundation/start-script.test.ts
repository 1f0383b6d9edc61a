import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * `npm start` (scripts/start.mjs, run after the build): on a machine without Electron's binary, as
 * this one (it cannot download it), it says so in one line and runs the headless server, which
 * answers /health; SIGTERM stops the server gracefully and the script ends with it.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));

/** A port nothing listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

describe('npm start without Electron', () => {
  const data = mkdtempSync(join(tmpdir(), 'hearth-start-'));
  afterAll(() => rmSync(data, { recursive: true, force: true }));

  it('says so in one line, serves the app on the configured port and stops on SIGTERM', async () => {
    const port = await freePort();
    // As `npm start` runs it: no arguments; the port and data directory come from the environment.
    const child = spawn(process.execPath, [join(root, 'scripts', 'start.mjs')], {
      cwd: root,
      env: { ...process.env, HEARTH_PORT: String(port), HEARTH_DATA: data, HEARTH_NO_BROWSER: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('listening on')) resolve();
      });
      void exited.then((code) => reject(new Error(`start.mjs exited (${code}) before serving: ${stdout}${stderr}`)));
    });

    const lines = stdout.split('\n');
    expect(lines[0]).toMatch(/^Hearth: the desktop app's Electron binary is not installed here, so this runs the headless server/);
    // One line about it, and nothing of the failed download (its message, its error) in the output.
    expect(`${stdout}${stderr}`.match(/electron/gi)).toHaveLength(1);
    expect(stderr).toBe('');
    expect(stdout).toContain(`Hearth is listening on http://127.0.0.1:${port}`);

    const health = await fetch(`http://127.0.0.1:${port}/health`);
    expect(health.status).toBe(200);
    // The app itself, at /.
    const app = await fetch(`http://127.0.0.1:${port}/`, { headers: { accept: 'text/html' } });
    expect(app.status).toBe(200);
    expect(app.headers.get('content-type')).toContain('text/html');

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    // The server went with it.
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
  }, 60_000);
});
