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

  /**
   * The script's return value as JSON text ('' for undefined), or why it cannot be: an object
   * `{ refused }` whose text the run fails with as a TypeError.
   */
  function returnJson(value) {
    const type = typeof value;
    if (type === 'function' || type === 'symbol') return { refused: 'the script returned a ' + type + ', which cannot be serialized as JSON: return data (call the function, or return its result)' };
    if (value === undefined) return '';
    let json;
    try {
      json = jsonStringify(value);
    } catch (error) {
      // Both engines' words, with what to do about it: the model reads this.
      const why = describe(error);
      let hint = '';
      if (/BigInt/i.test(why)) hint = ': it holds a BigInt; convert it with String(x) or Number(x)';
      else if (/circular/i.test(why)) hint = ': it holds a cycle (an object that contains itself); return a copy without the back reference';
      return { refused: 'the return value cannot be serialized as JSON (' + why + ')' + hint };
    }
    return typeof json === 'string' ? json : '';
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

  return freeze({ safeString, describe, isError, readString, rejected, returnJson, makeLogger, makeNamespace, cutArgument });
})
