/**
 * QuickJS inline: the first slice on the host's thread in a process pays V8's compile of the
 * engine's WebAssembly (it compiles each function when first called), so it gets an allowance
 * (inline.ts MOVE_BOUNDS.firstSliceMs) instead of moving its run to a new worker thread; every
 * later slice has the plain bound. The allowance is the process's, so this file holds one case,
 * run in a process of its own, whose first run is the process's first slice.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsRuntime } from '../../../src/runtime/js/index.ts';
import { valueOf } from './helpers.ts';

test("the process's first slice on the host thread may pass the slice bound; the next one moves", async () => {
  const runtime = new JsRuntime({ engine: 'quickjs', quickjsInline: true, limits: { timeoutMs: 60_000 } });
  try {
    // 60 ms of script: three times the slice bound, well inside the first slice's allowance.
    const spin = (ms: number): string => `const until = Date.now() + ${ms}; while (Date.now() < until) {} return 1;`;
    const first = await runtime.execute(spin(60), { tools: [], conversation: 'a' });
    assert.equal(valueOf(first), 1);
    const afterFirst = runtime.stats();
    assert.equal(afterFirst.inlineRuns, 1, 'the first run started on the host thread');
    assert.equal(afterFirst.movedRuns, 0, 'and stayed there');

    // 120 ms: past a later slice's bound in wall time alone (20 ms + 80 ms of slack), so it moves
    // however little CPU a loaded machine gave it (a 60 ms spin beside the suite at concurrency 3
    // had under 20 ms of CPU and stayed), and inside the first slice's allowance (220 ms of CPU,
    // 300 ms of wall), so it would have stayed had that allowance not been the first slice's alone.
    const second = await runtime.execute(spin(120), { tools: [], conversation: 'a' });
    assert.equal(valueOf(second), 1);
    const afterSecond = runtime.stats();
    assert.equal(afterSecond.inlineRuns, 2, 'the second run started on the host thread too');
    assert.equal(afterSecond.movedRuns, 1, 'and moved: the allowance was the first slice alone');
  } finally {
    await runtime.close();
  }
});
