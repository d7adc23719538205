/**
 * One run, host side: forwards the script's calls to their bindings, records them, keeps the
 * pausable clock, and turns every way a run can end into exactly one result.
 *
 * The run's limits are checked here on every frame, whatever the engine behind the process:
 * a sandbox process is expected to enforce them first (so the data never crosses), but the
 * host's memory and event loop never depend on it doing so.
 */
import type { DurableReads } from '../durable-reads.ts';
import type { CallSummary, Conversion, LogEntry, OutputListener, RunError, SessionInfo, ToolBinding, ToolCallContext } from '../types.ts';
import { JsonText, rememberText } from '../json-text.ts';
import { toolLabel, type BindingPlan } from './bindings.ts';
import { jsonDeeperThan } from './sandbox/json-depth.mjs';
import { PausableDeadline } from './clock.ts';
import type { JsLimits } from './limits.ts';
import { runHeader, type ChildCall, type ChildMessage } from './protocol.ts';
import type { ProcessEnd, SandboxProcess } from './sandbox-process.ts';

/**
 * What a run needs of its sandbox: a whole process (V8 engine) or one run's channel in a shared
 * process (QuickJS engine), where `kill` ends only that run.
 */
export type RunProcess = Pick<SandboxProcess, 'ref' | 'listen' | 'send' | 'kill' | 'catalogs'>;

/** What one run adds to its shared plan: call sites on or off, and the scope its bindings get. */
export interface RunOptions {
  sites: boolean;
  scope: unknown;
  /** Told each admitted console/print line as its frame arrives (live output). */
  onOutput?: OutputListener | undefined;
  /** A durable run's seed and clock reads (docs/durable.md). */
  durable?: DurableReads | undefined;
}

/** What `execute` resolves with; it never rejects for a script failure. */
export type ExecuteResult = ({ ok: true; value: unknown; converted?: Conversion[] } | { ok: false; error: RunError }) & {
  logs: LogEntry[];
  calls: CallSummary[];
  /** What the script print()ed, one line per call; absent when it printed nothing. */
  stdout?: string;
  /** Whether the run started in a fresh session (see {@link SessionInfo}). */
  session?: SessionInfo;
};

/** The message of an `aborted` error, with the abort reason when it is an Error. */
export function abortMessage(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return `the run was aborted${reason instanceof Error && reason.message ? `: ${reason.message}` : ''}`;
}

/** The first character of a return value's text when conversions were made: JSON text never starts with it. */
const CONVERTED_MARK = 1;
const SETTLED = Promise.resolve();

/**
 * The kinds of answer in a `res` frame (its `ok` flag), as both preludes' `deliver` reads them:
 * a failure (the payload is its message), JSON text, or a tool's text that is the value's JSON
 * when it parses as JSON and the value itself, a string, when it does not (json-text.ts).
 */
const ANSWER_ERROR = 0;
const ANSWER_JSON = 1;
const ANSWER_TEXT = 2;

/** How long a sandbox process may take to report idle after a run before it is replaced. */
const LIVENESS_MS = 300;

interface PendingCall {
  binding: ToolBinding;
  /** Null for globals, which are not recorded. */
  summary: CallSummary | null;
  started: number;
  context: CallContext;
  /** UTF-8 bytes of its JSON arguments, counted against maxInFlightBytes until it settles. */
  bytes: number;
}

/**
 * What a binding gets with each call. The AbortController is made on first use of `signal`:
 * most tools never look, and one costs about as much as the rest of a call.
 */
class CallContext implements ToolCallContext {
  private controller: AbortController | undefined;
  private cancelled = false;

  constructor(
    readonly pauseClock: () => () => void,
    readonly scope: unknown,
    readonly site?: { line: number; column?: number },
  ) {}

  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    if (this.cancelled && !this.controller.signal.aborted) this.controller.abort(cancellation());
    return this.controller.signal;
  }

  /** The script ended while this call was still running. */
  cancel(): void {
    this.cancelled = true;
    this.controller?.abort(cancellation());
  }
}

