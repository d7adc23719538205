// One run of a script in a QuickJS VM, inside a shared sandbox process (engines/quickjs/main.mjs):
// the bridge's host side, the limits enforced here, the outbox of calls and log lines bound for
// the host, delivery of answers, and draining the VM's job queue.
//
// Only numbers and strings cross between the VM and this file: the bridge reads its arguments
// as primitives and answers with a number, a string or null; answers go in as strings. Both
// directions go through the VM's raw crossing (engines/quickjs/crossing.mjs).
import { randomBytes } from 'node:crypto';
import { unknownNameMessage } from '../../sandbox/closest.mjs';
import { SandboxRun } from '../../sandbox/outbox.mjs';
import { DEADLOCK_MESSAGE, scriptError } from '../../sandbox/run-bounds.mjs';
import { formatSyntaxError } from '../../sandbox/syntax-error.mjs';

// Keep in sync with prelude.js.
const C_BIND = 1;
const C_RUN = 2;
const C_DELIVER = 3;
const B_CALL = 1;
const B_LOG = 2;
const B_DONE = 3;
const B_FAIL = 4;
const B_UNKNOWN_TOOL = 5;

/** Promise jobs between two deadline checks: `while (true) await null` runs few opcodes per job. */
const JOBS_PER_CHECK = 64;
/**
 * What a VM's whole WebAssembly memory may hold beyond its run's `heapMb`, in MiB: the C stack
 * and data of a fresh VM (1.5 MiB) and the allocator's ordinary waste. `heapMb` alone bounds
 * what QuickJS's allocator counts as live, not the memory it grew to: a script that fragments
 * its heap (keep one block in eight, then ask for larger ones) kept 14 MiB live under heapMb 32
 * while its memory reached 101 MiB, and WebAssembly memory never shrinks. So the memory itself is
 * checked (`footprintOver`): at every interrupt check while guest code runs and at the end of
 * every slice. Between two checks it grows by at most one allocation, itself under `heapMb`.
 */
export const FOOTPRINT_SLACK_MB = 8;
const MIB = 1024 * 1024;
/** The wrapper puts the script on its own first line, so line numbers need no offset. */
const WRAP_HEAD = '(async function () {';
export const SCRIPT_FILE = 'script.js';

export class GuestRun extends SandboxRun {
  /**
   * @param {object} header the run frame: run, limits, conv, heapMb, ms
   * @param {{ vm: any, control: any, exports: any, crossing: any, exception(): Error, callControl(args: any[]): boolean, bindBridge(fn: Function): void }} guest
   * @param {boolean} fresh the run starts on a fresh VM (not a kept session)
   * @param {boolean} owned the VM is its conversation's: it may be kept after the run
   * @param {(run: GuestRun) => void} onEnd called once the run has reported its outcome
   * @param {(header: object, payloads: string[]) => void} send where its frames go (the loop's channel to the host)
   */
  constructor(header, guest, fresh, owned, onEnd, send) {
    super(header.run, header.limits, send);
    this.send = send;
    /** Math.random's seed, fresh per run (every VM is restored from one snapshot). */
    // A durable run's seed and recorded clock reads come from the host (`dur`): its replay then
    // draws the same numbers and reads the same times (docs/durable.md).
    this.seed = header.dur !== undefined ? JSON.stringify(header.dur) : JSON.stringify([...new Int32Array(randomBytes(16).buffer)]);
    this.fresh = fresh;
    this.owned = owned;
    /** Set when the script itself ended (returned or threw): only then is its VM kept. */
    this.keep = false;
    this.conv = typeof header.conv === 'string' ? header.conv : null;
    this.heapMb = header.heapMb;
    /** Bytes the VM's WebAssembly memory may reach (FOOTPRINT_SLACK_MB). */
    this.maxFootprint = (header.heapMb + FOOTPRINT_SLACK_MB) * MIB;
    /** The VM's memory outgrew maxFootprint: the run ends out of memory, the VM is discarded. */
    this.overgrown = false;
    this.limitMs = header.ms;
    this.deadline = performance.now() + (header.ms ?? Infinity);
    this.guest = guest;
    this.onEnd = onEnd;
    this.config = null;
    /** The VM installed the bindings for this run (it did not hold this catalog's). */
    this.bound = false;
    this.cancelled = false;
    this.interrupted = false;
    guest.bindBridge((op, a, b, c) => this.bridge(op, a, b, c));
  }

  /** Polled by the interrupt handler while this run's code executes. */
  shouldInterrupt() {
    // Ended from inside the bridge (a limit failed it): nothing more of it may run.
    if (!this.running) return true;
    if (this.footprintOver()) return true;
    const now = performance.now();
    if (this.cancelled || now > this.deadline) {
      this.interrupted = true;
      return true;
    }
    return false;
  }

