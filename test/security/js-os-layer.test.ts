/**
 * With `isolation: 'bwrap'` the JavaScript sandbox is spawned through the OS layer: seen from
 * the host, the node process serving runs sits in its own pid and network namespaces and dies
 * with the runtime. By default QuickJS runs on worker threads of the host, with the WebAssembly
 * VM as the boundary and no process at all. (The engine's own isolation is tested in
 * test/runtime/js/.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { JsRuntime } from '../../src/runtime/js/index.ts';
import { waitFor } from './python-helpers.ts';
import { descendantExecutables } from './process-tree.ts';


const ns = (pid: number | 'self', kind: string) => fs.readlinkSync(`/proc/${pid}/ns/${kind}`);

test('[bwrap] the JavaScript sandbox process runs in its own pid and network namespaces', async () => {
  const js = new JsRuntime({ isolation: 'bwrap' });
  try {
    const r = await js.execute('return 6 * 7', { tools: [], timeoutMs: 10_000 });
    assert.ok(r.ok && r.value === 42, JSON.stringify(r));
    const nodes = [...descendantExecutables()].filter(([, exe]) => exe === fs.realpathSync(process.execPath)).map(([pid]) => pid);
    assert.ok(nodes.length > 0, 'a sandbox node process is running');
    for (const pid of nodes) {
      assert.notEqual(ns(pid, 'net'), ns('self', 'net'), `node ${pid} shares the host's network`);
      assert.notEqual(ns(pid, 'pid'), ns('self', 'pid'), `node ${pid} shares the host's pid namespace`);
    }
    await js.close();
    await waitFor('the sandbox processes to exit', () => nodes.every((pid) => !fs.existsSync(`/proc/${pid}/ns`)));
  } finally {
    await js.close();
  }
});

test('by default QuickJS runs on threads of the host: no sandbox process is started', async () => {
  const js = new JsRuntime();
  try {
    const r = await js.execute('return 6 * 7', { tools: [], timeoutMs: 10_000 });
    assert.ok(r.ok && r.value === 42, JSON.stringify(r));
    const nodes = [...descendantExecutables()].filter(([, exe]) => exe === fs.realpathSync(process.execPath));
    assert.deepEqual(nodes, [], 'no sandbox node process');
  } finally {
    await js.close();
  }
});