function cancellation(): DOMException {
  return new DOMException('the script ended before this call finished', 'AbortError');
}

/** What happens to the process once the run is over. */
export interface SessionRelease {
  /** The process finished cleanly and will report idle (or be killed) soon. */
  returning(): void;
  /** `healthy`: it reported idle in time and may serve another run. */
  release(process: RunProcess, healthy: boolean, wasReturning: boolean): void;
}

export class RunSession {
  readonly result: Promise<ExecuteResult>;
  private resolve!: (result: ExecuteResult) => void;
  private readonly logs: LogEntry[] = [];
  private stdout = '';
  /**
   * From the sandbox process's outcome (QuickJS): whether the run started fresh, whether its VM
   * was kept, whether its VM installed the bindings (rather than keeping those of its last run).
   */
  reported: { fresh?: boolean; kept?: boolean; bound?: boolean; mem?: number } = {};
  /** The run's frame carried the tool catalog: its process did not hold it yet. */
  catalogSent = false;
  private readonly calls: CallSummary[] = [];
  private readonly pending = new Map<number, PendingCall>();
  private readonly deadline: PausableDeadline;
  private readonly pauseClock = (): (() => void) => this.deadline.pause();
  private replyHeader: Array<number | string | null> = [];
  private replyPayloads: string[] = [];
  private replyScheduled = false;
  private finished = false;
  private callCount = 0;
  private inflightBytes = 0;
  private logBytes = 0;
  private logEntries = 0;

  constructor(
    private readonly process: RunProcess,
    private readonly runId: number,
    private readonly code: string,
    private readonly plan: BindingPlan,
    private readonly options: RunOptions,
    private readonly limits: JsLimits,
    private readonly signal: AbortSignal | undefined,
    private readonly owner: SessionRelease,
  ) {
    this.result = new Promise((resolve) => {
      this.resolve = resolve;
    });
    this.deadline = new PausableDeadline(limits.timeoutMs, () =>
      this.fail({ kind: 'timeout', message: `the script did not finish within its time limit of ${limits.timeoutMs} ms` }),
    );
  }

  start(): void {
    if (this.signal?.aborted) {
      // Aborted while a process was being found: nothing was sent, so it goes straight back.
      this.finished = true;
      this.resolve({ ok: false, error: { kind: 'aborted', message: abortMessage(this.signal) }, logs: [], calls: [] });
      this.owner.release(this.process, true, false);
      return;
    }
    this.process.ref();
    this.process.listen({ message: (m) => this.onMessage(m), end: (e) => this.onEnd(e) });
    this.signal?.addEventListener('abort', this.onAbort, { once: true });
    this.deadline.start();
    // The catalog travels only to a process that does not hold it yet; `forget` names those it
    // may drop, so what it keeps stays bounded and known to the host.
    const { send, forget } = this.process.catalogs.use(this.plan.id);
    this.catalogSent = send;
    const header = {
      ...runHeader(this.runId, this.limits),
      cat: this.plan.id,
      ...(forget.length > 0 ? { forget } : {}),
      ...(this.options.sites ? { sites: true } : {}),
      ...(this.options.durable ? { dur: { seed: this.options.durable.seed, clock: this.options.durable.clock } } : {}),
    };
    this.process.send(header, send ? [this.code, this.plan.config] : [this.code]);
  }

  /** Ends the run from outside (the runtime is closing). */
  abort(message: string): void {
    this.fail({ kind: 'aborted', message });
  }

  private readonly onAbort = (): void => {
    this.fail({ kind: 'aborted', message: abortMessage(this.signal!) });
  };

