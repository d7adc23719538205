// One run inside the V8 sandbox process: the bridge's side of every call the prelude makes.
// Admitting calls and log lines against the limits, and batching them for the host, is the
// outbox's (outbox.mjs, shared with the QuickJS engine).
import { send } from '../../sandbox/io.mjs';
import { B_CALL, B_DONE, B_FAIL, B_KEYS, B_LOG, B_RESOLVE, B_UNKNOWN_TOOL, C_DELIVER } from './context.mjs';
import { unknownNameMessage } from '../../sandbox/closest.mjs';
import { Outbox } from '../../sandbox/outbox.mjs';
import { returnRefusal, scriptError } from '../../sandbox/run-bounds.mjs';

export class Run {
  /**
   * @param {number} id
   * @param {{ maxCalls: number, maxInFlight: number, maxArgsBytes: number, maxInFlightBytes: number, maxLogBytes: number,
   *   maxLogEntries: number, maxDepth: number, maxReturnBytes: number }} limits
   * @param {import('../../sandbox/catalogs.mjs').Catalog | null} catalog the run's tools (null: the host named
   *   one this process does not hold; the run is failed at once)
   * @param {boolean} sites whether calls carry their call site
   * @param {{ control: Function, slot: { handler: Function | null } }} sandbox
   */
  constructor(id, limits, catalog, sites, sandbox) {
    this.id = id;
    this.limits = limits;
    this.catalog = catalog;
    this.config = catalog?.config ?? { tools: [], aliases: [], nested: [], collisions: [], globals: [] };
    this.sandbox = sandbox;
    this.running = true;
    this.out = new Outbox(id, limits, (message) => this.fail('script', 'RangeError', message));
    if (catalog !== null) this.out.labels = catalog.labels;
    this.out.sites = sites || this.config.sites === true;
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
      case B_UNKNOWN_TOOL: return unknownNameMessage(this.config, a, b, c);
      case B_RESOLVE: return typeof a === 'string' ? this.catalog.resolve(a) : null;
      case B_KEYS: return this.catalog.keys();
      default: return null;
    }
  }

  call(flag, name, json) {
    // A number in place of `false`: a tool call with its encoded call site (runs with sites on).
    const site = typeof flag === 'number' && this.out.sites ? flag : 0;
    const isGlobal = typeof flag === 'number' ? false : flag;
    if (typeof isGlobal !== 'boolean' || typeof name !== 'string' || typeof json !== 'string') return null;
    return this.out.call(isGlobal, name, json, site);
  }

  log(level, text) {
    this.out.log(level, text);
  }

  done(json) {
    if (typeof json !== 'string') return this.fail('sandbox', undefined, 'the prelude reported a malformed result');
    const refused = returnRefusal(this.limits, json);
    if (refused !== null) return this.fail('script', 'RangeError', refused);
    this.finish({ ok: true }, [json]);
  }

  scriptFailed(name, message, stack) {
    this.finish({ ok: false, error: scriptError(name, message, stack) }, []);
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
    this.out.flush();
  }

  /** Calls the host has not answered yet. */
  get inflight() {
    return this.out.inflight;
  }

  /** Settles calls from a `res` frame: header.r is [id, ok, errorName] triples, payloads the values. */
  deliver(header, payloads) {
    const r = header.r;
    const control = this.sandbox.control;
    for (let i = 0, k = 0; i < r.length && this.running; i += 3, k++) {
      this.out.settled(r[i]);
      let known;
      try {
        known = control(C_DELIVER, r[i], r[i + 1], payloads[k], r[i + 2]);
      } catch {
        return this.fail('sandbox', undefined, 'the sandbox bridge failed while delivering a tool result');
      }
      if (known !== true) return this.fail('sandbox', undefined, `the host answered call ${r[i]}, which is not pending`);
    }
  }
}
