/**
 * The configured `python` is resolved once per process: a version-manager shim (here a shell
 * script that counts its invocations) runs for the probe only; every interpreter start, in
 * every runner, runs the real `sys.executable` directly.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PythonRunner } from '../../../src/runtime/python/index.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolcell-shim-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

for (const isolation of ['none', 'bwrap'] as const) {
  test(`[${isolation}] a shim is run once, however many interpreters start`, async () => {
    const count = path.join(dir, `count-${isolation}`);
    const shim = path.join(dir, `python-shim-${isolation}`);
    fs.writeFileSync(shim, `#!/bin/sh\necho x >> ${JSON.stringify(count)}\nexec python3 "$@"\n`, { mode: 0o755 });
    const runners = [new PythonRunner({ python: shim, isolation }), new PythonRunner({ python: shim, isolation })];
    try {
      for (const runner of runners) {
        for (let i = 0; i < 2; i++) {
          const r = await runner.run('import sys\nsys.executable', { tools: [], timeoutMs: 10_000 });
          assert.equal(r.ok, true, r.stderr);
          assert.notEqual(r.value, shim);
          runner.kill(); // the next run starts a new interpreter
        }
      }
      assert.equal(fs.readFileSync(count, 'utf8'), 'x\n', 'the shim ran once, for the probe');
    } finally {
      await Promise.all(runners.map((r) => r.close()));
    }
  });
}