  private onMessage(message: ChildMessage): void {
    if (this.finished) return;
    if (!('run' in message) || message.run !== this.runId) {
      return this.fail({ kind: 'sandbox', message: `broken sandbox bridge: unexpected ${message.t} message` });
    }
    switch (message.t) {
      case 'out':
        for (const call of message.calls) {
          this.startCall(call);
          if (this.finished) return;
        }
        for (const log of message.logs) {
          if (log.level === 'clock') {
            // Not output: the run's clock reads, kept by the journal (which bounds them).
            let reads: unknown;
            try {
              reads = JSON.parse(log.message);
            } catch {
              return this.fail({ kind: 'sandbox', message: 'broken sandbox bridge: clock reads are not JSON' });
            }
            this.options.durable?.onClock(reads);
            continue;
          }
          if (!this.acceptLog(log)) return;
          if (log.level === 'stdout') this.stdout += log.message + '\n';
          else this.logs.push(log as LogEntry);
          this.options.onOutput?.(log.level as LogEntry['level'] | 'stdout', log.message);
        }
        return;
      case 'done': {
        this.reported = { fresh: message.fresh, kept: message.kept, bound: message.bound, mem: message.mem };
        if (!message.ok) return this.finish({ ok: false, error: message.error }, true);
        const problem = this.returnProblem(message.json);
        if (problem !== undefined) return this.finish({ ok: false, error: { kind: 'script', name: 'RangeError', message: problem } }, true);
        let value: unknown;
        let converted: Conversion[] | undefined;
        try {
          if (message.json.charCodeAt(0) === CONVERTED_MARK) {
            // guest-core.js's returnJson: the value wrapped with the conversions it needed.
            ({ value, converted } = JSON.parse(message.json.slice(1)) as { value: unknown; converted: Conversion[] });
          } else if (message.json !== '') {
            value = JSON.parse(message.json);
            // The result's text is written from this text rather than serialized again (json-text.ts).
            rememberText(value, message.json);
          }
        } catch {
          return this.fail({ kind: 'sandbox', message: 'broken sandbox bridge: the return value is not JSON' });
        }
        return this.finish(converted === undefined ? { ok: true, value } : { ok: true, value, converted }, true);
      }
      default:
        return this.fail({ kind: 'sandbox', message: `broken sandbox bridge: unexpected ${message.t} message` });
    }
  }

  /** maxLogEntries and maxLogBytes; past either the run fails (and the process, which should have stopped it, is replaced). */
  private acceptLog(log: { message: string }): boolean {
    const { maxLogEntries, maxLogBytes } = this.limits;
    if (++this.logEntries > maxLogEntries) {
      this.failScript(`the script wrote more than ${maxLogEntries} log entries (limit maxLogEntries)`);
      return false;
    }
    this.logBytes += log.message.length * 3 <= maxLogBytes - this.logBytes ? log.message.length : Buffer.byteLength(log.message, 'utf8');
    if (this.logBytes > maxLogBytes) {
      this.failScript(`console output exceeded ${maxLogBytes} bytes (limit maxLogBytes)`);
      return false;
    }
    return true;
  }

  /** maxReturnBytes and maxDepth for a returned value's JSON. */
  private returnProblem(json: string): string | undefined {
    const { maxReturnBytes, maxDepth } = this.limits;
    if (json.length * 3 > maxReturnBytes) {
      const bytes = Buffer.byteLength(json, 'utf8');
      if (bytes > maxReturnBytes) return `the return value is ${bytes} bytes, over the ${maxReturnBytes}-byte limit (maxReturnBytes)`;
    }
    if (jsonDeeperThan(json, maxDepth)) return `the return value is nested deeper than ${maxDepth} levels (limit maxDepth)`;
    return undefined;
  }