  /** Whether the VM's whole memory (fragmentation included) is past maxFootprint; remembered once seen. */
  footprintOver() {
    if (!this.overgrown && this.guest.exports.memory.buffer.byteLength > this.maxFootprint) this.overgrown = true;
    return this.overgrown;
  }

  /** The host's clock may have been paused: it says how much time is left with each answer. */
  setRemaining(ms) {
    if (typeof ms === 'number') this.deadline = performance.now() + ms;
  }

  /**
   * Binds the tools, compiles and starts the script, and runs it until it waits. A VM that
   * installed this catalog's bindings in an earlier run of its session keeps them: the prelude
   * then only resets the run's state (`bound` in the outcome says which happened).
   */
  start(code, catalog, sites) {
    const { vm, control } = this.guest;
    this.config = catalog.config;
    this.out.labels = catalog.labels;
    this.out.sites = sites || catalog.config.sites === true;
    const install = catalog.id === null || this.guest.catalog !== catalog.id;
    // Whatever happens below, the VM holds this catalog's bindings only once they are in place.
    this.guest.catalog = null;
    const seed = this.seed;
    const bound = this.callControl(() =>
      vm.callFunction(control, vm.undefined, vm.newNumber(C_BIND), vm.newString(install ? catalog.text : ''), vm.newString(seed), vm.newNumber(this.out.sites ? 1 : 0)));
    if (bound !== '') return this.fail('sandbox', undefined, typeof bound === 'string' ? bound : 'the prelude failed to install the tools');
    this.guest.catalog = catalog.id;
    this.bound = install;
    let fn;
    try {
      fn = vm.evalCode(`${WRAP_HEAD}${code}\n})`, SCRIPT_FILE);
    } catch (error) {
      return this.engineFailure(error, code);
    }
    const op = vm.newNumber(C_RUN);
    try {
      this.guest.callControl([op, fn]);
    } finally {
      op.dispose();
      fn.dispose();
    }
    this.drain();
  }

  /** Calls into the VM inside a handle scope; returns a primitive result or undefined. */
  callControl(call) {
    const { vm } = this.guest;
    return vm.withScope(() => {
      const handle = call();
      const type = vm.typeof(handle);
      if (type === 'string') return handle.toString();
      if (type === 'boolean') return handle.toBoolean();
      return undefined;
    });
  }

  /**
   * The bridge: arguments are value pointers, read as primitives only; the answer is a fresh
   * value the engine's trampoline takes over (crossing.mjs).
   */
  bridge(op, a, b, c) {
    const x = this.guest.crossing;
    if (!this.running) return x.null();
    switch (x.num(op)) {
      case B_CALL: {
        const flags = x.num(a);
        const answer = this.call(flags === 1, x.str(b), x.str(c), flags > 1 ? Math.floor(flags / 2) : 0);
        return typeof answer === 'number' ? x.number(answer) : answer === null ? x.null() : x.string(answer);
      }
      case B_LOG:
        this.out.log(x.str(a), x.str(b));
        return x.null();
      case B_DONE:
        this.done(x.str(a));
        return x.null();
      case B_FAIL:
        this.scriptFailed(x.str(a), x.str(b), x.str(c));
        return x.null();
      case B_UNKNOWN_TOOL: {
        const text = unknownNameMessage(this.config, x.str(a), x.str(b), x.str(c));
        return text === null ? x.null() : x.string(text);
      }
      default:
        return x.null();
    }
  }

  call(isGlobal, name, json, site) {
    if (typeof name !== 'string' || typeof json !== 'string') return null;
    // A tool function an earlier run of the session kept (say, on globalThis) whose tool is gone.
    if (!isGlobal && !this.out.labels.has(name)) return `${name} is no longer a tool in this run; use the tools object of this run`;
    return this.out.call(isGlobal, name, json, site);
  }

  done(json) {
    if (this.footprintOver()) return this.outOfMemory();
    this.keep = this.owned;
    super.done(json);
  }

  scriptFailed(name, message, stack) {
    if ((name === 'InternalError' && message === 'out of memory') || this.footprintOver()) return this.outOfMemory();
    this.keep = this.owned;
    this.finish({ ok: false, error: scriptError(name, message, stack) }, []);
  }

  outOfMemory() {
    if (!this.overgrown) return this.fail('sandbox', undefined, `the script ran out of memory (heap limit ${this.heapMb} MiB)`);
    const mb = Math.ceil(this.guest.exports.memory.buffer.byteLength / MIB);
    this.fail('sandbox', undefined, `the script ran out of memory (heap limit ${this.heapMb} MiB): its VM's memory grew to ${mb} MiB, fragmentation included, past heapMb + ${FOOTPRINT_SLACK_MB} MiB`);
  }

