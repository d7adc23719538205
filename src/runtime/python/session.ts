import type { DurableReads } from '../durable-reads.ts';
import { randomBytes } from 'node:crypto';
import type { OutputListener, RunError, ToolBinding } from '../types.ts';
import { PausableDeadline } from './clock.ts';
import { CallLedger, type OpenCall } from './ledger.ts';
import { encodeCancel, encodeResult, encodeRun, type InboundMessage, type ToolTable } from './protocol.ts';
import { RunOutput, endMarker, type StreamName } from './output.ts';
import type { ExitInfo, PythonProcess } from './process.ts';
import { capErrorOf } from './cap-errors.ts';
import { exitStatus, resultFromDone, resultFromLoss, stopMessage, type PythonRunResult, type StopReason } from './result.ts';

export interface SessionOptions {
  proc: PythonProcess;
  runId: number;
  code: string;
  /** Sent only when it changed since the interpreter's previous run. */
  toolTable?: ToolTable;
  bindings: ReadonlyMap<string, ToolBinding>;
  /** Handed to every binding as `ctx.scope`. */
  scope?: unknown;
  timeoutMs: number;
  interruptGraceMs: number;
  killGraceMs: number;
  outputCapBytes: number;
  signal?: AbortSignal;
  /** Ask the interpreter for each call's script line and column. */
  callSites?: boolean;
  /** Told the run's stdout/stderr text as it arrives (live output). */
  onOutput?: OutputListener;
  /** A durable run's seed and clock reads (docs/durable.md). */
  durable?: DurableReads;
}

type Done = Extract<InboundMessage, { t: 'done' }>;

/**
 * Drives one run on one interpreter: dispatches its tool calls, enforces its limit (cancel at
 * the next await, then SIGINT, then SIGKILL), collects its output, and settles exactly once.
 * After it settles, anything still arriving for it (a tool result, a message) is dropped.
 */
export class RunSession {
  readonly result: Promise<PythonRunResult>;
  readonly proc: PythonProcess;
  readonly runId: number;
  /** Threads the script left running, as its interpreter reported them. */
  stray = 0;
  /** Known only to the host and the interpreter, never on a command line or in an environment. */
  readonly #token = randomBytes(12).toString('hex');
  #resolve!: (r: PythonRunResult) => void;
  #o: SessionOptions;
  #ledger = new CallLedger();
  #output: RunOutput;
  #deadline: PausableDeadline;
  #done: Done | null = null;
  #stop: StopReason | null = null;
  #stage = 'the script stopped at its next await';
  #timers: NodeJS.Timeout[] = [];
  #settled = false;
  #onAbort = () => this.#escalate('aborted');

