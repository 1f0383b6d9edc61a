// Stable local ports for the desktop's server. The app keeps its sign-in in the window's storage,
// which belongs to an origin (`http://127.0.0.1:PORT`): a port that changed at each start would sign
// the person out each time, and apps pointed at the HTTPS address would lose it. So the ports of the
// last start are remembered and taken again while they are free.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The ports of the last start. */
export interface RememberedPorts {
  http: number;
  https: number;
}

/** The headless server's defaults, tried first on a first start. */
const FIRST: RememberedPorts = { http: 7470, https: 7471 };

/** Whether `port` can be bound on 127.0.0.1 right now. */
export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** Reads the remembered ports (the defaults when there are none or the file is damaged). */
export function rememberedPorts(file: string): RememberedPorts {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<RememberedPorts>;
    const ok = (n: unknown): n is number => Number.isInteger(n) && (n as number) > 0 && (n as number) < 65536;
    return { http: ok(value.http) ? value.http : FIRST.http, https: ok(value.https) ? value.https : FIRST.https };
  } catch {
    return { ...FIRST };
  }
}

/** Writes the ports a start used. */
export function rememberPorts(file: string, ports: RememberedPorts): void {
  try {
    writeFileSync(file, JSON.stringify(ports));
  } catch (err) {
    console.warn(`could not remember the server's ports: ${(err as Error).message}`);
  }
}

/** `preferred` when it is free, else 0 (the server picks a free one). */
export async function portOrAny(preferred: number): Promise<number> {
  return (await portFree(preferred)) ? preferred : 0;
}
