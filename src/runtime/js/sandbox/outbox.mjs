// A run's side of the pipe inside a sandbox process, shared by both engines' runners (V8's
// engines/v8/run.mjs, QuickJS's engines/quickjs/vm.mjs): the Outbox admits each tool call and log
// line against the run's limits (run-bounds.mjs), keeps the counters those limits need, and
// batches what is admitted into `out` frames for the host; SandboxRun, which both runners
// extend, holds a run's outbox, its single outcome and the delivery of the host's answers.
import { send as sendToHost } from './io.mjs';
import { admitCall, byteLength, callsExhausted, logOverflow, returnRefusal } from './run-bounds.mjs';

/** Console levels, and `stdout` for the script's print(...). */
const LEVELS = new Set(['log', 'info', 'warn', 'error', 'debug', 'stdout']);
/** Flush early once this many characters are buffered, to keep frames bounded. */
const FLUSH_CHARS = 4 << 20;

export class Outbox {
  /**
   * @param {number} run the run's id, named in every frame
   * @param {object} limits the run's JsLimits
   * @param {(message: string) => void} onLimit ends the run with a RangeError (a limit that
   *   fails the whole run, even when the script would catch)
   * @param {(header: object, payloads: string[]) => void} [send] where frames go: the process's
   *   or thread's own channel (io.mjs)
   */
  constructor(run, limits, onLimit, send = sendToHost) {
    this.send = send;
    this.run = run;
    this.limits = limits;
    this.onLimit = onLimit;
    /** Tool name → the label scripts know it by (`tools.x__y`); set when the tools are bound. */
    this.labels = new Map();
    /** Whether calls carry their encoded call site (runs with an approval gate). */
    this.sites = false;
    this.nextCall = 1;
    this.calls = 0;
    this.inflight = 0;
    /** UTF-8 bytes of the arguments of calls still pending, and each pending call's share. */
    this.inflightBytes = 0;
    this.callBytes = new Map();
    this.logBytes = 0;
    this.logEntries = 0;
    this.reset();
  }

  /**
   * Admits one call: its id (the call is queued for the host), a refusal the script's promise
   * rejects with, or null once `onLimit` ended the run.
   */
  call(isGlobal, name, json, site) {
    const exhausted = callsExhausted(this.limits, this.calls);
    if (exhausted !== null) {
      this.onLimit(exhausted);
      return null;
    }
    const label = isGlobal ? `${name}()` : this.labels.get(name) ?? name;
    const bytes = admitCall(this.limits, this, label, json);
    if (typeof bytes === 'string') return bytes;
    const id = this.nextCall++;
    this.calls++;
    this.inflight++;
    if (bytes > 0) {
      this.inflightBytes += bytes;
      this.callBytes.set(id, bytes);
    }
    this.queuedCalls.push(id, isGlobal ? 1 : 0, name);
    if (this.sites) this.queuedSites.push(site);
    this.queuedArgs.push(json);
    this.queuedChars += json.length;
    if (this.queuedChars > FLUSH_CHARS) this.flush();
    return id;
  }

  /** Queues one console line (or print's `stdout`); past a log limit `onLimit` ends the run. */
  log(level, text) {
    if (typeof text !== 'string') return;
    if (level === 'clock') {
      // A durable run's clock reads (the prelude's flushClock): bounded by the host's journal, not the log limits.
      this.queuedLevels.push(level);
      this.queuedLines.push(text);
      this.queuedChars += text.length;
      return;
    }
    if (!LEVELS.has(level)) return;
    const overflow = logOverflow(this.limits, ++this.logEntries, (this.logBytes += byteLength(text)));
    if (overflow !== null) {
      this.onLimit(overflow);
      return;
    }
    this.queuedLevels.push(level);
    this.queuedLines.push(text);
    this.queuedChars += text.length;
    if (this.queuedChars > FLUSH_CHARS) this.flush();
  }

  /** The host answered call `id`: it is no longer in flight. */
  settled(id) {
    this.inflight--;
    const bytes = this.callBytes.get(id);
    if (bytes !== undefined) {
      this.inflightBytes -= bytes;
      this.callBytes.delete(id);
    }
  }

  /** Sends what is queued to the host in one frame. */
  flush() {
    if (this.queuedCalls.length === 0 && this.queuedLevels.length === 0) return;
    const payloads = this.queuedArgs.length === 0 ? this.queuedLines : this.queuedArgs.concat(this.queuedLines);
    this.send(this.sites
      ? { t: 'out', run: this.run, c: this.queuedCalls, l: this.queuedLevels, s: this.queuedSites }
      : { t: 'out', run: this.run, c: this.queuedCalls, l: this.queuedLevels }, payloads);
    this.reset();
  }

  /** Empties the queue (after a flush, or dropping it when the run was cancelled). */
  reset() {
    this.queuedCalls = [];
    this.queuedSites = [];
    this.queuedLevels = [];
    this.queuedArgs = [];
    this.queuedLines = [];
    this.queuedChars = 0;
  }
}

/**
 * A run in a sandbox process, either engine's. The engine's runner supplies `finish(result,
 * payloads)` (the single outcome) and `deliverOne(id, ok, payload, errorName)` (settles a call
 * in the guest: true when it was pending; a throw goes to `deliveryFailed(error)`).
 */
export class SandboxRun {
  /** @param {(header: object, payloads: string[]) => void} [send] where frames go (io.mjs by default) */
  constructor(id, limits, send) {
    this.id = id;
    this.limits = limits;
    this.running = true;
    this.out = new Outbox(id, limits, (message) => this.fail('script', 'RangeError', message), send);
  }

  /** The script returned: its JSON text (guest-core.js returnJson), refused past the return limits. */
  done(json) {
    if (typeof json !== 'string') return this.fail('sandbox', undefined, 'the prelude reported a malformed result');
    const refused = returnRefusal(this.limits, json);
    if (refused !== null) return this.fail('script', 'RangeError', refused);
    this.finish({ ok: true }, [json]);
  }

  /** Ends the run with an error; later bridge calls find it closed. */
  fail(kind, name, message, stack) {
    const error = { kind, message };
    if (name !== undefined) error.name = name;
    if (stack !== undefined) error.stack = stack;
    this.finish({ ok: false, error }, []);
  }

  /** Sends buffered calls and log lines to the host in one frame. */
  flush() {
    this.out.flush();
  }

  /** Calls the host has not answered yet. */
  get inflight() {
    return this.out.inflight;
  }

  /**
   * Settles calls from a `res` frame: header.r is [id, ok (0, 1 or 2: session.ts), errorName]
   * triples, payloads the values. True once all were delivered with the run still going.
   */
  deliver(header, payloads) {
    const r = header.r;
    for (let i = 0, k = 0; i < r.length && this.running; i += 3, k++) {
      this.out.settled(r[i]);
      let known;
      try {
        known = this.deliverOne(r[i], r[i + 1], payloads[k], r[i + 2]);
      } catch (error) {
        this.deliveryFailed(error);
        return false;
      }
      if (known !== true && this.running) {
        this.fail('sandbox', undefined, `the host answered call ${r[i]}, which is not pending`);
        return false;
      }
    }
    return true;
  }
}
