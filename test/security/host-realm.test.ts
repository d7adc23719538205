/**
 * The host-realm error route on the V8 engine (issue 7). A script that overflows the stack
 * inside Node's own code catches a RangeError of the sandbox process's realm; three prototype
 * steps from it reach that realm's Object.prototype. An accessor planted there fires inside Node
 * while later runs are set up (a `produceCachedData` getter plus a `cachedDataProduced` setter
 * capture the next vm.Script, whose runInThisContext() yields `process`). The defence is that
 * the process's intrinsics are frozen before its first run: nothing can be planted, so nothing
 * reaches a later run, of this conversation or another.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { assertHostUnpolluted, tool, valueOf } from '../runtime/js/helpers.ts';
import { HOST_ERROR_FINDER, v8Runtime } from './v8.ts';

// poolSize 0: the one process that ran the attack serves the runs after it.
const runtime = v8Runtime({ poolSize: 0 });
after(() => runtime.close());

const PLANT = HOST_ERROR_FINDER + `
const e = await anyHostError();
if (e === null) return { reached: false };
const op = Object.getPrototypeOf(Object.getPrototypeOf(Object.getPrototypeOf(e)));
const hostObject = op.constructor;
const targets = {
  'Object.prototype': op,
  'Error': Object.getPrototypeOf(e.constructor),
  'RangeError.prototype': Object.getPrototypeOf(e),
  'Function.prototype': Object.getPrototypeOf(hostObject),
  'Array.prototype': Object.getPrototypeOf(hostObject.keys({})),
};
const plants = {};
const tryPlant = (name, fn) => { try { fn(); plants[name] = 'planted'; } catch (x) { plants[name] = 'refused'; } };
tryPlant('produceCachedData', () => Object.defineProperty(op, 'produceCachedData', {
  get() { return true; }, configurable: true,
}));
tryPlant('cachedDataProduced', () => Object.defineProperty(op, 'cachedDataProduced', {
  set(v) { Object.defineProperty(op, 'capturedScript', { value: this, configurable: true }); }, configurable: true,
}));
tryPlant('sandbox', () => Object.defineProperty(op, 'sandbox', {
  set(v) { Object.defineProperty(op, 'capturedSandbox', { value: v, configurable: true }); }, configurable: true,
}));
const plantedFormatter = (err, sites) => sites; // call sites reach frames of the process's realm
tryPlant('Error.prepareStackTrace', () => { targets.Error.prepareStackTrace = plantedFormatter; if (targets.Error.prepareStackTrace !== plantedFormatter) throw 0; });
tryPlant('Error.stackTraceLimit', () => { targets.Error.stackTraceLimit = 0; if (targets.Error.stackTraceLimit !== 0) throw 0; });
for (const name of ['RangeError.prototype', 'Function.prototype', 'Array.prototype']) {
  tryPlant(name, () => { targets[name].planted = 1; if (targets[name].planted !== 1) throw 0; });
}
return { reached: true, plants };
`;

/** Runs in a later run: uses whatever was planted, and reports what it finds. */
const EXPLOIT = `
if (typeof process !== 'undefined') {
  // Only reached when the captured vm.Script re-ran this very code in the process's realm.
  process.kill(process.ppid, 0); // signal 0 only checks; the real attack sent SIGKILL
  return 'ESCAPED: holds process ' + process.pid;
}
` + HOST_ERROR_FINDER + `
const e = await anyHostError();
if (e === null) return { reached: false };
const op = Object.getPrototypeOf(Object.getPrototypeOf(Object.getPrototypeOf(e)));
const found = Reflect.ownKeys(op).filter((k) => ['produceCachedData', 'cachedDataProduced', 'sandbox', 'capturedScript', 'capturedSandbox'].includes(k));
const script = Object.getOwnPropertyDescriptor(op, 'capturedScript')?.value;
let escaped = 'no';
if (script !== undefined) escaped = await script.runInThisContext()();
return { reached: true, found, escaped, formatterPlanted: Object.getPrototypeOf(e.constructor).prepareStackTrace?.name === 'plantedFormatter' };
`;

test('a host-realm error cannot plant on the process\'s intrinsics; later runs and other conversations find nothing', async () => {
  const planted = valueOf(await runtime.execute(PLANT, { tools: [tool('echo')] })) as { reached: boolean; plants?: Record<string, string> };
  // The route itself exists on V8 (Node's own code runs on the script's stack); only freezing stops what follows.
  assert.equal(planted.reached, true, 'the script found no host-realm error: the attack did not run');
  assert.deepEqual(planted.plants, {
    produceCachedData: 'refused',
    cachedDataProduced: 'refused',
    sandbox: 'refused',
    'Error.prepareStackTrace': 'refused',
    'Error.stackTraceLimit': 'refused',
    'RangeError.prototype': 'refused',
    'Function.prototype': 'refused',
    'Array.prototype': 'refused',
  });
  // The next run of the same conversation, then a run for another conversation (other tools).
  for (const tools of [[tool('echo')], [tool('send_email')]]) {
    const later = valueOf(await runtime.execute(EXPLOIT, { tools }));
    assert.deepEqual(later, { reached: true, found: [], escaped: 'no', formatterPlanted: false });
  }
  // The host (this test process) is alive and its own intrinsics are untouched.
  assertHostUnpolluted();
});