  constructor(o: SessionOptions) {
    this.#o = o;
    this.proc = o.proc;
    this.runId = o.runId;
    this.result = new Promise((resolve) => (this.#resolve = resolve));
    this.#output = new RunOutput(endMarker(this.#token, o.runId), o.outputCapBytes, o.onOutput);
    this.#deadline = new PausableDeadline(o.timeoutMs, () => this.#escalate('timeout'));
  }

  begin(): void {
    this.proc.send(encodeRun(this.runId, this.#token, this.#o.code, this.#o.toolTable, this.#o.callSites === true, this.#o.durable));
    this.#deadline.start();
    if (this.#o.signal?.aborted) this.#escalate('aborted');
    else this.#o.signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  onMessage(msg: InboundMessage): void {
    if (this.#settled || !('run' in msg) || msg.run !== this.runId) return;
    if (msg.t === 'call') {
      // A durable run's clock reads since its last call ride on the call (the journal bounds them).
      if (msg.clock !== undefined && !this.#done) this.#o.durable?.onClock(msg.clock);
      if (!this.#done) this.#call(msg.id, msg.name, msg.args, msg.line, msg.col);
    }
    else if (msg.t === 'done') {
      if (msg.token !== this.#token || this.#done) {
        // Not written by the runner for this run: its script forged it. Nothing it says is
        // believed, and the interpreter (whose state the script now controls) is replaced.
        this.proc.breach(`run ${this.runId} received a completion frame the runner did not write`);
        return;
      }
      this.stray = msg.stray ?? 0;
      this.#done = msg;
      this.#maybeFinish();
    }
  }

  onOutput(stream: StreamName, chunk: Buffer): void {
    if (this.#settled) return;
    this.#output.feed(stream, chunk);
    if (this.#done) this.#maybeFinish();
  }

  /** The interpreter died before the run was reported complete. */
  onExit(info: ExitInfo): void {
    if (this.#settled) return;
    const status = exitStatus(info.code, info.signal);
    const error: RunError = this.#stop
      ? stopMessage(this.#stop, this.#o.timeoutMs, 'the interpreter did not stop and was killed')
      : { kind: 'sandbox', message: `${info.description} during the run; the next run starts a fresh interpreter` };
    this.#settle(resultFromLoss(this.#output.finish(), this.#closeCalls(), status, error));
  }

  /** Ends the run now (the runner is killing its interpreter); the caller kills the process. */
  terminate(): void {
    if (this.#settled) return;
    this.#stop ??= 'killed';
    const error = stopMessage(this.#stop, this.#o.timeoutMs, 'the interpreter was killed');
    this.#settle(resultFromLoss(this.#output.finish(), this.#closeCalls(), 137, error));
  }

  #call(id: number, name: string, args: unknown, line?: number, column?: number): void {
    const binding = this.#o.bindings.get(name);
    if (!binding) {
      this.proc.send(encodeResult(this.runId, id, { ok: false, error: { name: 'UnknownToolError', message: `No tool named ${JSON.stringify(name)}` } }).line);
      return;
    }
    const call = this.#ledger.open(name, binding.kind !== 'global');
    let pending: Promise<unknown>;
    try {
      const site = line !== undefined ? { line, ...(column !== undefined ? { column } : {}) } : undefined;
      pending = Promise.resolve(binding.invoke(args, { signal: call.controller.signal, pauseClock: () => this.#deadline.pause(), scope: this.#o.scope, ...(site ? { site } : {}) }));
    } catch (e) {
      pending = Promise.reject(e);
    }
    pending.then(
      (value) => this.#answer(call, id, { ok: true, value }),
      (err: unknown) => this.#answer(call, id, { ok: false, error: describeError(err) }),
    );
  }

  #answer(call: OpenCall, id: number, outcome: Parameters<typeof encodeResult>[2]): void {
    // A result for a run that has ended is consumed here and never reaches the interpreter.
    if (this.#settled || this.#done) return;
    const { line, ok } = encodeResult(this.runId, id, outcome);
    if (this.#ledger.settle(call, ok ? 'ok' : 'error')) this.proc.send(line);
  }

  #escalate(reason: StopReason): void {
    if (this.#settled || this.#stop) return;
    this.#stop = reason;
    this.proc.send(encodeCancel(this.runId));
    this.#later(this.#o.interruptGraceMs, () => {
      this.#stage = 'the script was interrupted';
      this.proc.interrupt();
      this.#later(this.#o.killGraceMs, () => this.proc.kill());
    });
  }

  #later(ms: number, fn: () => void): void {
    this.#timers.push(setTimeout(() => !this.#settled && fn(), ms));
  }

  #maybeFinish(): void {
    if (!this.#done || !this.#output.complete) return;
    const stop = this.#stop ? { reason: this.#stop, timeoutMs: this.#o.timeoutMs, how: this.#stage } : null;
    const result = resultFromDone(this.#done, this.#output.finish(), this.#closeCalls(), stop);
    // A cap the kernel enforced surfaces in the script as an ordinary error: named for what it is.
    const ctx = result.error ? this.proc.capContext() : null;
    const cap = ctx && result.error ? capErrorOf(result.error, ctx) : undefined;
    if (cap) result.error = cap;
    this.#settle(result);
  }

  #closeCalls() {
    this.#ledger.cancelOpen(new DOMException('the script run ended before this call finished', 'AbortError'));
    return this.#ledger.summaries();
  }

  #settle(result: PythonRunResult): void {
    this.#settled = true;
    this.#deadline.cancel();
    for (const t of this.#timers) clearTimeout(t);
    this.#o.signal?.removeEventListener('abort', this.#onAbort);
    this.#resolve(result);
  }
}

/** The name and message a script sees for a rejected call. */
function describeError(err: unknown): { name: string; message: string } {
  if (err instanceof Error) return { name: err.name, message: err.message };
  return { name: 'Error', message: typeof err === 'string' ? err : JSON.stringify(err) ?? String(err) };
}
