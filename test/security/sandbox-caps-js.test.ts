/**
 * Caps on the JavaScript sandbox processes, with and without bubblewrap. A V8 guest has no
 * ArrayBuffer, typed array or WebAssembly, so its memory is its heap (bounded by `heapMb`); the
 * caps are the kernel's bound should anything get past that: seen from the host, every sandbox
 * node process runs with a data cap (V8: heap limit + 1 GiB; QuickJS: none, its VMs are bounded
 * one by one) and inside a pids cgroup of its own (root here; see docs/security.md).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import pino from 'pino';
import { registerCodeExecution } from '../../src/code-execution/index.ts';
import { ToolHost } from '../../src/host/tool-host.ts';
import { JsRuntime } from '../../src/runtime/js/index.ts';
import { pidsHierarchy } from '../../src/runtime/isolation/index.ts';
import { sandboxNodes } from './process-tree.ts';


function limit(pid: number, name: string): string {
  const line = fs.readFileSync(`/proc/${pid}/limits`, 'utf8').split('\n').find((l) => l.startsWith(name));
  return line!.slice(name.length).trim().split(/\s+/)[0]!;
}

for (const engine of ['v8', 'quickjs'] as const) {
  for (const isolation of ['none', 'bwrap'] as const) {
    test(`${engine} (${isolation}): the sandbox process runs under its caps`, async () => {
      // QuickJS runs on threads of the host by default, where there is no process to cap: this
      // test is about the sandbox processes, so it asks for the process pool.
      const js = new JsRuntime({ engine, isolation, ...(engine === 'quickjs' ? { quickjsThreads: false } : {}) });
      try {
        const r = await js.execute('return 6 * 7', { tools: [], timeoutMs: 10_000 });
        assert.ok(r.ok && r.value === 42, JSON.stringify(r));
        const nodes = sandboxNodes();
        assert.ok(nodes.length > 0, 'a sandbox node process is running');
        for (const pid of nodes) {
          const expected = engine === 'v8' ? String(2 * 1024 ** 3) : 'unlimited';
          assert.equal(limit(pid, 'Max data size'), expected, `node ${pid}'s data cap`);
          if (pidsHierarchy() !== null) {
            assert.match(fs.readFileSync(`/proc/${pid}/cgroup`, 'utf8'), /toolcell-\d+-\d+/, `node ${pid} is in a pids cgroup of its own`);
          }
        }
      } finally {
        await js.close();
      }
    });
  }
}

const GiB = 1024 ** 3;

for (const isolation of ['none', 'bwrap'] as const) {
  test(`v8 (${isolation}): the operator's caps replace the defaults`, async () => {
    const js = new JsRuntime({ engine: 'v8', isolation, caps: { memoryBytes: 3 * GiB, cpuSeconds: 900 } });
    try {
      const r = await js.execute('return 6 * 7', { tools: [], timeoutMs: 10_000 });
      assert.ok(r.ok && r.value === 42, JSON.stringify(r));
      const nodes = sandboxNodes();
      assert.ok(nodes.length > 0, 'a sandbox node process is running');
      for (const pid of nodes) {
        assert.equal(limit(pid, 'Max data size'), String(3 * GiB), `node ${pid}'s data cap`);
        assert.equal(limit(pid, 'Max cpu time'), '900', `node ${pid}'s CPU cap`);
      }
    } finally {
      await js.close();
    }
  });
}

test("code_execution's caps reach its JavaScript sandbox processes", async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const ce = registerCodeExecution(host, { languages: ['javascript'], engine: 'v8', isolation: 'none', caps: { memoryBytes: 3 * GiB } });
  try {
    const stream = host.openStream('caps');
    const outcome = await host.dispatch({ inferenceId: stream.beginInference(), name: 'code_execution', input: { code: 'return 6 * 7' } });
    stream.end();
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
    const nodes = sandboxNodes();
    assert.ok(nodes.length > 0, 'a sandbox node process is running');
    for (const pid of nodes) assert.equal(limit(pid, 'Max data size'), String(3 * GiB), `node ${pid}'s data cap`);
  } finally {
    await ce.close();
    await host.close();
  }
});

test('a bad JavaScript cap is a TypeError when the runtime is made', () => {
  assert.throws(() => new JsRuntime({ engine: 'v8', caps: { memoryBytes: 10 } }), /caps\.memoryBytes must be a whole number/);
  assert.throws(() => new JsRuntime({ engine: 'v8', caps: { disk: 1 } as never }), /caps\.disk is not a cap/);
});
