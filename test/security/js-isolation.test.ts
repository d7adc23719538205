/**
 * The escape reported in issue 7, tried against the default (QuickJS) engine: a script overflows
 * the stack so that an error is made deep inside the engine, reads stacks, captures traces and
 * calls import() there, then walks every prototype it can reach looking for a way to compile code
 * or to reach `process`, and plants accessors on everything it found. None of that may reach a
 * host object, and nothing planted may be seen by a later run or by another conversation.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { JsRuntime } from '../../src/runtime/js/index.ts';
import { assertHostUnpolluted, tool, valueOf } from '../runtime/js/helpers.ts';

/** Collects errors made at the stack limit by every route, then every object reachable from them. */
const COLLECT = `
  const found = [];
  const routes = [
    () => new Error('deep').stack,
    () => { const o = {}; Error.captureStackTrace?.(o); return o.stack; },
    () => import('node:process'),
    () => JSON.stringify({ toJSON() { return 1; } }),
    () => console.log('deep'),
  ];
  for (const route of routes) {
    // The route runs in every frame while unwinding from the stack limit: each has a little
    // more room, so the overflow happens at every point inside the route and what it calls.
    const dive = () => {
      try { dive(); } catch (e) { found.push(e); }
      try { const p = route(); if (p && typeof p.then === 'function') p.then(null, (e) => found.push(e)); } catch (e) { found.push(e); }
    };
    try { dive(); } catch (e) { found.push(e); }
  }
  await tools.echo({});
  const reachable = new Set();
  const walk = (value, depth) => {
    if (depth > 6 || value === null || (typeof value !== 'object' && typeof value !== 'function') || reachable.has(value)) return;
    reachable.add(value);
    let keys = [];
    try { keys = Reflect.ownKeys(value); } catch {}
    for (const key of keys) {
      let d;
      try { d = Object.getOwnPropertyDescriptor(value, key); } catch { continue; }
      if (d && 'value' in d) walk(d.value, depth + 1);
      if (d && d.get) walk(d.get, depth + 1);
    }
    try { walk(Object.getPrototypeOf(value), depth + 1); } catch {}
  };
  for (const e of found) walk(e, 0);
  walk(globalThis, 0);
`;

/** Every way the script could try to get `process` and kill its host. */
const KILL_ROUTES = `
  const outcomes = {};
  const attempt = (name, fn) => {
    try {
      const p = fn();
      if (p && typeof p.kill === 'function') { p.kill(p.ppid, 'SIGKILL'); outcomes[name] = 'KILLED'; }
      else outcomes[name] = typeof p;
    } catch (e) { outcomes[name] = 'blocked: ' + (e && e.name); }
  };
  attempt('global', () => globalThis.process);
  attempt('Function', () => Function('return process')());
  attempt('constructor chain', () => (() => {}).constructor.constructor('return process')());
  attempt('async constructor', () => (async () => {}).constructor('return process'));
  attempt('eval', () => eval('process'));
  attempt('indirect eval', () => (0, globalThis['ev' + 'al'])('process'));
  attempt('require', () => require('node:process'));
  attempt('module', () => module.constructor._load('process'));
  for (const e of found) attempt('error ' + found.indexOf(e), () => e.constructor.constructor('return process')());
  for (const obj of reachable) {
    try { if (obj.process) attempt('reachable', () => obj.process); } catch {}
  }
  const imported = await import('node:process').then((m) => m.default, (e) => 'blocked: ' + e.message);
  outcomes.import = typeof imported === 'string' ? imported : 'IMPORTED';
`;

