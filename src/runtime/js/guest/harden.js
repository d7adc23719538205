// Freezes the intrinsics of the realm it is evaluated in (engines/v8/context.mjs evaluates it in the
// sandbox process's own realm once, and in every fresh script context after the prelude). Its
// completion value is a function taking one boolean, so nothing of another realm is handed in.
//
// Why both realms:
// - The process's own realm: a script can still be handed an object of this realm (a stack
//   overflow inside Node's own code, say while formatting `new Error().stack` or rejecting
//   `import()`, throws a RangeError made here). From it, prototype steps reach this realm's
//   `Object.prototype`; an accessor planted there would fire inside Node and the bridge during
//   every later run. Frozen, there is nothing to plant on.
// - The script's realm: the prelude serializes tool arguments, return values and log lines
//   with `JSON.stringify`, which consults `toJSON` up the prototype chain. Frozen prototypes keep
//   a script from changing what the bridge sends (and, for engines that keep a realm alive
//   between runs, from leaving anything behind for the next one).
//
// Freezing makes assigning a property that an instance inherits from a frozen prototype fail
// (the "override mistake": `this.name = 'MyError'` in an Error subclass). For the names code
// commonly assigns that way, the data property becomes an accessor whose setter defines the
// property on the receiver instead; on the prototype itself it throws a clear TypeError. Only
// Object.prototype's members and the Error prototypes' constructor/name/message/toString get
// this: V8 guards its fast paths with checks on other prototypes' `constructor`, `toString` and
// `valueOf` (Array, Promise, RegExp, String, ...), and accessors there measured 3-5× slower
// string scans and array builtins afterwards.
(function toolcellHardenFactory() {
  'use strict';

  // Every global value property the ECMAScript spec and V8 define; absent ones are skipped.
  const ROOT_NAMES = [
    'Object', 'Function', 'Array', 'Number', 'parseFloat', 'parseInt', 'Boolean', 'String', 'Symbol',
    'Date', 'Promise', 'RegExp', 'Error', 'AggregateError', 'EvalError', 'RangeError', 'ReferenceError',
    'SyntaxError', 'TypeError', 'URIError', 'JSON', 'Math', 'Intl', 'ArrayBuffer', 'Atomics', 'Uint8Array',
    'Int8Array', 'Uint16Array', 'Int16Array', 'Uint32Array', 'Int32Array', 'Float16Array', 'Float32Array',
    'Float64Array', 'Uint8ClampedArray', 'BigUint64Array', 'BigInt64Array', 'DataView', 'Map', 'BigInt',
    'Set', 'WeakMap', 'WeakSet', 'Proxy', 'Reflect', 'FinalizationRegistry', 'WeakRef', 'decodeURI',
    'decodeURIComponent', 'encodeURI', 'encodeURIComponent', 'escape', 'unescape', 'eval', 'isFinite',
    'isNaN', 'SharedArrayBuffer', 'WebAssembly', 'Iterator', 'DisposableStack', 'AsyncDisposableStack',
    'SuppressedError',
  ];
  // Error members assigned on instances often enough that freezing their slot would break code.
  const ERROR_OVERRIDABLE = ['constructor', 'name', 'message', 'toString'];

  const G = globalThis;
  const apply = Reflect.apply;
  const ownKeys = Reflect.ownKeys;
  const getPrototypeOf = Reflect.getPrototypeOf;
  const getOwnPropertyDescriptor = Reflect.getOwnPropertyDescriptor;
  const defineProperty = Reflect.defineProperty;
  const freeze = Object.freeze;
  const isFrozen = Object.isFrozen;
  const TypeErrorCtor = TypeError;
  const SetCtor = Set;
  const setHas = Set.prototype.has;
  const setAdd = Set.prototype.add;
  const push = Array.prototype.push;
  const pop = Array.prototype.pop;
  const includes = Array.prototype.includes;

  function isObject(value) {
    return (typeof value === 'object' && value !== null) || typeof value === 'function';
  }

  /** Intrinsics only reachable through syntax or instances, not through a global name. */
  function hiddenRoots() {
    const out = [];
    const probes = [
      () => getPrototypeOf(function* () {}),
      () => getPrototypeOf(async function () {}),
      () => getPrototypeOf(async function* () {}),
      () => getPrototypeOf([][Symbol.iterator]()),
      () => getPrototypeOf(new Map()[Symbol.iterator]()),
      () => getPrototypeOf(new Set()[Symbol.iterator]()),
      () => getPrototypeOf(''[Symbol.iterator]()),
      () => getPrototypeOf('a'.matchAll(/a/g)),
      () => getPrototypeOf([].values().map?.(() => 0) ?? {}),
    ];
    for (let i = 0; i < probes.length; i++) {
      try {
        apply(push, out, [probes[i]()]);
      } catch {
        // An intrinsic this engine lacks.
      }
    }
    return out;
  }

  /** Turns `key` on `proto` into an accessor whose setter shadows it on the receiver. */
  function makeOverridable(proto, key) {
    const desc = getOwnPropertyDescriptor(proto, key);
    if (desc === undefined || !('value' in desc) || !desc.writable || !desc.configurable) return;
    const value = desc.value;
    // Method syntax: accessors without a `prototype` of their own (whose `constructor` would
    // need the same treatment, and so on).
    const accessors = {
      get() {
        return value;
      },
      set(next) {
        if (this === proto) {
          throw new TypeErrorCtor(`Cannot assign to '${String(key)}': built-in prototypes are frozen in the sandbox`);
        }
        if (!defineProperty(this, key, { value: next, writable: true, enumerable: true, configurable: true })) {
          throw new TypeErrorCtor(`Cannot assign to '${String(key)}' of a non-extensible object`);
        }
      },
    };
    defineProperty(proto, key, {
      get: accessors.get,
      set: accessors.set,
      enumerable: desc.enumerable,
      configurable: false,
    });
  }

  /**
   * @param {boolean} everything also freeze plain built-in functions (methods, which have no
   *   `prototype`). The process's own realm is frozen once, entirely; a script context is made
   *   per run, so it skips them (half the cost): the bridge reads none of their properties.
   * @returns {number} objects frozen
   */
  return function harden(everything) {
    const seen = new SetCtor();
    const stack = hiddenRoots();
    // Roots and prototypes are frozen even when they are functions (Proxy, Function.prototype).
    const keep = new SetCtor();
    for (let i = 0; i < ROOT_NAMES.length; i++) {
      const desc = getOwnPropertyDescriptor(G, ROOT_NAMES[i]);
      if (desc !== undefined && isObject(desc.value)) {
        apply(push, stack, [desc.value]);
        apply(setAdd, keep, [desc.value]);
      }
    }
    const objectProto = getPrototypeOf({});
    const errorProto = Error.prototype;
    let frozen = 0;
    while (stack.length > 0) {
      const object = apply(pop, stack, []);
      if (apply(setHas, seen, [object])) continue;
      // A method skipped here is not marked seen: it may still turn out to be a prototype.
      if (
        !everything && typeof object === 'function' && !apply(setHas, keep, [object]) &&
        getOwnPropertyDescriptor(object, 'prototype') === undefined
      ) continue;
      apply(setAdd, seen, [object]);
      const keys = ownKeys(object);
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        // Every member of Object.prototype is inherited by every plain object used as a map.
        if (object === objectProto) makeOverridable(object, key);
        else if ((object === errorProto || getPrototypeOf(object) === errorProto) && apply(includes, ERROR_OVERRIDABLE, [key])) {
          makeOverridable(object, key);
        }
        const desc = getOwnPropertyDescriptor(object, key);
        if (desc === undefined) continue;
        if (isObject(desc.value)) apply(push, stack, [desc.value]);
        if (isObject(desc.get)) apply(push, stack, [desc.get]);
        if (isObject(desc.set)) apply(push, stack, [desc.set]);
      }
      const proto = getPrototypeOf(object);
      if (proto !== null) {
        apply(push, stack, [proto]);
        apply(setAdd, keep, [proto]);
      }
      freeze(object);
      if (!isFrozen(object)) throw new TypeErrorCtor('an intrinsic could not be frozen');
      frozen++;
    }
    return frozen;
  };
})();
