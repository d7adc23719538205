/**
 * Messages between the host and a sandbox worker. Everything the worker sends is validated
 * here before the host acts on it: a worker whose bridge is broken must fail its run with a
 * clear `sandbox` error, never wedge the host.
 */

export type WorkerMessage =
  | { t: 'ready' }
  | { t: 'call'; id: number; call: number; name: string; args: string }
  | { t: 'log'; id: number; level: 'log' | 'info' | 'warn' | 'error' | 'debug'; message: string }
  | { t: 'done'; id: number; ok: true; value: string }
  | { t: 'done'; id: number; ok: false; kind: 'script' | 'sandbox'; name: string; message: string; stack: string }
  | { t: 'pong'; id: number };

const LEVELS = new Set(['log', 'info', 'warn', 'error', 'debug']);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isStr = (v: unknown): v is string => typeof v === 'string';

/** Returns the message if it is well formed, else undefined. */
export function parseWorkerMessage(raw: unknown): WorkerMessage | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const m = raw as Record<string, unknown>;
  switch (m.t) {
    case 'ready':
      return { t: 'ready' };
    case 'call':
      return isInt(m.id) && isInt(m.call) && isStr(m.name) && isStr(m.args) ? (m as WorkerMessage) : undefined;
    case 'log':
      return isInt(m.id) && isStr(m.level) && LEVELS.has(m.level) && isStr(m.message) ? (m as WorkerMessage) : undefined;
    case 'done':
      if (!isInt(m.id)) return undefined;
      if (m.ok === true) return isStr(m.value) ? (m as WorkerMessage) : undefined;
      if (m.ok === false && (m.kind === 'script' || m.kind === 'sandbox') && isStr(m.name) && isStr(m.message) && isStr(m.stack)) {
        return m as WorkerMessage;
      }
      return undefined;
    case 'pong':
      return isInt(m.id) ? (m as WorkerMessage) : undefined;
    default:
      return undefined;
  }
}
