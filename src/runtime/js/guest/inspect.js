// The value inspector of both JavaScript engines, evaluated inside the script's own VM or
// context (QuickJS: engines/quickjs/main.mjs; V8: engines/v8/context.mjs) before the prelude, so it
// captures the intrinsics it uses before any script runs, and only strings leave the guest.
//
// One renderer, two presets: `log` formats console.* arguments in the spirit of Node's
// util.inspect (bounded depth, array length, string length and total size, `[Circular]`, Maps,
// Sets, errors), and `shape` is the script's `inspect(value, { depth })`: types, keys, array
// lengths with a sample element and string lengths, within about 2,000 characters, so a model
// learns a large value's structure without printing it. Getters are never run (`[Getter]`).
(function makeInspector() {
  'use strict';
  const apply = Reflect.apply;
  const ownKeys = Reflect.ownKeys;
  const getOwnPropertyDescriptor = Reflect.getOwnPropertyDescriptor;
  const getPrototypeOf = Reflect.getPrototypeOf;
  const isArray = Array.isArray;
  const objectToString = Object.prototype.toString;
  const symbolToString = Symbol.prototype.toString;
  const errorToString = Error.prototype.toString;
  const stringSlice = String.prototype.slice;
  const charCodeAt = String.prototype.charCodeAt;
  const mapSize = getOwnPropertyDescriptor(Map.prototype, 'size').get;
  const setSize = getOwnPropertyDescriptor(Set.prototype, 'size').get;
  const mapEntries = Map.prototype.entries;
  const setValues = Set.prototype.values;
  const mapIteratorNext = getPrototypeOf(new Map().entries()).next;
  const setIteratorNext = getPrototypeOf(new Set().values()).next;
  const dateGetTime = Date.prototype.getTime;
  const dateToISOString = Date.prototype.toISOString;
  const regExpToString = RegExp.prototype.toString;
  const regExpExec = RegExp.prototype.exec;
  const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
  const isNaNValue = Number.isNaN;

  const LOG = { depth: 2, items: 100, chars: 10000, keys: 100, max: 16384, shape: false };
  const SHAPE = { depth: 3, items: 1, chars: 40, keys: 25, max: 2000, shape: true };

  function quote(s, limit, short) {
    const cut = s.length > limit;
    const text = cut ? apply(stringSlice, s, [0, limit]) : s;
    let out = "'";
    for (let i = 0; i < text.length; i++) {
      const c = apply(charCodeAt, text, [i]);
      if (c === 39) out += "\\'";
      else if (c === 92) out += '\\\\';
      else if (c === 10) out += '\\n';
      else if (c === 13) out += '\\r';
      else if (c === 9) out += '\\t';
      else if (c < 32) out += '\\x' + (c < 16 ? '0' : '') + c.toString(16);
      else out += text[i];
    }
    return out + "'" + (cut ? (short ? '…' : '… ' + (s.length - limit) + ' more characters') : '');
  }

  function key(k) {
    if (typeof k === 'symbol') return '[' + apply(symbolToString, k, []) + ']';
    return apply(regExpExec, IDENTIFIER, [k]) !== null ? k : quote(k, 200);
  }

  function brand(fn, value) {
    try {
      return apply(fn, value, []);
    } catch {
      return NOT;
    }
  }

  /** Whether `value` is an error of any realm (its brand, not its prototype chain). */
  function isError(value) {
    return brand(objectToString, value) === '[object Error]';
  }

  /** `Name: message` of an error (Error.prototype.toString), or 'Error' when reading it throws. */
  function errorSummary(value) {
    try {
      return apply(errorToString, value, []);
    } catch {
      return 'Error';
    }
  }

  function functionName(value) {
    try {
      const name = getOwnPropertyDescriptor(value, 'name');
      return name !== undefined && typeof name.value === 'string' && name.value !== '' ? name.value : '(anonymous)';
    } catch {
      return '(anonymous)';
    }
  }

  /** `Foo ` for instances of a class, `[Object: null prototype] ` for bare objects, else ''. */
  function prefix(value, plain) {
    let proto;
    try {
      proto = getPrototypeOf(value);
    } catch {
      return '';
    }
    if (proto === null) return '[Object: null prototype] ';
    try {
      const ctor = getOwnPropertyDescriptor(proto, 'constructor');
      const name = ctor !== undefined && typeof ctor.value === 'function' ? functionName(ctor.value) : '';
      return name === plain || name === '(anonymous)' || name === '' ? '' : name + ' ';
    } catch {
      return '';
    }
  }

  function primitive(value, o, top) {
    const type = typeof value;
    if (type === 'string') {
      if (top && !o.shape) return value;
      if (o.shape && value.length > o.chars) return 'string(' + value.length + ') ' + quote(value, o.chars, true);
      return quote(value, o.chars);
    }
    if (type === 'bigint') return '' + value + 'n';
    if (type === 'symbol') return apply(symbolToString, value, []);
    if (type === 'number') return value === 0 && 1 / value < 0 ? '-0' : '' + value;
    return '' + value;
  }

  function render(value, o, depth, ancestors, budget) {
    if (budget.left <= 0) return '…';
    const type = typeof value;
    if (value === null || (type !== 'object' && type !== 'function')) {
      const s = primitive(value, o, depth === 0);
      budget.left -= s.length;
      return s;
    }
    if (type === 'function') {
      const s = '[Function ' + functionName(value) + ']';
      budget.left -= s.length;
      return s;
    }
    for (let i = 0; i < ancestors.length; i++) if (ancestors[i] === value) return '[Circular]';
    if (isError(value)) {
      if (depth === 0 && !o.shape) {
        try {
          const stack = value.stack;
          if (typeof stack === 'string') return stack;
        } catch {
          // Fall back to name and message.
        }
      }
      return '[' + errorSummary(value) + ']';
    }
    const time = brand(dateGetTime, value);
    if (time !== NOT) return isNaNValue(time) ? 'Invalid Date' : brand(dateToISOString, value);
    if (brand(objectToString, value) === '[object RegExp]') {
      const regexp = brand(regExpToString, value);
      if (typeof regexp === 'string') return regexp;
    }
    let mapN = brand(mapSize, value);
    let setN = mapN === NOT ? brand(setSize, value) : NOT;
    if (mapN === NOT) mapN = -1;
    if (setN === NOT) setN = -1;
    const array = isArray(value);
    const tooDeep = depth > o.depth;
    if (mapN !== -1 || setN !== -1) {
      const label = (mapN !== -1 ? 'Map(' + mapN : 'Set(' + setN) + ')';
      const size = mapN !== -1 ? mapN : setN;
      if (tooDeep) return '[' + label + ']';
      if (size === 0) return label + ' {}';
      ancestors.push(value);
      let out = label + ' {';
      const iterator = mapN !== -1 ? apply(mapEntries, value, []) : apply(setValues, value, []);
      const next = mapN !== -1 ? mapIteratorNext : setIteratorNext;
      const shown = size < o.items ? size : o.items;
      for (let i = 0; i < shown && budget.left > 0; i++) {
        const step = apply(next, iterator, []);
        if (step.done) break;
        const entry = step.value;
        out += (i === 0 ? ' ' : ', ') + (mapN !== -1
          ? render(entry[0], o, depth + 1, ancestors, budget) + ' => ' + render(entry[1], o, depth + 1, ancestors, budget)
          : render(entry, o, depth + 1, ancestors, budget));
      }
      ancestors.pop();
      if (size > shown) out += ', ... ' + (size - shown) + ' more item' + (size - shown === 1 ? '' : 's');
      return out + ' }';
    }
    if (array) {
      let length = 0;
      try {
        length = value.length;
      } catch {
        // A Proxy's trap may throw: shown as empty.
      }
      const label = o.shape || length > o.items ? 'Array(' + length + ') ' : '';
      if (tooDeep) return o.shape ? 'Array(' + length + ')' : '[Array]';
      if (length === 0) return '[]';
      ancestors.push(value);
      let out = label + '[';
      const shown = length < o.items ? length : o.items;
      for (let i = 0; i < shown && budget.left > 0; i++) {
        let item;
        try {
          const d = getOwnPropertyDescriptor(value, i);
          item = d === undefined ? undefined : 'get' in d || 'set' in d ? GETTER : d.value;
        } catch {
          item = undefined;
        }
        out += (i === 0 ? ' ' : ', ') + (item === GETTER ? '[Getter]' : render(item, o, depth + 1, ancestors, budget));
      }
      ancestors.pop();
      if (length > shown) out += ', ... ' + (length - shown) + ' more item' + (length - shown === 1 ? '' : 's');
      return out + ' ]';
    }
    let keys;
    try {
      keys = ownKeys(value);
    } catch {
      return '[object]';
    }
    const enumerable = [];
    for (let i = 0; i < keys.length; i++) {
      try {
        const d = getOwnPropertyDescriptor(value, keys[i]);
        if (d !== undefined && d.enumerable) enumerable.push([keys[i], d]);
      } catch {
        // A key whose descriptor cannot be read is left out.
      }
    }
    const head = prefix(value, 'Object');
    if (tooDeep) {
      if (o.shape) return head + '{ …' + enumerable.length + ' key' + (enumerable.length === 1 ? '' : 's') + ' }';
      return '[' + (head === '' ? 'Object' : head.slice(0, -1)) + ']';
    }
    if (enumerable.length === 0) return head + '{}';
    ancestors.push(value);
    let out = head + '{';
    const shown = enumerable.length < o.keys ? enumerable.length : o.keys;
    for (let i = 0; i < shown && budget.left > 0; i++) {
      const [k, d] = enumerable[i];
      const name = key(k);
      budget.left -= name.length + 2;
      const text = 'get' in d || 'set' in d
        ? (d.get && d.set ? '[Getter/Setter]' : d.get ? '[Getter]' : '[Setter]')
        : render(d.value, o, depth + 1, ancestors, budget);
      out += (i === 0 ? ' ' : ', ') + name + ': ' + text;
    }
    ancestors.pop();
    if (enumerable.length > shown) out += ', ... ' + (enumerable.length - shown) + ' more key' + (enumerable.length - shown === 1 ? '' : 's');
    return out + ' }';
  }

  const GETTER = {};
  const NOT = {};

  function run(value, o) {
    const budget = { left: o.max };
    let text;
    try {
      text = render(value, o, 0, [], budget);
    } catch {
      // A Proxy trap or a hostile iterator threw: the value stays opaque rather than failing.
      text = '[uninspectable value]';
    }
    return text.length > o.max ? apply(stringSlice, text, [0, o.max]) + '… (truncated at ' + o.max + ' characters)' : text;
  }

  /** One console argument as text (strings at top level are written as they are). */
  function formatLog(value) {
    return run(value, LOG);
  }

  /** The script's `inspect(value, { depth, maxChars })`. */
  function inspect(value, options) {
    const o = { depth: SHAPE.depth, items: SHAPE.items, chars: SHAPE.chars, keys: SHAPE.keys, max: SHAPE.max, shape: true };
    if (options !== null && typeof options === 'object') {
      let depth;
      let max;
      try {
        depth = options.depth;
        max = options.maxChars;
      } catch {
        // Options with throwing getters count as none.
      }
      if (typeof depth === 'number' && depth >= 0) o.depth = depth > 20 ? 20 : depth | 0;
      if (typeof max === 'number' && max >= 100) o.max = max > 100000 ? 100000 : max | 0;
    }
    return run(value, o);
  }

  return { formatLog, inspect, isError, errorSummary };
})
