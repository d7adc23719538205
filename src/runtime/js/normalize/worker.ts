/**
 * The normalizing thread's body (see ./pool.ts): prepares each script it is sent — fence, acorn
 * parse, TypeScript stripping with amaro, rewrites — and answers with the prepared script as
 * plain data, or with why it failed. Any failure but a script's own syntax error (which
 * prepareScript reports as data) is answered `ok: false`, and the pool ends this thread: amaro's
 * WebAssembly instance may be left broken by it (a stack overflow inside swc leaves "memory
 * access out of bounds" for every later call), so it is never used again.
 */
import { parentPort } from 'node:worker_threads';
import { prepareScript, type PreparedScript } from './script.ts';
import type { FenceLanguage } from './fence.ts';

/** What the pool sends. */
export interface PrepareRequest {
  id: number;
  code: string;
  language: FenceLanguage;
}

/** What the thread answers (`ready` once, when it has loaded). */
export type PrepareReply = { ready: true } | { id: number; ok: true; prepared: PreparedScript } | { id: number; ok: false; message: string };

const port = parentPort!;
port.on('message', ({ id, code, language }: PrepareRequest) => {
  let reply: PrepareReply;
  try {
    reply = { id, ok: true, prepared: prepareScript(code, language)! };
  } catch (error) {
    reply = { id, ok: false, message: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
  port.postMessage(reply);
});
port.postMessage({ ready: true } satisfies PrepareReply);
