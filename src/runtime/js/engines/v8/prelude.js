// Evaluated inside every fresh sandbox context before any script code, by the sandbox process
// (engines/v8/context.mjs). Its completion value is the setup function below. It is plain JavaScript
// and not a module: it runs as a classic script in the context's own realm.
//
// Security rules this file keeps:
// - `bridge` (a function of the sandbox process's realm) lives only in this closure. It is called
//   with primitives and returns primitives; anything it throws is replaced, never rethrown,
//   because a thrown object from another realm would hand the script that realm's constructors.
// - Every intrinsic used after the script starts is captured here first, and called through
//   captured `Reflect.apply`, so patched prototypes cannot redirect this code.
// - `Error.prepareStackTrace` is locked to a formatter that never exposes call sites (their
//   getFunction/getThis reach frames of the sandbox process's realm).
(function toolcellPrelude(bridge, scriptFile, inspector, core) {
  'use strict';

  // Operations the sandbox process asks of this prelude (keep in sync with context.mjs).
  const C_BIND = 1;
  const C_RUN = 2;
  const C_THROWN = 3;
  const C_DELIVER = 4;
  const C_IMPORT_ERROR = 5;
  // Operations this prelude asks of the sandbox process (keep in sync with context.mjs).
  const B_CALL = 1;
  const B_LOG = 2;
  const B_DONE = 3;
  const B_FAIL = 4;
  const B_UNKNOWN_TOOL = 5;
  const B_RESOLVE = 6;
  const B_KEYS = 7;

  const G = globalThis;
  const hasOwn = Object.prototype.hasOwnProperty;
  const getOwnPropertyDescriptor = Reflect.getOwnPropertyDescriptor;
  const reflectHas = Reflect.has;
  const preventExtensions = Reflect.preventExtensions;
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const SymbolCtor = Symbol;
  // What both preludes share (guest/guest-core.js, evaluated just before: it has also removed the
  // capabilities no script has and installed ToolError), and the intrinsics it captured.
  const { safeString, readString, rejected, makeError, argumentsJson, settleAnswer, installPath } = core;
  const { apply, create, defineProperty, freeze, ProxyCtor, PromiseCtor, MapCtor, jsonParse, isArray, ErrorCtor, TypeErrorCtor,
    functionBind, RangeErrorCtor } = core.intrinsics;
  const errorSummary = inspector.errorSummary;

  // The symbol registry is shared by every context of an isolate; a private one per run keeps
  // runs in the same sandbox process from talking to each other through Symbol.for.
  const registry = create(null);
  const registeredKeys = new MapCtor();
  defineProperty(SymbolCtor, 'for', {
    value: function symbolFor(key) {
      const name = '' + key;
      let symbol = registry[name];
      if (symbol === undefined) {
        symbol = SymbolCtor(name);
        registry[name] = symbol;
        apply(mapSet, registeredKeys, [symbol, name]);
      }
      return symbol;
    },
    writable: true, enumerable: false, configurable: true,
  });
  defineProperty(SymbolCtor, 'keyFor', {
    value: function keyFor(symbol) {
      if (typeof symbol !== 'symbol') throw new TypeErrorCtor(safeString(symbol) + ' is not a symbol');
      return apply(mapGet, registeredKeys, [symbol]);
    },
    writable: true, enumerable: false, configurable: true,
  });

  // Call sites, for runs that ask (`config.sites`): while `capturing`, the formatter returns the
  // first script frame as line * 2^20 + column instead of text. Runs without it never pay.
  let sites = false;
  let capturing = false;
  const SITE_LINE = 1048576;
  function siteOf(frames) {
    for (let i = 0; i < frames.length; i++) {
      const frame = frames[i];
      if (frame.getFileName() !== scriptFile) continue;
      const line = frame.getLineNumber();
      const column = frame.getColumnNumber();
      return line > 0 ? line * SITE_LINE + (column > 0 && column < SITE_LINE ? column : 0) : 0;
    }
    return 0;
  }
  function callerSite() {
    // Error is frozen here (harden.js): the script cannot lower stackTraceLimit to hide its frames.
    let site = 0;
    capturing = true;
    try {
      const stack = new ErrorCtor().stack;
      if (typeof stack === 'number') site = stack;
    } catch {
      // No site is reported rather than failing the call.
    } finally {
      capturing = false;
    }
    return site;
  }

  function prepareStackTrace(error, frames) {
    if (capturing) return siteOf(frames);
    let out = errorSummary(error);
    for (let i = 0; i < frames.length; i++) {
      try {
        const frame = frames[i];
        if (frame.getFileName() !== scriptFile) continue;
        const fn = frame.getFunctionName();
        const where = scriptFile + ':' + frame.getLineNumber() + ':' + frame.getColumnNumber();
        const isAsync = typeof frame.isAsync === 'function' && frame.isAsync();
        out += '\n    at ' + (isAsync ? 'async ' : '') + (fn ? fn + ' (' + where + ')' : where);
      } catch {
        // A frame that cannot be described is left out rather than failing the whole trace.
      }
    }
    return out;
  }
  defineProperty(ErrorCtor, 'prepareStackTrace', {
    value: prepareStackTrace, writable: false, enumerable: false, configurable: false,
  });
  // Node looks the formatter up as `globalThis.Error.prepareStackTrace`, so the binding is locked too.
  defineProperty(G, 'Error', { value: ErrorCtor, writable: false, enumerable: false, configurable: false });

  function callBridge(op, a, b, c) {
    try {
      return bridge(op, a, b, c);
    } catch {
      // Whatever was thrown came from the sandbox process's realm: drop it.
      throw new RangeErrorCtor('the sandbox bridge failed (the call stack may be exhausted)');
    }
  }

  // guest/inspect.js, evaluated in this context just before this file.
  const formatLog = inspector.formatLog;
  /** A console argument or a thrown non-error as text: strings as they are, the rest through the inspector. */
  function format(value) {
    if (typeof value === 'string') return value;
    return formatLog(value);
  }

  core.makeHelpers(format, function sendLog(level, text) {
    callBridge(B_LOG, level, text);
  }, inspector.inspect)();

  // Math.random and Date (guest/guest-core.js): the engine's own, after one flag test, unless
  // the run is durable (`bind` given `dur`); then Math.random draws from the host's seed and the
  // clock reads are recorded, sent before each tool call.
  const reads = core.installReads(function sendClock(text) {
    callBridge(B_LOG, 'clock', text);
  }, false);

  // Pending calls: id → [resolve, reject].
  const pending = create(null);

  function invoke(isGlobal, name, label, args, maxChars) {
    const json = argumentsJson(args, label, maxChars);
    if (typeof json !== 'string') return rejected(json);
    reads.flush();
    // A tool call of a run with sites on sends its site (a number) in place of `false`.
    const id = callBridge(B_CALL, sites && !isGlobal ? callerSite() : isGlobal, name, json);
    if (typeof id === 'number') {
      return relay(new PromiseCtor(function (resolve, reject) {
        pending[id] = [resolve, reject];
      }), label);
    }
    if (typeof id === 'string') return rejected(new RangeErrorCtor(id));
    return rejected(new ErrorCtor(label + ' was called after the run ended'));
  }

  // A failed call's error is made here, after the await resumes, rather than when the host's
  // answer arrives: V8 then records the script's awaiting frames (`at async script.js:3:9`),
  // so an uncaught tool error names the line that called the tool. Only failures pay for a stack.
  const FAILURE = SymbolCtor('failure');
  async function relay(promise, label) {
    try {
      return await promise;
    } catch (failure) {
      if (failure !== null && typeof failure === 'object' && failure[FAILURE] === true) throw toolFailure(failure.name, failure.message, label);
      throw failure;
    }
  }

  /** A failed call's error: its stack ends with the tool it came from. */
  function toolFailure(name, message, label) {
    const error = makeError(name, message, false);
    const stack = readString(error, 'stack');
    if (stack !== undefined) {
      defineProperty(error, 'stack', { value: stack + '\n    (raised by ' + label + ')', writable: true, enumerable: false, configurable: true });
    }
    return error;
  }

  /** A tool or helper global; `maxChars` (globals only) cuts its argument before it crosses. */
  function makeCallable(isGlobal, name, label, maxChars) {
    // Bound, so its source reads `function () { [native code] }`: the arrow's own text is this
    // prelude's, which String(tools.x) and "… is not a constructor" would show the script.
    const fn = apply(functionBind, (args) => invoke(isGlobal, name, label, args, maxChars), [undefined]);
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
      const failure = create(null);
      failure[FAILURE] = true;
      failure.name = errorName;
      failure.message = payload;
      entry[1](failure);
    } else {
      settleAnswer(entry, ok, payload);
    }
    return true;
  }

  /** The message for a member a namespace lacks, from the sandbox process (closest.mjs). */
  function missingMember(key, where, members) {
    return callBridge(B_UNKNOWN_TOOL, key, where, members);
  }

  // The global object's rule for installPath (guest-core.js): a context is new for every run, so
  // anything already there is a built-in a global may not replace.
  const onGlobal = {
    refuses(segment) {
      return segment in G;
    },
  };

  // `tools` installs each tool on first use: a context is new for every run, and installing a
  // thousand tools up front would cost the run more than the script. The names live in the
  // sandbox process's copy of the catalog; the bridge answers what a key is (B_RESOLVE) and,
  // for a script that enumerates `tools`, every key (B_KEYS), after which all is installed and
  // the target frozen. Each trap installs the key it is asked about first and then answers as
  // the frozen object of an up-front install would, so scripts see the same object either way.
  let target = null;
  /** While `bind` hangs nested paths on functions, which are frozen once that is done. */
  let installing = false;
  let complete = false;

  /** Installs the flat key `key` of `tools` when it names a tool or an alias; true when it is there. */
  function materialize(key) {
    if (apply(hasOwn, target, [key])) return true;
    if (complete) return false;
    const kind = callBridge(B_RESOLVE, key);
    if (typeof kind !== 'string' || kind === '') return false;
    const rest = kind.slice(1);
    if (kind[0] === 't') {
      const fn = makeCallable(false, key, rest);
      if (!installing) freeze(fn);
      defineProperty(target, key, { value: fn, enumerable: true });
      return true;
    }
    if (kind[0] === 'a' && materialize(rest)) {
      defineProperty(target, key, { value: target[rest], enumerable: false });
      return true;
    }
    return false;
  }

  function allKeys() {
    const text = callBridge(B_KEYS);
    if (typeof text !== 'string') throw new TypeErrorCtor('tools cannot be listed once the run has ended');
    return jsonParse(text);
  }

  function materializeAll() {
    if (complete) return;
    const keys = allKeys();
    for (let i = 0; i < keys.length; i++) materialize(keys[i]);
    preventExtensions(target);
    complete = true;
  }

  function ownKeys() {
    materializeAll();
    return allKeys();
  }

  /** `durJson`: a durable run's {seed, clock} as JSON text, '' for any other run. */
  function bind(eagerJson, sitesOn, durJson) {
    const config = jsonParse(eagerJson);
    sites = sitesOn === true;
    if (durJson !== '') {
      const dur = jsonParse(durJson);
      reads.begin(dur.seed, isArray(dur.clock) ? dur.clock : []);
    }
    target = create(null);
    // Nested paths (`tools.a.b`) hang on functions and namespaces: installed up front.
    installing = true;
    const madeTools = create(null);
    for (let i = 0; i < config.nested.length; i++) {
      const [id, name] = config.nested[i];
      const root = id.split('.')[0];
      if (madeTools['.' + root] === undefined && root.indexOf('.') < 0 && materialize(root)) madeTools['.' + root] = target[root];
      if (!materialize(name)) return 'the nested path ' + id + ' names no tool';
      if (name.indexOf('.') < 0) madeTools['.' + name] = target[name];
      const problem = installPath(target, id.split('.'), target[name], madeTools, missingMember);
      if (problem !== '') return problem;
    }
    installing = false;
    const toolNodes = Object.keys(madeTools);
    for (let i = 0; i < toolNodes.length; i++) freeze(madeTools[toolNodes[i]]);
    const handler = create(null);
    handler.get = function (tools, key) {
      if (typeof key !== 'string') return undefined;
      const fn = tools[key];
      if (fn !== undefined) return fn;
      if (materialize(key)) return tools[key];
      // Probed by `await`, JSON.stringify and console formatting; absence is the right answer.
      if (key === 'then' || key === 'toJSON') return undefined;
      const message = callBridge(B_UNKNOWN_TOOL, key);
      throw new TypeErrorCtor(typeof message === 'string' ? message : 'tools.' + key + ' is not a tool');
    };
    handler.has = function (tools, key) {
      if (typeof key === 'string') materialize(key);
      return reflectHas(tools, key);
    };
    handler.getOwnPropertyDescriptor = function (tools, key) {
      if (typeof key === 'string') materialize(key);
      return getOwnPropertyDescriptor(tools, key);
    };
    handler.ownKeys = ownKeys;
    // Frozen, as far as a script can tell: nothing is added, changed, removed or re-parented.
    handler.defineProperty = function () {
      return false;
    };
    handler.set = function () {
      return false;
    };
    handler.deleteProperty = function (tools, key) {
      if (typeof key === 'string') materialize(key);
      return !apply(hasOwn, tools, [key]);
    };
    handler.setPrototypeOf = function (_tools, proto) {
      return proto === null;
    };
    handler.preventExtensions = function () {
      materializeAll();
      return true;
    };
    handler.isExtensible = function () {
      materializeAll();
      return false;
    };
    defineProperty(G, 'tools', {
      value: new ProxyCtor(target, handler), writable: false, enumerable: false, configurable: false,
    });
    const madeGlobals = create(null);
    for (let i = 0; i < config.globals.length; i++) {
      const [name, path, maxChars] = config.globals[i];
      const problem = installPath(G, path, makeCallable(true, name, path.join('.') + '()', maxChars), madeGlobals, missingMember, onGlobal);
      if (problem !== '') return problem;
    }
    const roots = Object.keys(madeGlobals);
    for (let i = 0; i < roots.length; i++) freeze(madeGlobals[roots[i]]);
    return '';
  }

  /** The run's outcome, sent once; a bridge that throws is ignored: the sandbox process fails a run that never reports. */
  function report(op, a, b, c) {
    try {
      bridge(op, a, b, c);
    } catch {
      // Whatever was thrown came from the sandbox process's realm: drop it.
    }
  }
  const runner = core.makeRunner(function done(json) {
    report(B_DONE, json);
  }, function failed(name, message, stack) {
    report(B_FAIL, name, message, stack);
  }, format, function stackOf(error) {
    return readString(error, 'stack');
  });

  return function control(op, a, b, c, d) {
    switch (op) {
      case C_BIND: return bind(a, b, c);
      case C_RUN: runner.run(a); return undefined;
      case C_THROWN: runner.fail(a); return undefined;
      case C_DELIVER: return deliver(a, b, c, d);
      case C_IMPORT_ERROR: return new TypeErrorCtor('import() is not available in the sandbox');
      default: return undefined;
    }
  };
})