describe('JavaScript isolation (QuickJS, the default engine)', () => {
  // The attacks walk thousands of objects several times: generous on a loaded machine.
  const runtime = new JsRuntime({ limits: { timeoutMs: 120_000 } });
  after(() => runtime.close());
  const tools = [tool('echo')];

  test('errors made at the stack limit belong to the script: no host object is reachable', async () => {
    const value = valueOf(await runtime.execute(`${COLLECT}
      const foreign = [...reachable].filter((o) => {
        // An object of this VM: its prototype chain reaches this VM's Object.prototype, or it was
        // made without a prototype (Array.prototype[Symbol.unscopables], the tools proxy).
        let p = o;
        for (let i = 0; i < 50; i++) {
          if (p === Object.prototype || p === null) return false;
          try { p = Object.getPrototypeOf(p); } catch { return true; }
        }
        return true;
      });
      return { errors: found.length, reachable: reachable.size, foreign: foreign.length,
        allOfThisVm: found.every((e) => typeof e !== 'object' || e === null || e instanceof Object) };
    `, { tools, conversation: 'attacker' }));
    const v = value as { errors: number; reachable: number; foreign: number; allOfThisVm: boolean };
    assert.ok(v.errors > 0, 'the attack produced no errors at the stack limit');
    assert.ok(v.reachable > 100, 'the walk reached too little to mean anything');
    assert.equal(v.foreign, 0);
    assert.equal(v.allOfThisVm, true);
  });

  test('process.kill(process.ppid) fails by every route, and the host lives', async () => {
    const value = valueOf(await runtime.execute(`${COLLECT}${KILL_ROUTES} return outcomes;`, { tools, conversation: 'attacker' }));
    const outcomes = value as Record<string, string>;
    assert.ok(Object.keys(outcomes).length >= 9);
    for (const [route, outcome] of Object.entries(outcomes)) {
      assert.ok(outcome.startsWith('blocked') || outcome === 'undefined', `${route}: ${outcome}`);
    }
    // Still here: the host was not killed.
    assert.equal(valueOf(await runtime.execute('return 1', { tools })), 1);
  });

  test('accessors planted on every reachable prototype are seen by no other conversation and by no run after a reset', async () => {
    valueOf(await runtime.execute(`${COLLECT}
      let planted = 0;
      for (const obj of reachable) {
        try {
          Object.defineProperty(obj, 'sandbox', { get() { return 'PLANTED'; }, set() {}, configurable: true });
          Object.defineProperty(obj, 'produceCachedData', { get() { return 'PLANTED'; }, configurable: true });
          planted++;
        } catch {}
      }
      globalThis.leak = 'PLANTED';
      if (planted < 50) throw new Error('planted too little: ' + planted);
      return planted;
    `, { tools, conversation: 'attacker' }));
    const probe = `${COLLECT}
      let seen = 0;
      for (const obj of reachable) {
        try { if (obj.sandbox === 'PLANTED' || obj.produceCachedData === 'PLANTED') seen++; } catch {}
      }
      return { seen, leak: typeof leak, onObject: ({}).sandbox === undefined, echoed: await tools.echo({ a: 1 }) };
    `;
    for (const conversation of ['attacker', 'victim', undefined]) {
      // The attacker's own next run would continue its session: a reset must leave it clean.
      const seen = valueOf(await runtime.execute(probe, { tools, conversation, reset: conversation === 'attacker' }));
      assert.deepEqual(seen, { seen: 0, leak: 'undefined', onObject: true, echoed: { a: 1 } }, `conversation ${conversation}`);
    }
    assertHostUnpolluted();
  });

  test("another conversation's tool results and arguments are out of reach", async () => {
    // The victim's run waits on a tool while the attacker runs in the same process.
    let release!: (v: unknown) => void;
    const victimArgs: unknown[] = [];
    const victim = runtime.execute('const r = await tools.send_email({ to: "alice@example.org" }); return r;', {
      tools: [tool('send_email', (args) => (victimArgs.push(args), new Promise((r) => (release = r))))],
      conversation: 'victim',
    });
    while (release === undefined) await new Promise((r) => setImmediate(r));
    const attack = await runtime.execute(`${COLLECT}
      for (const obj of reachable) {
        try { Object.defineProperty(obj, 'to', { set() {}, get() { return 'mallory@example.org'; }, configurable: true }); } catch {}
      }
      return [...reachable].some((o) => { try { return JSON.stringify(o).includes('alice'); } catch { return false; } });
    `, { tools, conversation: 'attacker', reset: true });
    assert.equal(valueOf(attack), false);
    release({ sent: true });
    assert.deepEqual(valueOf(await victim), { sent: true });
    assert.deepEqual(victimArgs, [{ to: 'alice@example.org' }]);
  });
});
