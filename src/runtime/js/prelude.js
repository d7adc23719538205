// Evaluated inside each fresh sandbox context, before the script. It is the only code that
// ever holds the bridge: it captures every intrinsic it needs first (so a script that patches
// Promise.prototype.then, JSON or Object.prototype cannot reach it), builds everything the
// script can touch inside the context, and passes only strings and numbers across.
//
// Completion value: a function (bridge, setupJson) -> { start, deliver, makeImportError, isSettled }.
(function createPrelude(bridge, setupJson) {
  'use strict';
  const G = globalThis;
  const ObjectCreate = Object.create;
  const ObjectFreeze = Object.freeze;
  const ObjectDefineProperty = Object.defineProperty;
  const ObjectKeys = Object.keys;
  const ObjectPrototypeToString = Object.prototype.toString;
  const ReflectApply = Reflect.apply;
  const ReflectHas = Reflect.has;
  const JSONStringify = JSON.stringify;
  const JSONParse = JSON.parse;
  const PromiseCtor = Promise;
  const PromiseThen = Promise.prototype.then;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const ReferenceErrorCtor = ReferenceError;
  const StringCtor = String;
  const ArrayIsArray = Array.isArray;
  const MathMin = Math.min;
  const ProxyCtor = Proxy;
  const MapCtor = Map;
  const MapGet = Map.prototype.get;
  const MapSet = Map.prototype.set;
  const MapHas = Map.prototype.has;
  const MapDelete = Map.prototype.delete;
  const StringSlice = String.prototype.slice;
  const StringToLowerCase = String.prototype.toLowerCase;
  const ArrayJoin = Array.prototype.join;
  const ArrayPush = Array.prototype.push;
  const ArraySort = Array.prototype.sort;
  const ArrayMap = Array.prototype.map;
  const ArraySlice = Array.prototype.slice;
  const errorStackGetter = (() => {
    // `stack` is an own accessor or data property created lazily; read it defensively.
    return (e) => {
      try {
        const s = e.stack;
        return typeof s === 'string' ? s : undefined;
      } catch {
        return undefined;
      }
    };
  })();

  // Nothing but the language itself: the script gets no code generation, wasm or shared memory.
  for (const name of ['eval', 'Function', 'WebAssembly', 'SharedArrayBuffer', 'Atomics', 'FinalizationRegistry', 'WeakRef']) {
    try {
      delete G[name];
    } catch {
      /* a non-configurable global stays, but code generation is disabled for the context */
    }
  }

  const setup = JSONParse(setupJson);
  const pending = new MapCtor();
  let settled = false;

  function makeError(name, message) {
    const e = new ErrorCtor(StringCtor(message));
    if (name !== 'Error') ObjectDefineProperty(e, 'name', { value: StringCtor(name), writable: true, configurable: true, enumerable: false });
    return e;
  }

  function safeString(value) {
    try {
      if (typeof value === 'string') return value;
      if (value === undefined) return 'undefined';
      if (typeof value === 'symbol') return ReflectApply(ObjectPrototypeToString, value, []) + '';
      if (typeof value === 'object' && value !== null) {
        const json = JSONStringify(value);
        if (json !== undefined) return json;
      }
      return StringCtor(value);
    } catch {
      try {
        return ReflectApply(ObjectPrototypeToString, value, []);
      } catch {
        return '[unprintable]';
      }
    }
  }

  function describeError(e) {
    if (e !== null && typeof e === 'object') {
      let name = 'Error';
      let message = '';
      try {
        name = StringCtor(e.name);
      } catch {}
      try {
        message = StringCtor(e.message);
      } catch {}
      return [name, message, errorStackGetter(e) || ''];
    }
    return ['Error', 'thrown value: ' + safeString(e), ''];
  }

  // ── tools ──────────────────────────────────────────────────────────────
  const table = new MapCtor();
  const names = [];
  function distance(a, b) {
    const row = [];
    for (let j = 0; j <= b.length; j++) row[j] = j;
    for (let i = 1; i <= a.length; i++) {
      let diag = row[0];
      row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const up = row[j];
        row[j] = MathMin(up + 1, row[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
        diag = up;
      }
    }
    return row[b.length];
  }
  function closest(wanted) {
    const w = ReflectApply(StringToLowerCase, wanted, []);
    const scored = ReflectApply(ArrayMap, names, [(n) => [distance(w, ReflectApply(StringToLowerCase, n, [])), n]]);
    ReflectApply(ArraySort, scored, [(x, y) => x[0] - y[0] || (x[1] < y[1] ? -1 : 1)]);
    return ReflectApply(ArrayMap, ReflectApply(ArraySlice, scored, [0, 3]), [(x) => x[1]]);
  }

  function callTool(name, args) {
    return new PromiseCtor((resolve, reject) => {
      if (settled) {
        reject(makeError('Error', 'the script has already finished'));
        return;
      }
      let json;
      try {
        json = JSONStringify(args === undefined ? {} : args);
      } catch (e) {
        reject(new TypeErrorCtor('arguments of ' + name + ' are not JSON-serializable: ' + describeError(e)[1]));
        return;
      }
      if (json === undefined) {
        reject(new TypeErrorCtor('arguments of ' + name + ' are not JSON-serializable'));
        return;
      }
      const id = bridge('call', name, json);
      if (typeof id === 'string') {
        // The bridge refused the call; id is "Name: message".
        const at = id.indexOf(': ');
        reject(makeError(ReflectApply(StringSlice, id, [0, at]), ReflectApply(StringSlice, id, [at + 2])));
        return;
      }
      ReflectApply(MapSet, pending, [id, { resolve, reject }]);
    });
  }

  function toolFunction(name) {
    // A method-less arrow: no prototype, no own constructor worth reaching for.
    const fn = (args) => callTool(name, args);
    ObjectDefineProperty(fn, 'name', { value: name });
    return ObjectFreeze(fn);
  }

  const collisions = new MapCtor();
  for (const name of setup.tools) {
    ReflectApply(MapSet, table, [name, toolFunction(name)]);
    ReflectApply(ArrayPush, names, [name]);
  }
  for (const pair of setup.aliases) ReflectApply(MapSet, table, [pair[0], ReflectApply(MapGet, table, [pair[1]])]);
  for (const c of setup.collisions) ReflectApply(MapSet, collisions, [c[0], c[1]]);

  const toolsTarget = ObjectCreate(null);
  for (const name of names) toolsTarget[name] = ReflectApply(MapGet, table, [name]);
  for (const pair of setup.aliases) toolsTarget[pair[0]] = ReflectApply(MapGet, table, [pair[1]]);
  ObjectFreeze(toolsTarget);
  const tools = new ProxyCtor(toolsTarget, {
    get(target, key) {
      if (typeof key !== 'string') return undefined;
      const fn = ReflectApply(MapGet, table, [key]);
      if (fn !== undefined) return fn;
      // `await tools` and JSON/console inspection probe these; they are simply absent.
      if (key === 'then' || key === 'toJSON' || key === 'constructor' || key === 'inspect') return undefined;
      if (ReflectApply(MapHas, collisions, [key])) {
        throw new ReferenceErrorCtor('tools.' + key + ' is ambiguous: ' + ReflectApply(MapGet, collisions, [key]) + ' all sanitize to it; use tools["<name>"]');
      }
      const near = closest(key);
      throw new ReferenceErrorCtor('tools.' + key + ' does not exist.' + (near.length ? ' Closest tools: ' + ReflectApply(ArrayJoin, near, [', ']) + '.' : ' No tools are available.'));
    },
    has(target, key) {
      return typeof key === 'string' && ReflectApply(MapHas, table, [key]);
    },
    set() {
      throw new TypeErrorCtor('tools is read-only');
    },
    defineProperty() {
      throw new TypeErrorCtor('tools is read-only');
    },
    deleteProperty() {
      throw new TypeErrorCtor('tools is read-only');
    },
    getPrototypeOf() {
      return null;
    },
  });
  ObjectDefineProperty(G, 'tools', { value: tools, enumerable: false, configurable: false, writable: false });

  for (const name of setup.globals) {
    const fn = (args) => callTool(name, args);
    ObjectDefineProperty(fn, 'name', { value: name });
    ObjectDefineProperty(G, name, { value: ObjectFreeze(fn), enumerable: false, configurable: false, writable: false });
  }

  // ── console ────────────────────────────────────────────────────────────
  function format(args) {
    const parts = [];
    for (let i = 0; i < args.length; i++) ReflectApply(ArrayPush, parts, [safeString(args[i])]);
    return ReflectApply(ArrayJoin, parts, [' ']);
  }
  const consoleObject = ObjectCreate(null);
  for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
    const fn = (...args) => {
      bridge('log', level, format(args));
    };
    consoleObject[level] = ObjectFreeze(fn);
  }
  ObjectDefineProperty(G, 'console', { value: ObjectFreeze(consoleObject), enumerable: false, configurable: true, writable: true });

  // ── results in, completion out ─────────────────────────────────────────
  function deliver(id, ok, payload) {
    const entry = ReflectApply(MapGet, pending, [id]);
    if (entry === undefined) return;
    ReflectApply(MapDelete, pending, [id]);
    if (ok) {
      let value;
      try {
        value = payload === '' ? undefined : JSONParse(payload);
      } catch (e) {
        entry.reject(makeError('Error', 'the tool result could not be read'));
        return;
      }
      entry.resolve(value);
    } else {
      let name = 'Error';
      let message = payload;
      try {
        const e = JSONParse(payload);
        name = StringCtor(e.name);
        message = StringCtor(e.message);
      } catch {}
      entry.reject(makeError(name, message));
    }
  }

  function finish(ok, a, b, c) {
    if (settled) return;
    settled = true;
    bridge('done', ok, a, b, c);
  }

  function start(body) {
    let promise;
    try {
      promise = body();
    } catch (e) {
      const d = describeError(e);
      finish(false, d[0], d[1], d[2]);
      return;
    }
    ReflectApply(PromiseThen, promise, [
      (value) => {
        if (value === undefined) {
          finish(true, '', '', '');
          return;
        }
        let json;
        try {
          json = JSONStringify(value);
        } catch (e) {
          finish(false, 'TypeError', 'the return value is not JSON-serializable: ' + describeError(e)[1], '');
          return;
        }
        if (json === undefined) {
          finish(false, 'TypeError', 'the return value is not JSON-serializable (' + typeof value + ')', '');
          return;
        }
        finish(true, json, '', '');
      },
      (e) => {
        const d = describeError(e);
        finish(false, d[0], d[1], d[2]);
      },
    ]);
  }

  function makeImportError() {
    return makeError('Error', 'import() is not available in the sandbox');
  }

  return ObjectFreeze({ start, deliver, makeImportError, isSettled: () => settled });
});
