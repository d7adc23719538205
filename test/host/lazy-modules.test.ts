import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

const CHILD = fileURLToPath(new URL('./fixtures/module-loads.ts', import.meta.url));

describe('what a host of built-ins loads', () => {
  it('imports the package and runs code_execution without the MCP SDK or zod (loaded with the first server connection)', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', CHILD], { timeout: 60_000 });
    const urls = JSON.parse(stdout) as string[];
    assert.ok(urls.some((u) => u.includes('/src/host/tool-host.ts')), 'the hook saw the host load');
    assert.deepEqual(urls.filter((u) => /\/node_modules\/(@modelcontextprotocol\/sdk|zod)\//.test(u)), []);
  });
});