  finish(result, payloads) {
    if (!this.running) return;
    this.running = false;
    if (this.cancelled) {
      // The host already ended this run: it wants no outcome, only the idle that follows.
      this.keep = false;
      this.onEnd(this);
      return;
    }
    if (!result.ok && result.error.kind !== 'script') this.keep = false;
    this.flush();
    const mem = this.keep ? this.guest.exports.memory.buffer.byteLength : 0;
    this.send({ t: 'done', run: this.id, ...result, fresh: this.fresh, kept: this.keep, bound: this.bound, mem }, payloads);
    this.onEnd(this);
  }

  /** The host gave up on this run (timeout, abort, close): end it without an outcome. */
  cancel() {
    this.cancelled = true;
    this.keep = false;
    if (this.running) {
      this.running = false;
      this.onEnd(this);
    }
  }

  /** Nothing once cancelled. */
  flush() {
    if (!this.cancelled) super.flush();
  }

  deliver(header, payloads) {
    if (super.deliver(header, payloads)) this.drain();
  }

  deliverOne(id, ok, payload, errorName) {
    const { vm, crossing: x } = this.guest;
    // Value pointers, each freed below even when a later one cannot be made (the error name's
    // `undefined` is the VM's own, not freed).
    const args = [];
    try {
      args.push(x.number(C_DELIVER));
      args.push(x.number(id));
      args.push(x.number(ok));
      args.push(x.string(payload));
      args.push(errorName === null ? vm.undefined : x.string(errorName));
      return this.guest.callControl(args);
    } finally {
      for (const arg of args) if (typeof arg === 'number') x.free(arg);
    }
  }

  deliveryFailed(error) {
    this.engineFailure(error);
  }

  /** Runs queued promise jobs, then ends a run that waits on nothing. */
  drain() {
    const { exports } = this.guest;
    let jobs = 0;
    try {
      while (this.running && exports.qjs_is_job_pending()) {
        if (exports.qjs_execute_pending_job() < 0) {
          // Only uncatchable errors fail a job: an interrupt or an allocation failure.
          throw this.guest.exception();
        }
        if (++jobs % JOBS_PER_CHECK === 0 && this.shouldInterrupt()) throw new Error('interrupted');
      }
    } catch (error) {
      return this.engineFailure(error);
    }
    if (!this.running) return;
    // The slice is over: a VM whose memory outgrew its bound is not left waiting on the host.
    if (this.footprintOver()) return this.outOfMemory();
    this.flush();
    if (this.inflight === 0) this.fail('script', 'Error', DEADLOCK_MESSAGE);
  }

  /**
   * Something thrown by the engine rather than reported by the prelude: a syntax error, an
   * interrupt, memory exhaustion, or a trap of the WebAssembly instance.
   */
  engineFailure(error, code) {
    if (!this.running) return;
    const name = readString(error, 'name');
    const message = readString(error, 'message') ?? String(error);
    const stack = readString(error, 'stack');
    disposeIfHandle(error);
    if (this.overgrown) return this.outOfMemory();
    if (this.interrupted) {
      // Same words as the host's own timer, which may fire a moment later.
      return this.fail('timeout', undefined, this.cancelled ? 'the run was cancelled' : `the script did not finish within its time limit of ${this.limitMs} ms`);
    }
    if (/out of memory/.test(message)) return this.outOfMemory();
    if (name === 'SyntaxError' && code !== undefined) {
      const at = /script\.js:(\d+)(?::(\d+))?/.exec(stack ?? '');
      const line = Number(at?.[1]);
      // The wrapper's head shares the script's first line: its columns start after it.
      let column = at?.[2] === undefined ? undefined : Number(at[2]) - (line === 1 ? WRAP_HEAD.length : 0);
      if (line > code.split('\n').length) column = undefined;
      const { message: text, stack: shown } = formatSyntaxError(message, code, line, column);
      return this.fail('script', 'SyntaxError', text, shown);
    }
    if (error instanceof WebAssembly.RuntimeError) {
      return this.fail('sandbox', undefined, `the QuickJS engine stopped: ${message}`);
    }
    // The prelude formats stacks (Error.prepareStackTrace): script frames only.
    return this.finish({ ok: false, error: scriptError(name ?? 'Error', message, stack) }, []);
  }
}

function readString(object, key) {
  try {
    const value = object?.[key];
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

function disposeIfHandle(error) {
  try {
    if (typeof error?.dispose === 'function') error.dispose();
  } catch {
    // Already gone with its VM.
  }
}
