/**
 * The model's side of background scripts: how long a call waits (`wait_ms`), the `running`
 * answer, and `code_execution({ action: "wait" | "status" | "cancel", scriptId })`.
 * Every answer is a result envelope (the tool's outputSchema) carrying `status` and `scriptId`,
 * or a text-only error for bad input, an unknown id (which is also the answer for another
 * conversation's id) and an expired one.
 */
import type { ToolResult } from '../../host/types.ts';
import { refusalResult } from '../result.ts';
import type { TimeLimit } from '../result.ts';
import { MAX_KEPT_PER_CONVERSATION, type BackgroundScripts } from './registry.ts';
import { STORED_POLL_MS, type StoredLookup, type StoredScripts } from './stored.ts';

/** Default `wait_ms`: how long a call waits for a background script before answering `running` (10 s). */
export const DEFAULT_WAIT_MS = 10_000;
/** Default ceiling on `wait_ms` (60 s): a call's wait is bounded whatever the model asks. */
export const DEFAULT_MAX_WAIT_MS = 60_000;
/**
 * Longest a `cancel` waits for the script to stop before answering (15 s). JavaScript stops at
 * once (its VM is ended); Python is interrupted, then killed, within the runner's own bound.
 */
export const CANCEL_WAIT_MS = 15_000;

export interface WaitBounds {
  defaultWaitMs: number;
  maxWaitMs: number;
}

export const ACTIONS = ['wait', 'status', 'cancel'] as const;

/** One answer for an id that does not exist and for an id of another conversation: they must not be told apart. */
export const UNKNOWN_SCRIPT = 'Unknown scriptId: no background script with this id in this conversation.';

/** `wait_ms` as milliseconds within the bounds, or a message saying why not. */
export function waitMs(value: unknown, bounds: WaitBounds): number | { refused: string } {
  if (value === undefined) return bounds.defaultWaitMs;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return { refused: 'wait_ms must be a number of milliseconds ≥ 0.' };
  return Math.min(value, bounds.maxWaitMs);
}

/** The answer while a script runs: an envelope with `status: "running"` and its id. */
export function runningResult(script: { scriptId: string; timeLimit: TimeLimit }): ToolResult {
  const envelope = { ok: true, status: 'running', scriptId: script.scriptId, calls: [], timeLimit: script.timeLimit };
  return { content: [{ type: 'text', text: JSON.stringify(envelope) }], structuredContent: envelope };
}

/** A finished script's result, its envelope marked with `status` and `scriptId`. */
export function finishedResult(script: { scriptId: string; status: string; result?: ToolResult }): ToolResult {
  const result = script.result!;
  const envelope = result.structuredContent;
  if (envelope === undefined) return result;
  const marked = { ...envelope, status: script.status, scriptId: script.scriptId };
  const [, ...rest] = result.content;
  return { ...result, content: [{ type: 'text', text: JSON.stringify(marked) }, ...rest], structuredContent: marked };
}

/** Answers `{ action, scriptId, wait_ms? }` for the conversation asking. */
export async function answerAction(
  args: Record<string, unknown>,
  conversationId: string,
  scripts: BackgroundScripts,
  bounds: WaitBounds & { resultMs: number },
  signal: AbortSignal,
): Promise<ToolResult> {
  const action = args.action;
  if (typeof action !== 'string' || !(ACTIONS as readonly string[]).includes(action)) return refusalResult(`action must be one of: ${ACTIONS.join(', ')}.`);
  if (args.code !== undefined) return refusalResult(`action "${action}" takes a scriptId, not code.`);
  if (typeof args.scriptId !== 'string' || args.scriptId === '') return refusalResult(`action "${action}" needs scriptId: the id a running answer gave.`);
  const ms = action === 'wait' ? waitMs(args.wait_ms, bounds) : 0;
  if (typeof ms !== 'number') return refusalResult(ms.refused);
  const found = scripts.lookup(args.scriptId, conversationId);
  if (found === undefined) {
    // Not one of this instance's: with a store, another instance's row may answer (stored.ts).
    return scripts.stored === undefined ? refusalResult(UNKNOWN_SCRIPT) : answerStored(action, args.scriptId, conversationId, scripts.stored, ms, signal);
  }
  if ('expired' in found) {
    return refusalResult(`That script's result has expired and was dropped (results are kept ${Math.round(bounds.resultMs / 1000)} s, the last ${MAX_KEPT_PER_CONVERSATION} per conversation).`);
  }
  const { script } = found;
  if (action === 'cancel') {
    scripts.cancel(script);
    await scripts.wait(script, CANCEL_WAIT_MS);
  } else if (action === 'wait') {
    await scripts.wait(script, ms, signal);
  }
  return script.result === undefined ? runningResult(script) : finishedResult(script);
}

/** The answer for a script another instance ran or runs, from its row in the store. */
async function answerStored(action: string, scriptId: string, conversationId: string, stored: StoredScripts, ms: number, signal: AbortSignal): Promise<ToolResult> {
  const until = Date.now() + ms;
  let seen: StoredLookup | undefined;
  try {
    seen = await stored.lookup(scriptId, conversationId);
    // `wait` reads the row again while the script runs, until it ends, is lost, or the wait is over.
    while (action === 'wait' && seen?.state === 'running' && Date.now() < until && !signal.aborted) {
      await pause(Math.min(STORED_POLL_MS, until - Date.now()), signal);
      seen = await stored.lookup(scriptId, conversationId);
    }
  } catch (error) {
    return refusalResult(`The background script could not be looked up in the store: ${(error as Error).message}`);
  }
  if (seen === undefined) return refusalResult(UNKNOWN_SCRIPT);
  if (seen.state === 'lost') {
    return refusalResult(`Background script ${scriptId} was running at an instance that stopped before it ended: its outcome is unknown, and it was not run again (calls it made may have run). Run it again if that is safe.`);
  }
  if (seen.state === 'running') {
    if (action === 'cancel') return refusalResult(`Background script ${scriptId} is running at another instance; it can be cancelled only there. Wait for it instead.`);
    return runningResult(seen);
  }
  return finishedResult({ scriptId, status: seen.state, result: seen.result });
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal.addEventListener('abort', done, { once: true });
  });
}