  /** Why a call must be refused before it reaches its binding, for the per-call limits. */
  private callProblem(call: ChildCall, bytes: number): string | undefined {
    const { maxInFlight, maxArgsBytes, maxInFlightBytes, maxDepth } = this.limits;
    const label = call.global ? `${call.name}()` : toolLabel(call.name);
    if (this.pending.size >= maxInFlight) {
      return `${label}: ${maxInFlight} calls are already in flight (limit maxInFlight); await some before starting more`;
    }
    if (bytes > maxArgsBytes) return `the arguments of ${label} are ${bytes} bytes, over the ${maxArgsBytes}-byte limit (maxArgsBytes)`;
    if (jsonDeeperThan(call.args, maxDepth)) return `the arguments of ${label} are nested deeper than ${maxDepth} levels (limit maxDepth)`;
    if (this.inflightBytes + bytes > maxInFlightBytes) {
      return `${label}: its ${bytes} bytes of arguments would put more than the ${maxInFlightBytes}-byte limit (maxInFlightBytes) in flight; await some calls before starting more`;
    }
    return undefined;
  }

  private failScript(message: string): void {
    this.fail({ kind: 'script', name: 'RangeError', message });
  }

  private onEnd(end: ProcessEnd): void {
    if (!this.finished) this.fail({ kind: 'sandbox', message: end.message });
  }

  private startCall(call: ChildCall): void {
    const binding = call.global ? this.plan.globals.get(call.name) : this.plan.tools.get(call.name);
    if (binding === undefined || this.pending.has(call.id)) {
      return this.fail({ kind: 'sandbox', message: `broken sandbox bridge: call to unknown ${call.global ? 'global' : 'tool'} ${call.name}` });
    }
    if (++this.callCount > this.limits.maxCalls) {
      return this.failScript(`the script made more than ${this.limits.maxCalls} tool calls (limit maxCalls)`);
    }
    const bytes = Buffer.byteLength(call.args, 'utf8');
    const problem = this.callProblem(call, bytes);
    if (problem !== undefined) {
      // Refused as the sandbox process would have: rejected inside the script, never run or recorded.
      this.queueReply(call.id, ANSWER_ERROR, problem, 'RangeError');
      return;
    }
    let args: unknown;
    try {
      args = call.args === '' ? undefined : JSON.parse(call.args);
    } catch {
      return this.fail({ kind: 'sandbox', message: 'broken sandbox bridge: call arguments are not JSON' });
    }
    const summary: CallSummary | null = call.global ? null : { name: call.name, status: 'cancelled', durationMs: 0 };
    if (summary) this.calls.push(summary);
    const entry: PendingCall = { binding, summary, started: performance.now(), context: new CallContext(this.pauseClock, this.options.scope, call.site), bytes };
    this.pending.set(call.id, entry);
    this.inflightBytes += bytes;
    let outcome: Promise<unknown>;
    try {
      outcome = Promise.resolve(binding.invoke(args, entry.context));
    } catch (error) {
      outcome = Promise.reject(error);
    }
    outcome.then(
      (value) => this.settle(call.id, entry, value),
      (error: unknown) => this.settleError(call.id, entry, error),
    );
  }

  private settle(id: number, entry: PendingCall, value: unknown): void {
    if (this.finished || this.pending.get(id) !== entry) return;
    let json: string | undefined;
    // A tool's text the VM parses itself (json-text.ts): it crosses as it is, bounded below like any answer.
    const text = value instanceof JsonText;
    try {
      json = text ? value.text : value === undefined ? '' : JSON.stringify(value);
    } catch (error) {
      return this.answerError(id, entry, 'TypeError', `${this.label(entry)} returned a value that is not JSON-serializable: ${(error as Error).message}`);
    }
    if (json === undefined) json = ''; // functions and symbols serialize to nothing, as in JSON
    const max = this.limits.maxResultBytes;
    if (json.length * 3 > max) {
      const bytes = Buffer.byteLength(json, 'utf8');
      if (bytes > max) {
        return this.answerError(id, entry, 'RangeError', `the result of ${this.label(entry)} is ${bytes} bytes, over the ${max}-byte limit (maxResultBytes)`);
      }
    }
    this.close(id, entry, 'ok');
    this.queueReply(id, text ? ANSWER_TEXT : ANSWER_JSON, json, null);
  }

