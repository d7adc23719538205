/**
 * One JavaScript run on one worker, host side: forwards the script's calls to the bindings,
 * enforces the limits, keeps the clock (which approvals may pause), and turns every way a run
 * can end into exactly one result.
 */
import { buildAliasTable } from '../names.ts';
import type { CallSummary, LogEntry, RunError, ToolBinding } from '../types.ts';
import type { JsLimits } from './limits.ts';
import type { SandboxWorker } from './pool.ts';
import type { WorkerMessage } from './protocol.ts';
import { sanitizeStack } from './stack.ts';

/** What `execute` resolves with; it never rejects for a script failure. */
export type ExecuteResult = ({ ok: true; value: unknown } | { ok: false; error: RunError }) & {
  logs: LogEntry[];
  calls: CallSummary[];
};

interface CallRecord {
  summary: CallSummary;
  started: number;
  controller: AbortController;
  open: boolean;
}

let runCounter = 0;

export class JsRun {
  readonly id = ++runCounter;
  private readonly logs: LogEntry[] = [];
  private readonly records: CallRecord[] = [];
  private readonly byCall = new Map<number, CallRecord>();
  private readonly bindings = new Map<string, ToolBinding>();
  private inFlight = 0;
  private finished = false;
  private timer: NodeJS.Timeout | undefined;
  private remainingMs: number;
  private clockStartedAt = 0;
  private pauses = 0;
  private resolve!: (result: ExecuteResult) => void;
  readonly result: Promise<ExecuteResult>;

  constructor(
    private readonly worker: SandboxWorker,
    private readonly code: string,
    tools: readonly ToolBinding[],
    private readonly limits: JsLimits,
    private readonly signal: AbortSignal | undefined,
    private readonly recycle: (worker: SandboxWorker, healthy: boolean) => void,
  ) {
    this.remainingMs = limits.timeoutMs;
    this.result = new Promise((resolve) => {
      this.resolve = resolve;
    });
    for (const t of tools) this.bindings.set(t.name, t);
  }

  start(): void {
    const toolNames = [...this.bindings.values()].filter((t) => t.kind !== 'global').map((t) => t.name);
    const globals = [...this.bindings.values()].filter((t) => t.kind === 'global').map((t) => t.name);
    const { aliases, collisions } = buildAliasTable(toolNames);
    for (const c of collisions) {
      this.logs.push({ level: 'warn', message: `tools ${c.names.join(', ')} all sanitize to "${c.identifier}"; reach them as tools["<name>"]` });
    }
    this.worker.onMessage = (m) => this.onMessage(m);
    this.worker.onFailure = (reason, oom) => this.finish({ ok: false, error: { kind: 'sandbox', name: oom ? 'RangeError' : 'Error', message: reason } }, false);
    if (this.signal) {
      if (this.signal.aborted) return this.abort();
      this.signal.addEventListener('abort', this.onAbort, { once: true });
    }
    this.runClock();
    this.worker.post({
      t: 'run',
      id: this.id,
      code: this.code,
      setup: JSON.stringify({ tools: toolNames, aliases: [...aliases], collisions: collisions.map((c) => [c.identifier, c.names.join(', ')]), globals }),
      limits: { maxArgsBytes: this.limits.maxArgsBytes, maxLogBytes: this.limits.maxLogBytes, maxReturnBytes: this.limits.maxReturnBytes },
    });
  }

  // ── the clock: paused while any call holds pauseClock ──────────────────
  private runClock(): void {
    this.clockStartedAt = performance.now();
    this.timer = setTimeout(() => this.onTimeout(), this.remainingMs);
  }

  private pauseClock = (): (() => void) => {
    if (this.finished) return () => undefined;
    if (this.pauses++ === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.remainingMs -= performance.now() - this.clockStartedAt;
    }
    let resumed = false;
    return () => {
      if (resumed) return;
      resumed = true;
      if (--this.pauses === 0 && !this.finished) this.runClock();
    };
  };

  private onTimeout = (): void => {
    this.finish({ ok: false, error: { kind: 'timeout', message: `the script exceeded its time limit of ${this.limits.timeoutMs} ms and was stopped` } }, false);
  };

  private onAbort = (): void => this.abort();

  private abort(): void {
    this.finish({ ok: false, error: { kind: 'aborted', message: 'the run was aborted' } }, false);
  }

