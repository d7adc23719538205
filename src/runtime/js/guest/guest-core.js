// Helpers both engines' preludes use, evaluated inside the script's own VM or context (QuickJS:
// engines/quickjs/main.mjs; V8: engines/v8/context.mjs) before the prelude, as guest/inspect.js is.
// They were written twice, once per prelude; one copy keeps the engines saying the same things.
//
// Plain ECMAScript, no module: its completion value is the function below, which returns the
// helpers. Every intrinsic is captured when it runs, before any script exists, so a script that
// patches a prototype later cannot redirect them. Nothing here touches a bridge: what must cross
// to the sandbox process is handed in by the prelude (`makeHelpers`'s `send`, `makeNamespace`'s
// `missing`, `makeRunner`'s `done` and `failed`). What is engine-specific (how the bridge is
// called, stacks and call sites, how `tools` is built) stays in each prelude.
(function makeGuestCore() {
  'use strict';
  const G = globalThis;
  const apply = Reflect.apply;
  const create = Object.create;
  const freeze = Object.freeze;
  const objectKeys = Object.keys;
  const ProxyCtor = Proxy;
  const PromiseCtor = Promise;
  const TypeErrorCtor = TypeError;
  const symbolToString = Symbol.prototype.toString;
  const jsonStringify = JSON.stringify;
  const stringSlice = String.prototype.slice;
  const isArray = Array.isArray;
  const arrayFrom = Array.from;
  const MapCtor = Map;
  const SetCtor = Set;
  const ErrorCtor = Error;
  const numberIsFinite = Number.isFinite;
  const numberIsSafeInteger = Number.isSafeInteger;
  const NumberCtor = Number;
  const bigintToString = BigInt.prototype.toString;
  const jsonParse = JSON.parse;
  const SyntaxErrorCtor = SyntaxError;
  const captureStackTrace = Error.captureStackTrace;
  const functionBind = Function.prototype.bind;
  const RangeErrorCtor = RangeError;

  // Capabilities no script has, under either engine. Typed arrays and ArrayBuffer: their memory
  // lives outside V8's heap, so its heap limit could not bound it; Intl.Segmenter and
  // v8BreakIterator keep copies of their input outside the heap for the same reason.
  // FinalizationRegistry could run script code after the run ended; weak references and a
  // performance clock would reveal the collector's timing. `console` is the prelude's own.
  const REMOVED = [
    'eval', 'WebAssembly', 'SharedArrayBuffer', 'Atomics', 'FinalizationRegistry', 'WeakRef', 'performance',
    'queueMicrotask', 'console', 'ArrayBuffer', 'DataView', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray',
    'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float16Array', 'Float32Array', 'Float64Array',
    'BigInt64Array', 'BigUint64Array',
  ];
  for (let i = 0; i < REMOVED.length; i++) delete G[REMOVED[i]];
  if (typeof Intl === 'object' && Intl !== null) {
    delete Intl.Segmenter;
    delete Intl.v8BreakIterator;
  }

  /** Any value as text, never throwing (a throwing `toString` costs only the text). */
  function safeString(value) {
    if (typeof value === 'symbol') return apply(symbolToString, value, []);
    try {
      return '' + value;
    } catch {
      return '[unprintable value]';
    }
  }

  /** A thrown value's message, for errors made about it (serialization failures). */
  function describe(error) {
    try {
      const message = error !== null && typeof error === 'object' ? error.message : undefined;
      return typeof message === 'string' ? message : safeString(error);
    } catch {
      return 'unknown error';
    }
  }

  /** How many distinct kinds of conversion a return value reports (each with its count). */
  const MAX_CONVERSION_KINDS = 16;
  /**
   * Longest JSON text (characters) of a return value that is searched for NaN and ±Infinity.
   * JSON.stringify writes them as `null`; telling which `null` was one takes a second pass with
   * a replacer, ~30% of a stringify in QuickJS (50,000 objects: 450-520 ms → 630-680 ms), paid
   * only by values holding `null` and no longer than this: the model's result cap is 64 KiB,
   * and a longer value reaches it only in part anyway.
   */
  const NUMBER_PASS_MAX_CHARS = 262144;
  const stringIndexOf = String.prototype.indexOf;
  const defineProperty = Object.defineProperty;

  /** The notes of the return value being serialized; undefined otherwise (tool arguments, logs). */
  let collecting;
  function note(kind, as) {
    if (collecting === undefined) return;
    const key = kind + '\u0000' + as;
    const seen = collecting[key];
    if (seen !== undefined) seen.count++;
    else if (objectKeys(collecting).length < MAX_CONVERSION_KINDS) collecting[key] = { kind, as, count: 1 };
  }

  // The documented JSON forms of values JSON.stringify would lose or refuse
  // (docs/script-results.md, "What a script returns"), as `toJSON` methods of their prototypes:
  // JSON.stringify calls them natively, so plain data pays nothing. Installed before any script
  // exists; guest/harden.js freezes the prototypes after. They apply to tool arguments too (a Map
  // argument arrives as an object, not `{}`), where nothing is noted.
  function hidden(proto, fn) {
    defineProperty(proto, 'toJSON', { value: fn, writable: false, enumerable: false, configurable: false });
  }
  hidden(MapCtor.prototype, function toJSON() {
    const entries = arrayFrom(this);
    for (let i = 0; i < entries.length; i++) {
      if (typeof entries[i][0] !== 'string') {
        note('Map', 'array of [key, value] pairs');
        return entries;
      }
    }
    note('Map', 'object');
    const out = create(null);
    for (let i = 0; i < entries.length; i++) out[entries[i][0]] = entries[i][1];
    return out;
  });
  hidden(SetCtor.prototype, function toJSON() {
    note('Set', 'array');
    return arrayFrom(this);
  });
  hidden(BigInt.prototype, function toJSON() {
    const asNumber = NumberCtor(this);
    if (numberIsSafeInteger(asNumber)) {
      note('BigInt', 'number');
      return asNumber;
    }
    note('BigInt', 'string');
    return apply(bigintToString, this, []);
  });
  hidden(ErrorCtor.prototype, function toJSON() {
    note('Error', 'object { name, message }');
    return { name: readString(this, 'name'), message: readString(this, 'message') };
  });

  /** The replacer of the second pass: NaN and ±Infinity as their names. */
  function namedNumbers(_key, value) {
    if (typeof value !== 'number' || numberIsFinite(value)) return value;
    const text = value !== value ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
    note(text, 'string');
    return text;
  }

  /**
   * The script's return value as JSON text ('' for undefined), or why it cannot be: an object
   * `{ refused }` whose text the run fails with as a TypeError. Values JSON would lose get their
   * documented forms (above); when any did, the text is `\u0001` followed by
   * `{"value":…,"converted":[{kind,as,count}…]}` — JSON text never starts with that character,
   * so the host (session.ts) tells the two apart without a second frame.
   */
  function returnJson(value) {
    const type = typeof value;
    if (type === 'function' || type === 'symbol') return { refused: 'the script returned a ' + type + ', which cannot be serialized as JSON: return data (call the function, or return its result)' };
    if (value === undefined) return '';
    let json;
    collecting = create(null);
    try {
      json = jsonStringify(value);
      if (typeof json === 'string' && json.length <= NUMBER_PASS_MAX_CHARS && apply(stringIndexOf, json, ['null']) !== -1) {
        collecting = create(null);
        json = jsonStringify(value, namedNumbers);
      }
    } catch (error) {
      collecting = undefined;
      // Both engines' words, with what to do about it: the model reads this.
      const why = describe(error);
      let hint = '';
      if (/circular/i.test(why)) hint = ': it holds a cycle (an object that contains itself); return a copy without the back reference';
      return { refused: 'the return value cannot be serialized as JSON (' + why + ')' + hint };
    }
    const notes = collecting;
    collecting = undefined;
    if (typeof json !== 'string') return '';
    const keys = objectKeys(notes);
    if (keys.length === 0) return json;
    const list = [];
    for (let i = 0; i < keys.length; i++) list[i] = notes[keys[i]];
    return '\u0001{"value":' + json + ',"converted":' + jsonStringify(list) + '}';
  }

  /**
   * A helper global's argument cut to `max` characters before it crosses to the host (the host
   * sets `max` per binding, `ToolBinding.maxArgumentChars`): a string argument, or each string
   * property of an object argument (`searchTools({ query, limit })`), in a new plain object. A
   * megabyte name then costs the host's thread nothing to receive; what the host reads of it is
   * cut shorter still. Any other value goes as it is.
   */
  function cutArgument(args, max) {
    if (typeof args === 'string') return args.length > max ? apply(stringSlice, args, [0, max]) : args;
    if (args === null || typeof args !== 'object' || isArray(args)) return args;
    const keys = objectKeys(args);
    const out = create(null);
    for (let i = 0; i < keys.length; i++) {
      const value = args[keys[i]];
      out[keys[i]] = typeof value === 'string' && value.length > max ? apply(stringSlice, value, [0, max]) : value;
    }
    return out;
  }

  /** `object[key]` if it is a string; a throwing getter only costs this field. */
  function readString(object, key) {
    try {
      const value = object[key];
      return typeof value === 'string' ? value : undefined;
    } catch {
      return undefined;
    }
  }

  /** A promise of this realm rejected with `error`. */
  function rejected(error) {
    return new PromiseCtor(function (_resolve, reject) {
      reject(error);
    });
  }

  /**
   * `console`, `print` and `inspect` (`inspectShape`: guest/inspect.js's), made once; returns the
   * function that puts them on the global object, writable and configurable (QuickJS calls it
   * at each bind: a run of the session may have replaced them). Each console method and print
   * hands its arguments, each through `format`, as one line to `send(level, text)`.
   */
  function makeHelpers(format, send, inspectShape) {
    const logger = (level) => function log(...args) {
      let text = '';
      for (let i = 0; i < args.length; i++) text += (i === 0 ? '' : ' ') + format(args[i]);
      send(level, text);
    };
    const consoleObject = { log: logger('log'), info: logger('info'), warn: logger('warn'), error: logger('error'), debug: logger('debug') };
    // print(...) writes a line to the result's stdout (the host tells it apart by its level).
    const print = logger('stdout');
    defineProperty(print, 'name', { value: 'print' });
    const inspect = function inspect(value, options) {
      return inspectShape(value, options);
    };
    return function installHelpers() {
      defineProperty(G, 'console', { value: consoleObject, writable: true, enumerable: false, configurable: true });
      defineProperty(G, 'print', { value: print, writable: true, enumerable: false, configurable: true });
      defineProperty(G, 'inspect', { value: inspect, writable: true, enumerable: false, configurable: true });
    };
  }

  /**
   * A call's arguments as JSON text ('' for none), a helper global's cut to `maxChars` first;
   * a TypeError naming `label` when they are not JSON.
   */
  function argumentsJson(args, label, maxChars) {
    if (maxChars > 0) args = cutArgument(args, maxChars);
    if (args === undefined) return '';
    let json;
    try {
      json = jsonStringify(args);
    } catch (error) {
      return new TypeErrorCtor('the arguments of ' + label + ' are not JSON-serializable: ' + describe(error));
    }
    return typeof json === 'string' ? json : '';
  }

  /**
   * Settles a call (`entry`: [resolve, reject, …]) with its answer. `ok` (session.ts): 1 the
   * value's JSON text, 2 a tool's text: the value is its JSON parse, or the text itself when it
   * is not JSON. Text that merely looks like JSON is the text; any other failure (the parser's
   * stack or memory) is not a verdict on the text and fails the call.
   */
  function settleAnswer(entry, ok, payload) {
    let value;
    if (payload !== '') {
      try {
        value = jsonParse(payload);
      } catch (error) {
        if (ok !== 2 || !(error instanceof SyntaxErrorCtor)) return entry[1](new ErrorCtor('the tool result could not be decoded'));
        value = payload;
      }
    }
    entry[0](value);
  }

  /**
   * Hangs `value` at `path` below `root`, making namespace objects on the way (`missing` names
   * what one lacks: makeNamespace). `made` holds what this run put there by dotted key (so a
   * namespace may hang below a function of its own). Below `tools` (`global` undefined) a first
   * segment already there is a clash; on the global object `global.refuses(segment)` says so,
   * and with `global.bound` (QuickJS sessions) the first segment is configurable and recorded
   * there, so that the next run's bind can take it away. Returns '' or the problem.
   */
  function installPath(root, path, value, made, missing, global) {
    let node = root;
    let key = '';
    for (let i = 0; i < path.length; i++) {
      const segment = path[i];
      key += '.' + segment;
      const last = i === path.length - 1;
      const existing = made[key];
      if (existing !== undefined) {
        if (last) return 'two bindings are reached as ' + key.slice(1);
        node = existing;
        continue;
      }
      if (i === 0 && (global === undefined ? segment in root : global.refuses(segment))) return 'global ' + key.slice(1) + ' would shadow a built-in';
      const child = last ? value : makeNamespace(global === undefined ? 'tools' + key : key.slice(1), missing);
      const removable = i === 0 && global !== undefined && global.bound !== undefined;
      defineProperty(node, segment, { value: child, writable: false, enumerable: i > 0, configurable: removable });
      if (removable) global.bound.push(segment);
      made[key] = child;
      node = child;
    }
    return '';
  }

  /**
   * A run's start and its single outcome: `run(fn)` calls the script's function and reports
   * once, `done(json)` (returnJson) or `failed(name, message, stack)`; `fail(error)` reports a
   * throw caught elsewhere. `format` renders a thrown value that has no message, `stackOf` the
   * stack reported for a thrown object.
   */
  function makeRunner(done, failed, format, stackOf) {
    let finished = false;
    function fail(error) {
      if (finished) return;
      let name;
      let message;
      let stack;
      if (error !== null && (typeof error === 'object' || typeof error === 'function')) {
        name = readString(error, 'name');
        message = readString(error, 'message');
        stack = stackOf(error);
      }
      if (message === undefined) message = format(error);
      finished = true;
      failed(name, message, stack);
    }
    function succeed(value) {
      if (finished) return;
      const json = returnJson(value);
      finished = true;
      if (typeof json === 'string') done(json);
      else failed('TypeError', json.refused, undefined);
    }
    // `await` adopts a native promise without looking up `then` or a species constructor, so a
    // script that patched Promise.prototype cannot intercept its own completion this way.
    async function settle(promise) {
      let value;
      try {
        value = await promise;
      } catch (error) {
        fail(error);
        return;
      }
      succeed(value);
    }
    function run(fn) {
      finished = false;
      if (typeof fn !== 'function') {
        finished = true;
        failed('SyntaxError', 'the script is not a function body', undefined);
        return;
      }
      let result;
      try {
        result = apply(fn, undefined, []);
      } catch (error) {
        fail(error);
        return;
      }
      settle(result);
    }
    return freeze({ run, fail });
  }

  /**
   * A new namespace object (`tools.models`, the global `models`). Its members are own properties,
   * found without a trap; only a member it lacks reaches the Proxy behind it, which throws a
   * TypeError naming what was read and what the namespace has ("not a function" said neither).
   * `missing(key, where, members)` returns that message (members joined by newlines).
   */
  function makeNamespace(where, missing) {
    const handler = create(null);
    const node = create(new ProxyCtor(freeze(create(null)), handler));
    handler.get = function (_target, key) {
      // Probed by `await`, JSON.stringify and console formatting; absence is the right answer.
      if (typeof key !== 'string' || key === 'then' || key === 'toJSON') return undefined;
      const members = objectKeys(node);
      let list = '';
      for (let i = 0; i < members.length; i++) list += (i === 0 ? '' : '\n') + members[i];
      const message = missing(key, where, list);
      throw new TypeErrorCtor(typeof message === 'string' ? message : where + '.' + key + ' is not a tool');
    };
    return node;
  }

  /**
   * What a failed tool call raises in the script (`e instanceof ToolError`): the error the
   * description of code_execution names. Its `name` is on the prototype, so errors made from it
   * say `ToolError` in their stacks; installed as a global by each prelude, frozen with the rest.
   */
  class ToolError extends ErrorCtor {}
  Object.defineProperty(ToolError.prototype, 'name', { value: 'ToolError', writable: true, enumerable: false, configurable: true });
  // Frozen here: guest/harden.js freezes the built-ins it knows, and this class is not one.
  freeze(ToolError.prototype);
  freeze(ToolError);
  defineProperty(G, 'ToolError', { value: ToolError, writable: false, enumerable: false, configurable: false });

  // The classes a failed call's error may have: the one the host names, else Error with that name.
  const errorCtors = create(null);
  errorCtors.Error = ErrorCtor;
  errorCtors.TypeError = TypeErrorCtor;
  errorCtors.RangeError = RangeError;
  errorCtors.SyntaxError = SyntaxErrorCtor;
  errorCtors.ReferenceError = ReferenceError;
  errorCtors.EvalError = EvalError;
  errorCtors.URIError = URIError;
  errorCtors.ToolError = ToolError;
  /** A failed call's error; `restack` (QuickJS, which formats a stack when the error is made) formats it again once named. */
  function makeError(name, message, restack) {
    const Ctor = (typeof name === 'string' && errorCtors[name]) || ErrorCtor;
    const error = new Ctor(message);
    if (Ctor === ErrorCtor && typeof name === 'string' && name !== 'Error') {
      defineProperty(error, 'name', { value: name, writable: true, enumerable: false, configurable: true });
      if (restack && typeof captureStackTrace === 'function') captureStackTrace(error);
    }
    return error;
  }

  /**
   * Math.random and Date for both preludes, replayable for durable runs (docs/durable.md);
   * installed on the global object once, before any script, then `begin` starts each run.
   *
   * - Random: sfc32, seeded by `begin`. `seedAlways` (QuickJS): every run draws from it, because
   *   every VM is restored from one snapshot, so the engine's own generator would repeat the
   *   same numbers in every run. Otherwise (V8: each run's fresh context has its own generator)
   *   only a recording run does, and any other reads the engine's after one flag test.
   * - Clock: while a run records (`begin` given a journal's clock reads), every read — Date.now(),
   *   new Date(), Date() — is kept and handed to `send` as JSON text by `flush`, which the
   *   prelude calls before each tool call, so a replay reads the same times: the journal's reads
   *   are served in order, then the live clock continues. Otherwise one flag test per read.
   */
  /**
   * Clock reads a recording run keeps (src/store/bounds.ts MAX_CLOCK_READS, the journal's bound,
   * which refuses to store more): past it the guest keeps none, so a loop reading the clock
   * cannot grow the array, nor the frame that carries it to the host, without bound.
   */
  const MAX_KEPT_READS = 100000;

  function installReads(send, seedAlways) {
    const RealDate = Date;
    const realNow = Date.now;
    const dateToString = Date.prototype.toString;
    const engineRandom = Math.random;
    const construct = Reflect.construct;
    const defineProperty = Object.defineProperty;
    const seed = [0x9e3779b9, 0x243f6a88, 0xb7e15162, 0x71374491];
    let seeded = seedAlways;
    let recording = false;
    let replay = [];
    let next = 0;
    let reads = [];
    /** Reads kept this run; past MAX_KEPT_READS none is kept and `flush` sends "over" once instead. */
    let kept = 0;
    let told = false;
    function sfc32() {
      const t = (((seed[0] + seed[1]) | 0) + seed[3]) | 0;
      seed[3] = (seed[3] + 1) | 0;
      seed[0] = seed[1] ^ (seed[1] >>> 9);
      seed[1] = (seed[2] + (seed[2] << 3)) | 0;
      seed[2] = (seed[2] << 21) | (seed[2] >>> 11);
      seed[2] = (seed[2] + t) | 0;
      return t >>> 0;
    }
    defineProperty(Math, 'random', {
      value: function random() {
        if (!seeded) return engineRandom();
        return ((sfc32() >>> 5) * 67108864 + (sfc32() >>> 6)) / 9007199254740992;
      },
      writable: true, enumerable: false, configurable: true,
    });
    function clockNow() {
      if (!recording) return realNow();
      const value = next < replay.length ? replay[next++] : realNow();
      if (++kept <= MAX_KEPT_READS) reads[reads.length] = value;
      return value;
    }
    const DateShim = function Date(...args) {
      if (new.target === undefined) return apply(dateToString, construct(RealDate, [clockNow()]), []);
      return construct(RealDate, args.length === 0 ? [clockNow()] : args, new.target);
    };
    defineProperty(DateShim, 'prototype', { value: RealDate.prototype, writable: false, enumerable: false, configurable: false });
    defineProperty(DateShim, 'length', { value: 7, configurable: true });
    defineProperty(DateShim, 'now', { value: function now() { return clockNow(); }, writable: true, enumerable: false, configurable: true });
    defineProperty(DateShim, 'parse', { value: RealDate.parse, writable: true, enumerable: false, configurable: true });
    defineProperty(DateShim, 'UTC', { value: RealDate.UTC, writable: true, enumerable: false, configurable: true });
    defineProperty(RealDate.prototype, 'constructor', { value: DateShim, writable: true, enumerable: false, configurable: true });
    defineProperty(G, 'Date', { value: DateShim, writable: true, enumerable: false, configurable: true });
    return freeze({
      /** A run starts: `words` (4 integers) seed the generator; `clock` (an array: the journal's reads) makes it record. */
      begin(words, clock) {
        for (let i = 0; i < 4; i++) seed[i] = words[i] | 0;
        for (let i = 0; i < 12; i++) sfc32();
        recording = isArray(clock);
        seeded = seedAlways || recording;
        replay = recording ? clock : [];
        next = 0;
        reads = [];
        kept = 0;
        told = false;
      },
      /** Sends the reads kept since the last flush, if any (before a tool call); past the bound, "over" once. */
      flush() {
        if (reads.length > 0) {
          const text = jsonStringify(reads);
          reads = [];
          send(text);
        }
        if (kept > MAX_KEPT_READS && !told) {
          told = true;
          send('"over"');
        }
      },
    });
  }

  return freeze({
    safeString, describe, readString, rejected, makeError, makeHelpers, argumentsJson, settleAnswer,
    installPath, makeRunner, installReads,
    // For the preludes: captured here before any script existed, as their own would be.
    intrinsics: freeze({ apply, create, defineProperty, freeze, ProxyCtor, PromiseCtor, jsonParse, symbolToString, ErrorCtor, captureStackTrace, TypeErrorCtor, isArray, MapCtor,
      functionBind, RangeErrorCtor }),
  });
})
