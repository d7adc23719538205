// One run inside the sandbox process: the bridge's side of every call the prelude makes, the
// limits that can be enforced here, and the outbox of calls and log lines bound for the host.
import { send } from './io.mjs';
import { B_CALL, B_DONE, B_FAIL, B_LOG, B_UNKNOWN_TOOL, C_DELIVER } from './context.mjs';
import { unknownToolMessage } from './closest.mjs';
import { admitCall, byteLength, callsExhausted, logOverflow, returnRefusal } from './run-bounds.mjs';

/** Console levels, and `stdout` for the script's print(...). */
const LEVELS = new Set(['log', 'info', 'warn', 'error', 'debug', 'stdout']);
/** Flush the outbox early once it holds this many characters, to keep frames bounded. */
const FLUSH_CHARS = 4 << 20;
/** Longest error message or stack sent back. */
const MAX_TEXT = 64 * 1024;

export const DEADLOCK_MESSAGE =
  'the script is waiting for a promise that nothing can settle (no tool call is pending)';


function cap(text) {
  return typeof text === 'string' && text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

export class Run {
  /**
   * @param {number} id
   * @param {{ maxCalls: number, maxInFlight: number, maxArgsBytes: number, maxInFlightBytes: number, maxLogBytes: number,
   *   maxLogEntries: number, maxDepth: number, maxReturnBytes: number }} limits
   * @param {{ tools: Array<[string, string, string]>, collisions: Array<[string, string[]]>, globals: string[] }} config
   * @param {{ control: Function, slot: { handler: Function | null } }} sandbox
   */
  constructor(id, limits, config, sandbox) {
    this.id = id;
    this.limits = limits;
    this.config = config;
    this.sandbox = sandbox;
    this.labels = new Map(config.tools.map(([name, label]) => [name, label]));
    this.sites = config.sites === true;
    this.running = true;
    this.nextCall = 1;
    this.calls = 0;
    this.inflight = 0;
    /** UTF-8 bytes of the arguments of calls still pending, and each pending call's share. */
    this.inflightBytes = 0;
    this.callBytes = new Map();
    this.logBytes = 0;
    this.logEntries = 0;
    this.outCalls = [];
    /** Encoded call sites, parallel to the calls, only for runs that asked for them. */
    this.outSites = [];
    this.outLevels = [];
    this.outArgs = [];
    this.outLogs = [];
    this.outChars = 0;
    sandbox.slot.handler = (op, a, b, c) => this.bridge(op, a, b, c);
  }

  /** The prelude's only way out. Arguments and results are primitives. */
  bridge(op, a, b, c) {
    if (!this.running) return null;
    switch (op) {
      case B_CALL: return this.call(a, b, c);
      case B_LOG: this.log(a, b); return null;
      case B_DONE: this.done(a); return null;
      case B_FAIL: this.scriptFailed(a, b, c); return null;
      case B_UNKNOWN_TOOL: return typeof a === 'string' ? unknownToolMessage(a, this.config) : null;
      default: return null;
    }
  }

  call(flag, name, json) {
    // A number in place of `false`: a tool call with its encoded call site (runs with sites on).
    const site = typeof flag === 'number' && this.sites ? flag : 0;
    const isGlobal = typeof flag === 'number' ? false : flag;
    if (typeof isGlobal !== 'boolean' || typeof name !== 'string' || typeof json !== 'string') return null;
    const exhausted = callsExhausted(this.limits, this.calls);
    if (exhausted !== null) {
      this.fail('script', 'RangeError', exhausted);
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
    this.outCalls.push(id, isGlobal ? 1 : 0, name);
    if (this.sites) this.outSites.push(site);
    this.outArgs.push(json);
    this.outChars += json.length;
    if (this.outChars > FLUSH_CHARS) this.flush();
    return id;
  }

  log(level, text) {
    if (!LEVELS.has(level) || typeof text !== 'string') return;
    const overflow = logOverflow(this.limits, ++this.logEntries, (this.logBytes += byteLength(text)));
    if (overflow !== null) {
      this.fail('script', 'RangeError', overflow);
      return;
    }
    this.outLevels.push(level);
    this.outLogs.push(text);
    this.outChars += text.length;
    if (this.outChars > FLUSH_CHARS) this.flush();
  }

  done(json) {
    if (typeof json !== 'string') return this.fail('sandbox', undefined, 'the prelude reported a malformed result');
    const refused = returnRefusal(this.limits, json);
    if (refused !== null) return this.fail('script', 'RangeError', refused);
    this.finish({ ok: true }, [json]);
  }

  scriptFailed(name, message, stack) {
    const error = { kind: 'script', message: cap(typeof message === 'string' ? message : 'unknown error') };
    if (typeof name === 'string') error.name = cap(name);
    if (typeof stack === 'string') error.stack = cap(stack);
    this.finish({ ok: false, error }, []);
  }

  /** Ends the run with an error; later bridge calls find it closed. */
  fail(kind, name, message, stack) {
    const error = { kind, message };
    if (name !== undefined) error.name = name;
    if (stack !== undefined) error.stack = stack;
    this.finish({ ok: false, error }, []);
  }

  finish(result, payloads) {
    if (!this.running) return;
    this.running = false;
    this.flush();
    this.sandbox.slot.handler = null;
    this.sandbox = null;
    send({ t: 'done', run: this.id, ...result }, payloads);
  }

  /** Sends buffered calls and log lines to the host in one frame. */
  flush() {
    if (this.outCalls.length === 0 && this.outLevels.length === 0) return;
    const payloads = this.outArgs.length === 0 ? this.outLogs : this.outArgs.concat(this.outLogs);
    send(this.sites
      ? { t: 'out', run: this.id, c: this.outCalls, l: this.outLevels, s: this.outSites }
      : { t: 'out', run: this.id, c: this.outCalls, l: this.outLevels }, payloads);
    this.outCalls = [];
    this.outSites = [];
    this.outLevels = [];
    this.outArgs = [];
    this.outLogs = [];
    this.outChars = 0;
  }

  /** Settles calls from a `res` frame: header.r is [id, ok, errorName] triples, payloads the values. */
  deliver(header, payloads) {
    const r = header.r;
    const control = this.sandbox.control;
    for (let i = 0, k = 0; i < r.length && this.running; i += 3, k++) {
      this.inflight--;
      const bytes = this.callBytes.get(r[i]);
      if (bytes !== undefined) {
        this.inflightBytes -= bytes;
        this.callBytes.delete(r[i]);
      }
      let known;
      try {
        known = control(C_DELIVER, r[i], r[i + 1] === 1, payloads[k], r[i + 2]);
      } catch {
        return this.fail('sandbox', undefined, 'the sandbox bridge failed while delivering a tool result');
      }
      if (known !== true) return this.fail('sandbox', undefined, `the host answered call ${r[i]}, which is not pending`);
    }
  }
}