  // ── messages from the worker ───────────────────────────────────────────
  private onMessage(message: WorkerMessage): void {
    if (this.finished || !('id' in message) || message.id !== this.id) return;
    switch (message.t) {
      case 'call':
        this.onCall(message.call, message.name, message.args);
        break;
      case 'log':
        this.logs.push({ level: message.level, message: message.message });
        break;
      case 'done':
        if (message.ok) {
          let value: unknown;
          try {
            value = message.value === '' ? undefined : JSON.parse(message.value);
          } catch {
            this.finish({ ok: false, error: { kind: 'sandbox', message: 'the sandbox returned an unreadable value' } }, false);
            return;
          }
          this.finish({ ok: true, value }, true);
        } else {
          const stack = sanitizeStack(message.stack, message.name, message.message);
          this.finish({ ok: false, error: { kind: message.kind, name: message.name, message: message.message, ...(stack ? { stack } : {}) } }, true);
        }
        break;
      default:
        break;
    }
  }

  private reply(call: number, ok: boolean, payload: string): void {
    this.worker.post({ t: 'result', id: this.id, call, ok, payload });
  }

  private onCall(call: number, name: string, args: string): void {
    const binding = this.bindings.get(name);
    if (!binding) return this.reply(call, false, JSON.stringify({ name: 'ReferenceError', message: `no tool named ${name}` }));
    const counted = binding.kind !== 'global';
    if (counted && this.records.length >= this.limits.maxCalls) {
      return this.reply(call, false, JSON.stringify({ name: 'RangeError', message: `the script made more than ${this.limits.maxCalls} tool calls` }));
    }
    if (this.inFlight >= this.limits.maxInFlight) {
      return this.reply(call, false, JSON.stringify({ name: 'RangeError', message: `more than ${this.limits.maxInFlight} tool calls in flight at once` }));
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(args);
    } catch {
      return this.reply(call, false, JSON.stringify({ name: 'TypeError', message: `arguments of ${name} are not JSON` }));
    }
    const record: CallRecord = { summary: { name, status: 'cancelled', durationMs: 0 }, started: performance.now(), controller: new AbortController(), open: true };
    if (counted) this.records.push(record);
    this.byCall.set(call, record);
    this.inFlight += 1;
    let pending: Promise<unknown>;
    try {
      pending = Promise.resolve(binding.invoke(parsed, { signal: record.controller.signal, pauseClock: this.pauseClock }));
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      (value) => this.settle(call, record, true, value),
      (error) => this.settle(call, record, false, error),
    );
  }

  private settle(call: number, record: CallRecord, ok: boolean, outcome: unknown): void {
    if (!record.open) return;
    record.open = false;
    this.inFlight -= 1;
    this.byCall.delete(call);
    // After the run ended, a late outcome is consumed here and never delivered anywhere.
    if (this.finished) return;
    record.summary.durationMs = Math.round(performance.now() - record.started);
    if (ok) {
      let payload: string | undefined;
      try {
        payload = outcome === undefined ? '' : JSON.stringify(outcome);
      } catch (error) {
        record.summary.status = 'error';
        return this.reply(call, false, JSON.stringify({ name: 'TypeError', message: `the result of ${record.summary.name} is not JSON-serializable: ${(error as Error).message}` }));
      }
      if (payload === undefined) payload = '';
      if (payload.length > this.limits.maxResultBytes) {
        record.summary.status = 'error';
        return this.reply(call, false, JSON.stringify({ name: 'RangeError', message: `the result of ${record.summary.name} exceeds ${this.limits.maxResultBytes} bytes` }));
      }
      record.summary.status = 'ok';
      this.reply(call, true, payload);
    } else {
      record.summary.status = 'error';
      const e = outcome as { name?: unknown; message?: unknown } | null;
      const name = typeof e?.name === 'string' ? e.name : 'Error';
      const message = typeof e?.message === 'string' ? e.message : String(outcome);
      this.reply(call, false, JSON.stringify({ name, message }));
    }
  }

  /** Ends the run once. `healthy` says the worker finished normally and may be reused after a liveness check. */
  private finish(outcome: { ok: true; value: unknown } | { ok: false; error: RunError }, healthy: boolean): void {
    if (this.finished) return;
    this.finished = true;
    if (this.timer) clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this.onAbort);
    for (const record of this.byCall.values()) {
      // Still running when the script ended: aborted through its signal, recorded as cancelled.
      record.summary.durationMs = Math.round(performance.now() - record.started);
      record.controller.abort(new Error('the script ended before this call finished'));
    }
    this.worker.onMessage = undefined;
    this.worker.onFailure = undefined;
    this.resolve({ ...outcome, logs: this.logs, calls: this.records.map((r) => r.summary) });
    this.recycle(this.worker, healthy);
  }
}
