// Helpers both engines' preludes use, evaluated inside the script's own VM or context (QuickJS:
// engines/quickjs/main.mjs; V8: engines/v8/context.mjs) before the prelude, as guest/inspect.js is.
// They were written twice, once per prelude; one copy keeps the engines saying the same things.
//
// Plain ECMAScript, no module: its completion value is the function below, which returns the
// helpers. Every intrinsic is captured when it runs, before any script exists, so a script that
// patches a prototype later cannot redirect them. Nothing here touches a bridge: what must cross
// to the sandbox process is handed in by the prelude (`makeLogger`'s `send`, `makeNamespace`'s
// `missing`).
(function makeGuestCore() {
  'use strict';
  const apply = Reflect.apply;
  const create = Object.create;
  const freeze = Object.freeze;
  const objectKeys = Object.keys;
  const ProxyCtor = Proxy;
  const PromiseCtor = Promise;
  const TypeErrorCtor = TypeError;
  const symbolToString = Symbol.prototype.toString;
  const objectToString = Object.prototype.toString;
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

  function isError(value) {
    try {
      return apply(objectToString, value, []) === '[object Error]';
    } catch {
      return false;
    }
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
   * A console method (`log`, `print`): its arguments as one line of text, each through
   * `format`, handed to `send(level, text)`.
   */
  function makeLogger(level, format, send) {
    return function log(...args) {
      let text = '';
      for (let i = 0; i < args.length; i++) text += (i === 0 ? '' : ' ') + format(args[i]);
      send(level, text);
    };
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

  return freeze({ ToolError, safeString, describe, isError, readString, rejected, returnJson, makeLogger, makeNamespace, cutArgument });
})