  private settleError(id: number, entry: PendingCall, error: unknown): void {
    if (this.finished || this.pending.get(id) !== entry) return;
    const e = error as { name?: unknown; message?: unknown } | null;
    const isErrorLike = typeof e === 'object' && e !== null && typeof e.message === 'string';
    const name = isErrorLike && typeof e.name === 'string' && e.name !== '' ? e.name : 'Error';
    const message = isErrorLike ? (e.message as string) : String(error);
    this.answerError(id, entry, name, message);
  }

  private answerError(id: number, entry: PendingCall, name: string, message: string): void {
    this.close(id, entry, 'error');
    this.queueReply(id, ANSWER_ERROR, message, name);
  }

  private close(id: number, entry: PendingCall, status: 'ok' | 'error'): void {
    this.pending.delete(id);
    this.inflightBytes -= entry.bytes;
    if (entry.summary) {
      entry.summary.status = status;
      entry.summary.durationMs = performance.now() - entry.started;
    }
  }

  private label(entry: PendingCall): string {
    return entry.summary ? `tool ${entry.binding.name}` : `global ${entry.binding.name}()`;
  }

  /** Answers are batched per microtask: many calls settling together cross in one frame. */
  private queueReply(id: number, ok: typeof ANSWER_ERROR | typeof ANSWER_JSON | typeof ANSWER_TEXT, payload: string, errorName: string | null): void {
    this.replyHeader.push(id, ok, errorName);
    this.replyPayloads.push(payload);
    if (this.replyScheduled) return;
    this.replyScheduled = true;
    // A settled promise's then, not queueMicrotask: Node wraps each queueMicrotask callback in an
    // async resource (its destroy hook ran per call: 1.5 µs of the host's ~80 µs per inner call).
    void SETTLED.then(this.flushReplies);
  }

  private readonly flushReplies = (): void => {
    this.replyScheduled = false;
    const r = this.replyHeader;
    const payloads = this.replyPayloads;
    this.replyHeader = [];
    this.replyPayloads = [];
    // `ms`: the time left, for a QuickJS process that enforces the deadline while the script runs.
    if (!this.finished) this.process.send({ t: 'res', run: this.runId, r, ms: this.deadline.remainingMs() }, payloads);
  };

  private fail(error: RunError): void {
    this.finish({ ok: false, error }, false);
  }

  /** Ends the run once. `clean`: the process reported the outcome itself and may be reused. */
  private finish(outcome: { ok: true; value: unknown; converted?: Conversion[] } | { ok: false; error: RunError }, clean: boolean): void {
    if (this.finished) return;
    this.finished = true;
    this.deadline.stop();
    this.signal?.removeEventListener('abort', this.onAbort);
    const now = performance.now();
    for (const entry of this.pending.values()) {
      // Still running when the script ended: recorded as cancelled, told through its signal.
      if (entry.summary) entry.summary.durationMs = now - entry.started;
      entry.context.cancel();
    }
    this.pending.clear();
    this.resolve({ ...outcome, logs: this.logs, calls: this.calls, ...(this.stdout === '' ? {} : { stdout: this.stdout }) });
    if (clean) this.awaitIdle();
    else {
      this.process.kill();
      this.owner.release(this.process, false, false);
    }
  }

  /** Reuse the process only if its event loop turns after the run (no spin left behind). */
  private awaitIdle(): void {
    this.owner.returning();
    let settled = false;
    const settle = (healthy: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      this.process.listen(null);
      if (!healthy) this.process.kill();
      this.owner.release(this.process, healthy, true);
    };
    const timer = setTimeout(() => settle(false), LIVENESS_MS);
    timer.unref();
    this.process.listen({
      message: (m) => settle(m.t === 'idle' && m.run === this.runId),
      end: () => settle(false),
    });
  }
}
