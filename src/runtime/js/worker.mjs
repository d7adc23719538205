// The sandbox worker thread. Plain JavaScript on purpose: it must start fast and must not
// depend on a TypeScript loader. Each run gets a fresh vm context, prepared in advance while
// the worker is idle. The only function that crosses into the context is `bridge`, held by the
// prelude; everything crossing in either direction is a string or a number.
import { parentPort } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';

// Defence in depth. The script only ever holds objects of its own context, but should an
// object of this worker's realm reach it anyway (an engine error raised in a worker frame),
// its constructor chain must lead nowhere: no Function constructor to compile code with, and
// no writable Error.prepareStackTrace to collect call sites with.
for (const proto of [
  Function.prototype,
  Object.getPrototypeOf(async function () {}),
  Object.getPrototypeOf(function* () {}),
  Object.getPrototypeOf(async function* () {}),
]) {
  Object.defineProperty(proto, 'constructor', { value: undefined, writable: false, configurable: false });
}
Object.defineProperty(Error, 'prepareStackTrace', { value: undefined, writable: false, configurable: false });

const PRELUDE = new vm.Script(readFileSync(new URL('./prelude.js', import.meta.url), 'utf8'), { filename: 'prelude.js' });
const HEADER = '(async function () {\n';
const FOOTER = '\n})';

let prepared = null; // a context whose prelude has not run yet
let run = null; // the current run's state

function freshContext() {
  const options = { codeGeneration: { strings: false, wasm: false } };
  if (vm.constants?.DONT_CONTEXTIFY !== undefined) return vm.createContext(vm.constants.DONT_CONTEXTIFY, options);
  // Without DONT_CONTEXTIFY the global proxies a host object; a null-prototype one leaks nothing.
  return vm.createContext(Object.create(null), options);
}

function prepare() {
  if (prepared === null) prepared = freshContext();
}

function post(message) {
  parentPort.postMessage(message);
}

function failRun(state, kind, name, message, stack) {
  if (state.done) return;
  state.done = true;
  post({ t: 'done', id: state.id, ok: false, kind, name, message, stack: stack ?? '' });
}

// The bridge: called only by the prelude, only with primitives; it never throws into the context.
function makeBridge(state) {
  return function bridge(op, a, b, c, d) {
    try {
      if (state !== run || state.done) return 'Error: the run has ended';
      if (op === 'call') {
        if (typeof a !== 'string' || typeof b !== 'string') return 'TypeError: invalid call';
        if (b.length > state.limits.maxArgsBytes) return `RangeError: arguments of ${a} exceed ${state.limits.maxArgsBytes} bytes`;
        const call = ++state.calls;
        state.pending += 1;
        post({ t: 'call', id: state.id, call, name: a, args: b });
        return call;
      }
      if (op === 'log') {
        if (typeof a !== 'string' || typeof b !== 'string') return undefined;
        if (state.logBytes >= state.limits.maxLogBytes) return undefined;
        let message = b;
        const room = state.limits.maxLogBytes - state.logBytes;
        if (message.length > room) message = `${message.slice(0, room)}… [log truncated]`;
        state.logBytes += message.length;
        post({ t: 'log', id: state.id, level: a, message });
        return undefined;
      }
      if (op === 'done') {
        if (state.done) return undefined;
        if (a === true) {
          if (typeof b !== 'string') return undefined;
          if (b.length > state.limits.maxReturnBytes) {
            failRun(state, 'script', 'RangeError', `the return value exceeds ${state.limits.maxReturnBytes} bytes`);
            return undefined;
          }
          state.done = true;
          post({ t: 'done', id: state.id, ok: true, value: b });
        } else {
          failRun(state, 'script', String(b), String(c), String(d));
        }
        return undefined;
      }
      return undefined;
    } catch {
      return 'Error: bridge failure';
    }
  };
}

// A script awaiting something nothing can settle: no host call pending, no timers, no I/O.
function checkStalled(state) {
  setImmediate(() => {
    if (state === run && !state.done && state.pending === 0) {
      failRun(state, 'script', 'Error', 'the script is waiting on a promise that nothing can ever settle (no tool call is pending)');
    }
  });
}

function startRun(message) {
  prepare();
  const context = prepared;
  prepared = null;
  const state = { id: message.id, done: false, calls: 0, pending: 0, logBytes: 0, limits: message.limits, api: null };
  run = state;
  let api;
  try {
    const factory = PRELUDE.runInContext(context);
    api = factory(makeBridge(state), message.setup);
  } catch (error) {
    failRun(state, 'sandbox', 'Error', `the sandbox could not be prepared: ${error?.message ?? error}`);
    return;
  }
  state.api = api;
  let body;
  try {
    const script = new vm.Script(HEADER + message.code + FOOTER, {
      filename: 'script.js',
      lineOffset: -1,
      importModuleDynamically: () => {
        throw api.makeImportError();
      },
    });
    body = script.runInContext(context, { breakOnSigint: false });
  } catch (error) {
    // Compile errors come from this realm; only their text crosses.
    failRun(state, 'script', String(error?.name ?? 'SyntaxError'), String(error?.message ?? error), '');
    return;
  }
  api.start(body);
  checkStalled(state);
}

parentPort.on('message', (message) => {
  switch (message?.t) {
    case 'run':
      startRun(message);
      break;
    case 'result': {
      const state = run;
      if (!state || state.id !== message.id || state.done) return;
      state.pending -= 1;
      state.api.deliver(message.call, message.ok === true, String(message.payload));
      checkStalled(state);
      break;
    }
    case 'end':
      // The host has the result; drop the run and get the next context ready.
      run = null;
      setImmediate(prepare);
      post({ t: 'pong', id: message.id });
      break;
    default:
      break;
  }
});

prepare();
post({ t: 'ready' });
