/**
 * Tells a serve client that a background script it started has ended: the host's
 * `script-finished` event becomes the notification {@link SCRIPT_FINISHED_METHOD}, sent on the
 * session whose conversations include the script's, and on no other (sessions own their
 * conversations, session.ts). A session that has ended has released its conversations (their
 * scripts were cancelled with them), so nothing is sent to it.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Logger } from 'pino';
import type { ToolHost, ToolHostEvents } from '../host/tool-host.ts';
import type { ServeSession } from './session.ts';

/**
 * The notification's method. MCP leaves methods outside its own to the parties; a client that
 * does not know it ignores it. Params: `{ scriptId, status: "completed" | "cancelled", ok }`;
 * the result is read with `code_execution({ action: "wait", scriptId })` on the same
 * conversation.
 */
export const SCRIPT_FINISHED_METHOD = 'notifications/toolcell/script_finished';

type Listener = ToolHostEvents['script-finished'];

/**
 * One host listener per host, fanning out to its sessions and their tasks (script-tasks.ts): an HTTP server holds many sessions,
 * and one listener each would trip the emitter's leak warning past ten.
 */
const sessionsOf = new WeakMap<ToolHost, Set<Listener>>();

/** Calls `listener` with every `script-finished` event of `host` until the returned function is called. */
export function subscribeScriptsFinished(host: ToolHost, listener: Listener): () => void {
  let listeners = sessionsOf.get(host);
  if (listeners === undefined) {
    const set = (listeners = new Set());
    sessionsOf.set(host, set);
    host.on('script-finished', (info) => {
      for (const each of set) each(info);
    });
  }
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Forwards the host's `script-finished` events of `session`'s conversations to its client until the session ends. */
export function notifyScriptsFinished(host: ToolHost, session: ServeSession, server: Server, logger: Logger): void {
  const listener: Listener = (info) => {
    if (session.ended !== undefined || !session.conversations.has(info.conversationId)) return;
    const params = { scriptId: info.scriptId, status: info.status, ok: info.ok };
    // A custom method: the SDK's server types list only MCP's own notifications.
    (server as unknown as { notification(n: { method: string; params: Record<string, unknown> }): Promise<void> })
      .notification({ method: SCRIPT_FINISHED_METHOD, params })
      .catch((error: unknown) => logger.debug({ err: error, conversationId: session.conversationId }, 'script-finished notification not delivered'));
  };
  const unsubscribe = subscribeScriptsFinished(host, listener);
  session.onEnd(() => void unsubscribe());
}
