/**
 * The background scripts of one `code_execution` tool: a script started with
 * `background: true` that was still running when its call's wait ended keeps running here,
 * under an unguessable `scriptId` scoped to the conversation that started it, until it ends
 * (on its own, at its time limit, cancelled, or with its conversation); its result is then
 * kept for a bounded time and bytes and read with `action: "wait" | "status"`.
 *
 * Tenants never meet: every lookup names the conversation asking, and an id of another
 * conversation is answered exactly as an id that never existed (same text, same timing path).
 */
import { randomBytes } from 'node:crypto';
import type { ToolResult } from '../../host/types.ts';
import type { TimeLimit } from '../result.ts';
import type { StoredScripts } from './stored.ts';

/** Default cap on background scripts running at once on one host (each holds its conversation's VM or interpreter). */
export const DEFAULT_MAX_BACKGROUND_SCRIPTS = 16;
/**
 * Running background scripts per conversation: one. A background script holds its
 * conversation's session (conversation-lock.ts), so a second run in the conversation is refused
 * while it runs; this is that rule, named.
 */
export const MAX_RUNNING_PER_CONVERSATION = 1;
/** Finished results kept per conversation; past it the oldest is dropped (answered as expired). */
export const MAX_KEPT_PER_CONVERSATION = 8;
/** Default time a finished result is kept before it is dropped (answered as expired): 10 minutes. */
export const DEFAULT_BACKGROUND_RESULT_MS = 10 * 60_000;
/** Bytes of finished results kept on one host at most (their JSON); past it the oldest are dropped: 16 MiB. */
export const MAX_KEPT_RESULT_BYTES = 16 * 1024 * 1024;
/** Dropped ids remembered (to answer "expired" rather than "unknown"), per host; the oldest are forgotten first. */
export const MAX_EXPIRED_REMEMBERED = 4096;
/** Random bytes in a scriptId (144 bits): not guessable, not derived from any other id. */
const SCRIPT_ID_BYTES = 18;

/** Who started a background script (the `code_execution` call that returned `running`). */
export interface ScriptOrigin {
  conversationId: string;
  toolCallId: string;
  inferenceId: string;
  /** The run's time limit, repeated in every answer about it. */
  timeLimit: TimeLimit;
}

/** One background script, running or finished. */
export interface BackgroundScript extends ScriptOrigin {
  readonly scriptId: string;
  readonly startedAt: number;
  /** Aborted by cancel, the conversation's end or close: the runtime then stops the script. */
  readonly controller: AbortController;
  /** Settles with the script's result once it has stopped. */
  readonly done: Promise<ToolResult>;
  status: 'running' | 'completed' | 'cancelled';
  result?: ToolResult;
  bytes: number;
  /** Its call returned `running`: its end is announced (`script-finished`). */
  detached: boolean;
  /** Its conversation (or the host) ended: its result is not kept. */
  forgotten: boolean;
  expiry?: NodeJS.Timeout;
}

/** What a lookup finds: the script, an id dropped after its result expired, or nothing of this conversation. */
export type Lookup = { script: BackgroundScript } | { expired: true } | undefined;

export interface BackgroundLimits {
  maxRunning: number;
  resultMs: number;
}

export class BackgroundScripts {
  private readonly scripts = new Map<string, BackgroundScript>();
  /** Dropped ids → their conversation, oldest first. */
  private readonly expired = new Map<string, string>();
  private running = 0;
  private keptBytes = 0;
  private closed = false;

  constructor(
    private readonly limits: BackgroundLimits,
    private readonly onFinished: (script: BackgroundScript) => void,
    /** With a store: where a detached script's row and outcome go (stored.ts). */
    readonly stored?: StoredScripts,
  ) {}

  /** The call answers `running`: the script is announced when it ends, and (with a store) its row is written first. */
  async detach(script: BackgroundScript): Promise<void> {
    script.detached = true;
    if (this.stored !== undefined && script.status === 'running') await this.stored.started(script);
  }

  /** Why a new background script may not start now, or undefined. */
  refusal(): string | undefined {
    if (this.closed) return 'code_execution is shutting down; the script was not run.';
    if (this.running >= this.limits.maxRunning) {
      return `${this.running} background scripts are already running on this host (the most allowed); this one was not run. Wait for one to finish, or run without background.`;
    }
    return undefined;
  }

  /** The conversation's running background script, if any. */
  runningIn(conversationId: string): BackgroundScript | undefined {
    for (const script of this.scripts.values()) if (script.conversationId === conversationId && script.status === 'running') return script;
    return undefined;
  }

  /** Registers a script that runs `run(signal)`; its result is kept when it ends. */
  start(origin: ScriptOrigin, run: (signal: AbortSignal) => Promise<ToolResult>): BackgroundScript {
    const scriptId = `scr_${randomBytes(SCRIPT_ID_BYTES).toString('base64url')}`;
    const controller = new AbortController();
    this.running += 1;
    const script: BackgroundScript = {
      ...origin,
      scriptId,
      startedAt: performance.now(),
      controller,
      status: 'running',
      bytes: 0,
      detached: false,
      forgotten: false,
      done: run(controller.signal).then((result) => {
        this.finish(script, result);
        return result;
      }),
    };
    this.scripts.set(scriptId, script);
    return script;
  }

