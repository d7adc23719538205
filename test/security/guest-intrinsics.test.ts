/**
 * The script's own intrinsics are frozen before it runs, so it cannot change how the bridge
 * serializes (issue 7: a patched Array.prototype.toJSON changed the arguments a tool received,
 * and with a realm kept between runs the patch would rewrite a later script's calls too).
 * Both engines: V8 freezes each fresh context, QuickJS the snapshot every VM is restored from.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { JsRuntime } from '../../src/runtime/js/index.ts';
import { tool, valueOf } from '../runtime/js/helpers.ts';
import { ENGINES } from '../runtime/js/engines.ts';

for (const engine of ENGINES) {
describe(`${engine} engine`, () => {
const runtime = new JsRuntime({ engine });
after(() => runtime.close());

test('patched toJSON or Object.prototype getters cannot change what a tool receives, returns or logs', async () => {
  const seen: unknown[] = [];
  const spy = tool('send_email', async (args) => {
    seen.push(args);
    return { sent: true };
  });
  const result = await runtime.execute(
    `const attempts = {};
     const attempt = (name, fn) => { try { fn(); attempts[name] = 'no error'; } catch (e) { attempts[name] = e.name; } };
     attempt('Array.prototype.toJSON', () => { Array.prototype.toJSON = function () { return ['attacker@example.org']; }; });
     attempt('Object.prototype.toJSON', () => Object.defineProperty(Object.prototype, 'toJSON', { value() { return { to: 'attacker' }; } }));
     attempt('Object.prototype getter', () => Object.defineProperty(Object.prototype, 'cc', { get() { return 'attacker'; }, enumerable: true }));
     attempt('JSON.stringify', () => { JSON.stringify = () => '{"to":["attacker"]}'; });
     attempt('String.prototype.toJSON', () => { String.prototype.toJSON = () => 'attacker'; });
     attempt('Object.prototype.toString', () => { Object.prototype.toString = () => 'attacker'; });
     await tools.send_email({ to: ['alice@example.org'], subject: 'hi' });
     console.log({ to: ['alice@example.org'] });
     return { attempts, value: ['kept'] };`,
    { tools: [spy] },
  );
  const value = valueOf(result) as { attempts: Record<string, string>; value: unknown };
  assert.deepEqual(seen, [{ to: ['alice@example.org'], subject: 'hi' }]);
  assert.deepEqual(result.logs, [{ level: 'log', message: "{ to: [ 'alice@example.org' ] }" }]);
  assert.deepEqual(value.value, ['kept']);
  // Sloppy assignments to a frozen object fail silently; defineProperty and the prototype's own
  // overridable members fail with a TypeError.
  assert.deepEqual(value.attempts, {
    'Array.prototype.toJSON': 'no error',
    'Object.prototype.toJSON': 'TypeError',
    'Object.prototype getter': 'TypeError',
    'JSON.stringify': 'no error',
    'String.prototype.toJSON': 'no error',
    'Object.prototype.toString': 'TypeError',
  });
});

test('scripts still assign inherited names on their own objects (Error subclasses, toString, maps)', async () => {
  const value = valueOf(await runtime.execute(
    `'use strict';
     class NotFound extends Error { constructor(m) { super(m); this.name = 'NotFound'; } }
     const e = new NotFound('gone');
     const o = {}; o.toString = () => 'mine'; o.constructor = 'field'; o.hasOwnProperty = 1;
     const counts = {}; for (const w of ['valueOf', 'toString', 'valueOf']) counts[w] = (Object.hasOwn(counts, w) ? counts[w] : 0) + 1;
     let extend = 'ok';
     try { Array.prototype.sum = function () {}; } catch (x) { extend = x.name; }
     return { name: e.name, stack: e.stack.split('\\n')[0], str: String(o), ctor: o.constructor, own: o.hasOwnProperty,
       counts, extend, frozen: [Object, Object.prototype, Array.prototype, Function.prototype, Promise.prototype, JSON, Math].every(Object.isFrozen) };`,
    { tools: [] },
  ));
  assert.deepEqual(value, {
    // QuickJS formats a stack when the error is made, before the constructor names it.
    name: 'NotFound', stack: engine === 'v8' ? 'NotFound: gone' : 'Error: gone', str: 'mine', ctor: 'field', own: 1,
    counts: { valueOf: 2, toString: 1 }, extend: 'TypeError', frozen: true,
  });
});
});
}
