// One run inside the V8 sandbox process: the bridge's side of every call the prelude makes.
// Admitting calls and log lines against the limits, batching them for the host, the outcome and
// the answers' delivery are SandboxRun's (outbox.mjs, shared with the QuickJS engine).
import { send } from '../../sandbox/io.mjs';
import { B_CALL, B_DONE, B_FAIL, B_KEYS, B_LOG, B_RESOLVE, B_UNKNOWN_TOOL, C_DELIVER } from './context.mjs';
import { unknownNameMessage } from '../../sandbox/closest.mjs';
import { SandboxRun } from '../../sandbox/outbox.mjs';
import { scriptError } from '../../sandbox/run-bounds.mjs';

export class Run extends SandboxRun {
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
    super(id, limits);
    this.catalog = catalog;
    this.config = catalog?.config ?? { tools: [], aliases: [], nested: [], collisions: [], globals: [] };
    this.sandbox = sandbox;
    if (catalog !== null) this.out.labels = catalog.labels;
    this.out.sites = sites || this.config.sites === true;
    sandbox.slot.handler = (op, a, b, c) => this.bridge(op, a, b, c);
  }

  /** The prelude's only way out. Arguments and results are primitives. */
  bridge(op, a, b, c) {
    if (!this.running) return null;
    switch (op) {
      case B_CALL: return this.call(a, b, c);
      case B_LOG: this.out.log(a, b); return null;
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

  scriptFailed(name, message, stack) {
    this.finish({ ok: false, error: scriptError(name, message, stack) }, []);
  }

  finish(result, payloads) {
    if (!this.running) return;
    this.running = false;
    this.flush();
    this.sandbox.slot.handler = null;
    this.sandbox = null;
    send({ t: 'done', run: this.id, ...result }, payloads);
  }

  deliverOne(id, ok, payload, errorName) {
    return this.sandbox.control(C_DELIVER, id, ok, payload, errorName);
  }

  deliveryFailed() {
    this.fail('sandbox', undefined, 'the sandbox bridge failed while delivering a tool result');
  }
}
