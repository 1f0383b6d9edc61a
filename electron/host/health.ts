/**
 * Asks `GET /health` of a server until it answers 200 (every 100 ms, each try at most 2 s), and
 * fails when `deadline` passes first, with the last answer or error. Stops asking as soon as
 * `gone()` says the server is no more (the caller then says why).
 */
export async function waitForHealth(url: string, deadline: number, now: () => number, gone: () => boolean): Promise<void> {
  let lastProblem = 'no answer';
  while (now() < deadline && !gone()) {
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(Math.max(1, Math.min(2000, deadline - now()))) });
      await res.arrayBuffer();
      if (res.status === 200) return;
      lastProblem = `status ${res.status}`;
    } catch (err) {
      lastProblem = (err as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (gone()) return;
  throw new Error(`the server did not answer ${url}/health (${lastProblem})`);
}
