/**
 * Forwards a call's progress to the MCP client that asked for it (`_meta.progressToken`).
 * MCP requires each notification's `progress` to increase, so a value that does not is dropped
 * rather than sent; a notification that cannot be written (the client is gone) is logged, and
 * never fails the call.
 */
import type { Logger } from 'pino';
import type { ProgressToken } from '@modelcontextprotocol/sdk/types.js';
import type { DispatchRequest } from '../host/types.ts';

type ProgressSink = NonNullable<DispatchRequest['onProgress']>;

export interface ProgressNotification {
  method: 'notifications/progress';
  params: { progressToken: ProgressToken; progress: number; total?: number; message?: string };
}

/** A dispatch `onProgress` that sends `notifications/progress` for `token` through `send`. */
export function progressForwarder(token: ProgressToken, send: (n: ProgressNotification) => Promise<void>, logger: Logger): ProgressSink {
  let last = -Infinity;
  return (p) => {
    if (!Number.isFinite(p.progress) || p.progress <= last) return;
    last = p.progress;
    const params: ProgressNotification['params'] = { progressToken: token, progress: p.progress };
    if (typeof p.total === 'number' && Number.isFinite(p.total)) params.total = p.total;
    if (typeof p.message === 'string') params.message = p.message;
    send({ method: 'notifications/progress', params }).catch((error: unknown) => {
      logger.debug({ err: error, progressToken: token }, 'progress notification not delivered');
    });
  };
}
