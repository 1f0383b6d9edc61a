// Outgoing requests of the delivery thread made by the main thread, while the instance federates
// through a relay: the thread's deliveries must leave through the relay's tunnel, which the main
// thread holds. The thread's `fetch` hands each request over (as a message) and gets the answer
// back; the rest of the thread (Fedify, its signing, the retry rules) is unchanged.
import type { MessagePort } from 'node:worker_threads';

/** A request the delivery thread hands to the main thread. */
export interface EgressRequestMessage {
  type: 'egress';
  id: number;
  url: string;
  method: string;
  headers: [string, string][];
  body: ArrayBuffer | null;
  redirect: Request['redirect'];
}

/** The main thread's answer: the response, or the error of a failed fetch. */
export type EgressReplyMessage =
  | { type: 'egress-result'; id: number; status: number; headers: [string, string][]; body: ArrayBuffer | null }
  | { type: 'egress-result'; id: number; error: string };

/** Whether the thread's requests go through the main thread (sent when the relay connector starts or stops). */
export interface EgressSwitchMessage {
  type: 'egress-switch';
  on: boolean;
}

type Port = Pick<MessagePort, 'postMessage'>;

/**
 * On the delivery thread: wraps `fetch` so that, while switched on, every request is made by the
 * main thread. Returns the switch and the function that settles a request with the main thread's
 * reply.
 */
export function installThreadEgress(port: Port, on: boolean): { switch(on: boolean): void; settle(reply: EgressReplyMessage): void } {
  let enabled = on;
  let nextId = 1;
  const pending = new Map<number, { resolve: (r: Response) => void; reject: (e: Error) => void }>();
  const original = globalThis.fetch.bind(globalThis);
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    if (!enabled) return original(input, init);
    const request = new Request(input, init);
    const headers: [string, string][] = [];
    request.headers.forEach((value, name) => headers.push([name, value]));
    const body = request.method === 'GET' || request.method === 'HEAD' ? null : await request.arrayBuffer();
    const id = nextId++;
    return new Promise<Response>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      const message: EgressRequestMessage = { type: 'egress', id, url: request.url, method: request.method, headers, body, redirect: request.redirect };
      port.postMessage(message, body ? [body] : []);
    });
  };
  return {
    switch(value) {
      enabled = value;
    },
    settle(reply) {
      const waiting = pending.get(reply.id);
      if (!waiting) return;
      pending.delete(reply.id);
      if ('error' in reply) waiting.reject(new TypeError(reply.error));
      else waiting.resolve(new Response(reply.body, { status: reply.status, headers: reply.headers }));
    },
  };
}

/** On the main thread: makes a request the delivery thread handed over, and posts the answer back. */
export async function answerEgress(port: Port, message: EgressRequestMessage, egress: (request: Request) => Promise<Response>): Promise<void> {
  let reply: EgressReplyMessage;
  try {
    const response = await egress(
      new Request(message.url, { method: message.method, headers: message.headers, body: message.body, redirect: message.redirect }),
    );
    const headers: [string, string][] = [];
    response.headers.forEach((value, name) => headers.push([name, value]));
    const body = response.body ? await response.arrayBuffer() : null;
    reply = { type: 'egress-result', id: message.id, status: response.status, headers, body };
  } catch (err) {
    reply = { type: 'egress-result', id: message.id, error: (err as Error).message };
  }
  port.postMessage(reply, 'body' in reply && reply.body ? [reply.body] : []);
}