  /** The script `scriptId` of `conversationId`; another conversation's id is answered as unknown. */
  lookup(scriptId: unknown, conversationId: string): Lookup {
    if (typeof scriptId !== 'string') return undefined;
    const script = this.scripts.get(scriptId);
    if (script !== undefined) return script.conversationId === conversationId ? { script } : undefined;
    return this.expired.get(scriptId) === conversationId ? { expired: true } : undefined;
  }

  /** Waits up to `ms` (or until `signal` aborts) for the script to end; true when it has. */
  async wait(script: BackgroundScript, ms: number, signal?: AbortSignal): Promise<boolean> {
    if (script.result !== undefined) return true;
    if (ms <= 0 || signal?.aborted) return false;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const gaveUp = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
      onAbort = () => resolve(false);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([script.done.then(() => true), gaveUp]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Stops a running script (its runtime ends the VM or interrupts the interpreter). */
  cancel(script: BackgroundScript, reason = 'cancelled'): void {
    if (script.status !== 'running') return;
    script.status = 'cancelled';
    script.controller.abort(new Error(reason));
  }

  /** Forgets a finished script whose result was handed over. */
  drop(script: BackgroundScript): void {
    if (script.status === 'running') return;
    this.remove(script, false);
  }

  /** The conversation is over: its running scripts are cancelled, its results dropped (and forgotten). */
  endConversation(conversationId: string): Promise<unknown> {
    const stopping: Promise<unknown>[] = [];
    for (const script of [...this.scripts.values()]) {
      if (script.conversationId !== conversationId) continue;
      if (script.status === 'running') {
        script.forgotten = true;
        this.cancel(script, 'conversation ended');
        stopping.push(script.done);
      } else {
        if (script.detached) this.stored?.forget(script.scriptId);
        this.remove(script, false);
      }
    }
    for (const [id, owner] of this.expired) if (owner === conversationId) this.expired.delete(id);
    return Promise.all(stopping);
  }

  /** Cancels every running script and drops every result. */
  close(): Promise<unknown> {
    this.closed = true;
    const stopping: Promise<unknown>[] = [];
    for (const script of [...this.scripts.values()]) {
      if (script.status === 'running') {
        script.forgotten = true;
        this.cancel(script, 'host shutting down');
        stopping.push(script.done);
      } else this.remove(script, false);
    }
    this.expired.clear();
    // Stopped scripts' outcomes ("cancelled: host shutting down") reach the store before it closes.
    return Promise.all(stopping).then(() => this.stored?.close());
  }

  /** Scripts held now (running and finished), for tests and diagnostics. */
  get size(): { running: number; kept: number; keptBytes: number } {
    return { running: this.running, kept: this.scripts.size - this.running, keptBytes: this.keptBytes };
  }

  private finish(script: BackgroundScript, result: ToolResult): void {
    this.running -= 1;
    if (script.status === 'running') script.status = 'completed';
    script.result = result;
    this.onFinished(script);
    // Ended with its conversation: its row goes; ended by the host closing: its outcome is kept.
    if (script.detached) this.stored?.ended(script, script.forgotten && !this.closed);
    // Ended with its conversation (or the host): nobody can ask for it any more.
    if (script.forgotten) {
      this.remove(script, false);
      return;
    }
    script.bytes = resultBytes(result);
    this.keptBytes += script.bytes;
    script.expiry = setTimeout(() => this.remove(script, true), this.limits.resultMs);
    script.expiry.unref();
    this.trim(script.conversationId);
  }

  /** Keeps at most {@link MAX_KEPT_PER_CONVERSATION} results per conversation and {@link MAX_KEPT_RESULT_BYTES} per host. */
  private trim(conversationId: string): void {
    const finished = [...this.scripts.values()].filter((s) => s.status !== 'running');
    const mine = finished.filter((s) => s.conversationId === conversationId);
    for (const s of mine.slice(0, Math.max(0, mine.length - MAX_KEPT_PER_CONVERSATION))) this.remove(s, true);
    for (const s of finished) {
      if (this.keptBytes <= MAX_KEPT_RESULT_BYTES) break;
      if (this.scripts.has(s.scriptId)) this.remove(s, true);
    }
  }

  private remove(script: BackgroundScript, remember: boolean): void {
    if (!this.scripts.delete(script.scriptId)) return;
    clearTimeout(script.expiry);
    this.keptBytes -= script.bytes;
    if (!remember) return;
    this.expired.set(script.scriptId, script.conversationId);
    if (this.expired.size > MAX_EXPIRED_REMEMBERED) this.expired.delete(this.expired.keys().next().value as string);
  }
}

/** The bytes a kept result holds: its blocks' text and data, as JSON. */
function resultBytes(result: ToolResult): number {
  return Buffer.byteLength(JSON.stringify(result.content)) + (result.structuredContent ? Buffer.byteLength(JSON.stringify(result.structuredContent)) : 0);
}
