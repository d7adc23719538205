/**
 * A helper global's `maxArgumentChars`: the script's engine cuts a longer string argument (or
 * string property of an object argument) before the call leaves it, so what the host's binding
 * receives is never longer, whatever the script sends. Tools and globals without the bound get
 * their arguments whole.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { JsRuntime } from '../../../src/runtime/js/index.ts';
import { planBindings } from '../../../src/runtime/js/bindings.ts';
import type { ToolBinding } from '../../../src/runtime/types.ts';
import { tool, valueOf } from './helpers.ts';
import { ENGINES } from './engines.ts';

function bounded(name: string, max: number, seen: unknown[]): ToolBinding {
  return { name, kind: 'global', maxArgumentChars: max, invoke: async (args) => void seen.push(args) };
}

for (const engine of ENGINES) {
  describe(`${engine} engine`, () => {
    const runtime = new JsRuntime({ engine });
    after(() => runtime.close());

    test('a megabyte string argument, or string property, reaches the host cut to the bound', async () => {
      const seen: unknown[] = [];
      const whole: unknown[] = [];
      const value = valueOf(await runtime.execute(
        `const big = 'q'.repeat(1000000);
         await find(big);
         await find({ query: big, limit: 3, nested: { keep: big.slice(0, 50) } });
         await find('short');
         await find([big.slice(0, 20)]);
         await tools.plain(big.slice(0, 5000));
         return big.length;`,
        { tools: [bounded('find', 1024, seen), tool('plain', async (args) => void whole.push(args))] },
      ));
      assert.equal(value, 1_000_000);
      assert.deepEqual(seen, [
        'q'.repeat(1024),
        { query: 'q'.repeat(1024), limit: 3, nested: { keep: 'q'.repeat(50) } },
        'short',
        ['q'.repeat(20)],
      ]);
      // A tool has no bound: its arguments are the tool's business and cross whole.
      assert.deepEqual(whole, ['q'.repeat(5000)]);
    });
  });
}

test('maxArgumentChars must be a positive integer, on a global', () => {
  const invoke = async () => null;
  assert.throws(() => planBindings([{ name: 'g', kind: 'global', maxArgumentChars: 0, invoke }]), /maxArgumentChars must be a positive integer/);
  assert.throws(() => planBindings([{ name: 'g', kind: 'global', maxArgumentChars: 1.5, invoke }]), /maxArgumentChars must be a positive integer/);
  assert.throws(() => planBindings([{ name: 't', maxArgumentChars: 10, invoke }]), /applies to globals only/);
});
