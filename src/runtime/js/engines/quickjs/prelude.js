// Evaluated inside every fresh QuickJS VM before any script code (engines/quickjs/vm.mjs). Its
// completion value is the setup function below, called once with the bridge and the inspector
// (guest/inspect.js, shared with the V8 engine).
//
// A VM may serve several runs of its conversation (a session): `bind` and `run` reset the
// per-run state and may be called again; what the scripts put on the global object stays.
//
// Nothing in this VM belongs to Node: the bridge is a QuickJS function whose host side reads
// only numbers and strings and answers only numbers, strings or null. So, unlike the V8
// engine's prelude, this file need not guard against foreign realms; it only keeps the bridge
// out of the script's reach and gives the script the same world as the V8 engine does.
(function toolcellQuickjsPrelude(bridge, inspector, core) {
  'use strict';

  // Operations the sandbox process asks of this prelude (keep in sync with vm.mjs).
  const C_BIND = 1;
  const C_RUN = 2;
  const C_DELIVER = 3;
  // Operations this prelude asks of the sandbox process (keep in sync with vm.mjs).
  const B_CALL = 1;
  const B_LOG = 2;
  const B_DONE = 3;
  const B_FAIL = 4;
  const B_UNKNOWN_TOOL = 5;

  const G = globalThis;
  // What both preludes share (guest/guest-core.js, evaluated just before: it has also removed the
  // capabilities no script has and installed ToolError), and the intrinsics it captured.
  const { rejected, makeError, argumentsJson, settleAnswer, installPath } = core;
  const { apply, create, defineProperty, freeze, ProxyCtor, PromiseCtor, jsonParse, symbolToString, ErrorCtor, captureStackTrace, TypeErrorCtor,
    functionBind, RangeErrorCtor } = core.intrinsics;
  const { formatLog, isError, errorSummary } = inspector;

  // Code from strings: not an escape here (it would stay in this VM), but scripts get the same
  // world as under the V8 engine, where it is disallowed.
  const EvalErrorCtor = EvalError;
  const blocked = function Function() {
    throw new EvalErrorCtor('Code generation from strings disallowed for this context');
  };
  const getPrototypeOf = Object.getPrototypeOf;
  const functionProtos = [
    getPrototypeOf(function () {}),
    getPrototypeOf(async function () {}),
    getPrototypeOf(function* () {}),
    getPrototypeOf(async function* () {}),
  ];
  for (let i = 0; i < functionProtos.length; i++) {
    defineProperty(functionProtos[i], 'constructor', { value: blocked, writable: false, enumerable: false, configurable: false });
  }
  defineProperty(blocked, 'prototype', { value: functionProtos[0], writable: false, enumerable: false, configurable: false });
  defineProperty(G, 'Function', { value: blocked, writable: true, enumerable: false, configurable: true });

  // Stacks show the script's frames only, as `at name (script.js:line:column)`. The script is
  // compiled on the wrapper's first line, so columns on line 1 are shifted back by its length.
  const WRAP_HEAD_LENGTH = 20;
  const SITE_LINE = 1048576;
  /** A frame of the script as line * 2^20 + column (line 1 shifted back), or 0 for any other frame. */
  function scriptSite(frame) {
    if (frame.getFileName() !== 'script.js') return 0;
    const line = frame.getLineNumber();
    let column = frame.getColumnNumber();
    if (line === 1 && column > WRAP_HEAD_LENGTH) column -= WRAP_HEAD_LENGTH;
    return line > 0 ? line * SITE_LINE + (column > 0 && column < SITE_LINE ? column : 0) : 0;
  }
  /** Set while the prelude captures a call site (below): the formatter then returns the frames untouched. */
  let capturing = false;
  function prepareStackTrace(error, frames) {
    if (capturing) return frames;
    let out = errorSummary(error);
    for (let i = 0; i < frames.length; i++) {
      try {
        const frame = frames[i];
        const site = scriptSite(frame);
        if (site === 0) continue;
        const fn = frame.getFunctionName();
        const column = site % SITE_LINE;
        const where = 'script.js:' + (site - column) / SITE_LINE + ':' + column;
        out += '\n    at ' + (fn && fn[0] !== '<' ? fn + ' (' + where + ')' : where);
      } catch {
        // A frame that cannot be described is left out rather than failing the whole trace.
      }
    }
    return out;
  }
  // QuickJS keeps the formatter behind an accessor of Error; assigning goes through its setter.
  // The accessor is then replaced by a read-only value, which locks the formatter, as under V8:
  // call sites (below) rely on it, and scripts get the same stacks under both engines.
  ErrorCtor.prepareStackTrace = prepareStackTrace;
  defineProperty(ErrorCtor, 'prepareStackTrace', { value: prepareStackTrace, writable: false, enumerable: false, configurable: false });

  function errorText(value) {
    try {
      const stack = value.stack;
      if (typeof stack === 'string') return stack;
    } catch {
      // Fall back to the name and message.
    }
    return errorSummary(value);
  }

  /** Console output: objects through the bounded inspector, so no depth or size can hurt. */
  function format(value) {
    const type = typeof value;
    if (type === 'string') return value;
    if (type === 'bigint') return '' + value + 'n';
    if (type === 'symbol') return apply(symbolToString, value, []);
    if (value === null || type !== 'object' && type !== 'function') return '' + value;
    if (type === 'function') {
      let name = '';
      try {
        name = typeof value.name === 'string' ? value.name : '';
      } catch {
        // A throwing `name` getter only costs the label.
      }
      return '[Function ' + (name || '(anonymous)') + ']';
    }
    if (isError(value)) return errorText(value);
    return formatLog(value);
  }

  /** Puts console, print and inspect back, at each bind (a session may have replaced them). */
  const installHelpers = core.makeHelpers(format, function sendLog(level, text) {
    bridge(B_LOG, level, text);
  }, inspector.inspect);

  // Pending calls of the current run: id → [resolve, reject]. Replaced at each run: call ids
  // restart from 1, and a call an earlier run left pending must never settle in a later one.
  let pending = create(null);

  // Call sites. Every call records where the script made it, so that a failed call's error can
  // name the line: QuickJS keeps no async stacks, so by the time the answer arrives the line is
  // gone. Runs that ask (`config.sites`: an approval gate may need the line) also send it with the
  // call. The capture starts above the tool's own function (its caller is the script, or a
  // native frame such as `map` and then the script), and while `capturing` the formatter hands
  // back the engine's frames untouched: they are read only when the call fails (or sites are
  // on). About 1 µs of the VM's time per call, where a `new Error()` formatted to text cost
  // 10-40% of a call and reading every call's frames at once almost 2 µs.
  let sites = false;
  /** The first script frame as line * 2^20 + column, or 0: none within `Error.stackTraceLimit`. */
  function siteOf(frames) {
    if (frames === undefined) return 0;
    for (let i = 0; i < frames.length; i++) {
      try {
        const site = scriptSite(frames[i]);
        if (site !== 0) return site;
      } catch {
        return 0;
      }
    }
    return 0;
  }
  /** Receives each capture; one object for all, so a call allocates nothing more for it. */
  const siteHolder = create(null);
  /** The caller's frames (call sites, read later by siteOf), or undefined. */
  function callerFrames(callee) {
    let frames;
    capturing = true;
    try {
      captureStackTrace(siteHolder, callee);
      frames = siteHolder.stack;
    } catch {
      // No site is reported rather than failing the call.
    } finally {
      capturing = false;
    }
    return frames;
  }

  /** ` at script.js:line:column` for an encoded site, or nothing when it is unknown. */
  function siteText(site) {
    if (!(site > 0)) return '';
    const column = site % SITE_LINE;
    return '\n    at script.js:' + (site - column) / SITE_LINE + (column > 0 ? ':' + column : '');
  }

  function invoke(isGlobal, name, label, args, callee, maxChars) {
    const json = argumentsJson(args, label, maxChars);
    if (typeof json !== 'string') return rejected(json);
    const frames = callerFrames(callee);
    // Bit 0: a global; the rest, when sites are on, the caller's encoded site.
    reads.flush();
    const id = bridge(B_CALL, isGlobal ? 1 : sites ? siteOf(frames) * 2 : 0, name, json);
    if (typeof id === 'number') {
      return new PromiseCtor(function (resolve, reject) {
        pending[id] = [resolve, reject, label, frames];
      });
    }
    if (typeof id === 'string') return rejected(new RangeErrorCtor(id));
    return rejected(new ErrorCtor(label + ' was called after the run ended'));
  }

  /** A tool or helper global; `maxChars` (globals only) cuts its argument before it crosses. */
  function makeCallable(isGlobal, name, label, maxChars) {
    // The script gets a bound copy, whose source reads `function () { [native code] }`: the
    // arrow's own text is this prelude's, which String(tools.x) and "… is not a constructor"
    // would show. Call sites are still captured above the arrow's frame (callerFrames).
    const call = (args) => invoke(isGlobal, name, label, args, call, maxChars);
    const fn = apply(functionBind, call, [undefined]);
    defineProperty(fn, 'name', { value: name });
    return fn;
  }

  /**
   * Settles call `id`. `ok` (session.ts): 0 failed (`payload` is the message), 1 the value's JSON
   * text, 2 a tool's text: the value is its JSON parse, or the text itself when it is not JSON.
   */
  function deliver(id, ok, payload, errorName) {
    const entry = pending[id];
    if (entry === undefined) return false;
    delete pending[id];
    if (ok === 0) {
      // The stack names the line the script called the tool on (recorded with the call) and the
      // tool the failure came from.
      const error = makeError(errorName, payload, true);
      const stack = errorSummary(error) + siteText(siteOf(entry[3])) + '\n    (raised by ' + entry[2] + ')';
      defineProperty(error, 'stack', { value: stack, writable: true, enumerable: false, configurable: true });
      entry[1](error);
    } else {
      settleAnswer(entry, ok, payload);
    }
    return true;
  }

  // Math.random and Date (guest/guest-core.js): Math.random draws from sfc32, seeded by the host
  // for each run (every VM is restored from one snapshot, so the engine's own generator would
  // repeat the same numbers in every run); a durable run's clock reads are recorded.
  const reads = core.installReads(function sendClock(text) {
    bridge(B_LOG, 'clock', text);
  }, true);

  // Names of the global object before any script: a global tool may not shadow them. Names a
  // script created in an earlier run of the session may be (the binding wins).
  const builtinNames = create(null);
  const initialNames = Reflect.ownKeys(G);
  for (let i = 0; i < initialNames.length; i++) if (typeof initialNames[i] === 'string') builtinNames[initialNames[i]] = true;
  builtinNames.console = builtinNames.print = builtinNames.inspect = builtinNames.tools = true;
  // The global object's rule for installPath (guest-core.js): a global's first segment may not be
  // a built-in, but may replace what a script of an earlier run of the session left there (the
  // binding wins); it stays configurable, and is recorded in `bound`, for the next bind to remove.
  const onGlobal = {
    refuses(segment) {
      if (builtinNames[segment] === true) return true;
      const left = Reflect.getOwnPropertyDescriptor(G, segment);
      return left !== undefined && !left.configurable;
    },
    /** Global tools bound by the previous bind, removed before the next one. */
    bound: [],
  };

  /** The message for a member a namespace lacks, from the sandbox process (closest.mjs). */
  function missingMember(key, where, members) {
    return bridge(B_UNKNOWN_TOOL, key, where, members);
  }

  /**
   * The installed catalog: the frozen `tools` object and each global's [path, callable], kept
   * between runs of the session until a run brings another catalog.
   */
  let installed = null;

  function install(configJson) {
    const config = jsonParse(configJson);
    // Known tools are own properties, found without a trap (a Proxy trap costs more in QuickJS
    // than the rest of a call); only names that miss reach the Proxy below, as the prototype.
    const handler = create(null);
    handler.get = function (_target, key) {
      if (typeof key !== 'string') return undefined;
      // Probed by `await`, JSON.stringify and console formatting; absence is the right answer.
      if (key === 'then' || key === 'toJSON') return undefined;
      const message = bridge(B_UNKNOWN_TOOL, key, undefined, undefined);
      throw new TypeErrorCtor(typeof message === 'string' ? message : 'tools.' + key + ' is not a tool');
    };
    const tools = create(new ProxyCtor(create(null), handler));
    for (let i = 0; i < config.tools.length; i++) {
      const [name, label] = config.tools[i];
      defineProperty(tools, name, { value: makeCallable(false, name, label), enumerable: true });
    }
    for (let i = 0; i < config.aliases.length; i++) {
      const [alias, name] = config.aliases[i];
      defineProperty(tools, alias, { value: tools[name], enumerable: false });
    }
    const madeTools = create(null);
    const flat = Reflect.ownKeys(tools);
    // A dotted host name is one flat property (`tools["a.b"]`); only plain keys can hold a path.
    for (let i = 0; i < flat.length; i++) {
      if (flat[i].indexOf('.') < 0) madeTools['.' + flat[i]] = tools[flat[i]];
    }
    for (let i = 0; i < config.nested.length; i++) {
      const [id, name] = config.nested[i];
      const problem = installPath(tools, id.split('.'), tools[name], madeTools, missingMember);
      if (problem !== '') return problem;
    }
    const toolNodes = Object.keys(madeTools);
    for (let i = 0; i < toolNodes.length; i++) freeze(madeTools[toolNodes[i]]);
    freeze(tools);
    const globals = [];
    for (let i = 0; i < config.globals.length; i++) {
      const [name, path, maxChars] = config.globals[i];
      globals.push([path, makeCallable(true, name, path.join('.') + '()', maxChars)]);
    }
    installed = { tools, globals };
    return '';
  }

  /**
   * Starts a run's bindings: installs the catalog `configJson` ('' keeps the one installed),
   * then puts `tools`, the globals and the helpers (which a script of an earlier run of the
   * session may have replaced) back on the global object, and resets the run's state.
   */
  function bind(configJson, seedText, sitesOn) {
    sites = sitesOn === 1;
    const parsed = jsonParse(seedText);
    // An array: a fresh seed. An object: a durable run's {seed, clock} from its journal.
    const words = parsed.seed !== undefined ? parsed.seed : parsed;
    reads.begin(words, parsed.seed !== undefined ? (Array.isArray(parsed.clock) ? parsed.clock : []) : undefined);
    pending = create(null);
    installHelpers();
    const bound = onGlobal.bound;
    for (let i = 0; i < bound.length; i++) {
      try {
        delete G[bound[i]];
      } catch {
        // A script made it non-configurable: the check below refuses to bind over it.
      }
    }
    bound.length = 0;
    if (configJson !== '') {
      installed = null;
      const problem = install(configJson);
      if (problem !== '') return problem;
    }
    if (installed === null) return 'no tools are installed in this VM';
    // Configurable, so that the next run of the session can bind its own tools.
    defineProperty(G, 'tools', {
      value: installed.tools, writable: false, enumerable: false, configurable: true,
    });
    const madeGlobals = create(null);
    for (let i = 0; i < installed.globals.length; i++) {
      const [path, fn] = installed.globals[i];
      const problem = installPath(G, path, fn, madeGlobals, missingMember, onGlobal);
      if (problem !== '') return problem;
    }
    const roots = Object.keys(madeGlobals);
    for (let i = 0; i < roots.length; i++) freeze(madeGlobals[roots[i]]);
    return '';
  }

  const runner = core.makeRunner(function done(json) {
    bridge(B_DONE, json);
  }, function failed(name, message, stack) {
    bridge(B_FAIL, name, message, stack);
  }, format, function stackOf(error) {
    return isError(error) ? errorText(error) : undefined;
  });

  return function control(op, a, b, c, d) {
    switch (op) {
      case C_BIND: return bind(a, b, c);
      case C_RUN: runner.run(a); return undefined;
      case C_DELIVER: return deliver(a, b, c, d);
      default: return undefined;
    }
  };
})
