/**
 * What importing the package and running a first script load: heavy dependencies load on
 * first use, never with `import 'toolcell'` (issue 46: importing toolcell took 310 ms against
 * peers' 55–66 ms).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

const CHILD = fileURLToPath(new URL('./fixtures/module-loads.ts', import.meta.url));
const ENTRY_CHILD = fileURLToPath(new URL('./fixtures/entry-loads.ts', import.meta.url));

/**
 * Packages the first call does not need at import time: the MCP SDK and zod (first server
 * connection), amaro and typescript (first TypeScript script), ajv (first argument check),
 * acorn (first script parsed), pino (first log line), OpenTelemetry (telemetry is opt-in).
 */
const HEAVY = /\/node_modules\/(@modelcontextprotocol\/sdk|zod|amaro|typescript|ajv|ajv-formats|acorn|pino|@opentelemetry\/[^/]+)\//;
/** Rooms the root entry must never load: the server, the framework adapters, the CLI, telemetry. */
const HIGHER_ROOMS = /\/src\/(serve|adapters|cli|telemetry)\//;

describe('what a host of built-ins loads', () => {
  it('imports the package and runs code_execution without the MCP SDK, zod, TypeScript stripping, ajv or the logger', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', CHILD], { timeout: 60_000 });
    const urls = JSON.parse(stdout) as string[];
    assert.ok(urls.some((u) => u.includes('/src/host/tool-host.ts')), 'the hook saw the host load');
    // A plain JavaScript script needs acorn (it is parsed), nothing more: its arguments and its
    // inner call's pass their simple schemas without ajv (declarations/quick-accept.ts), which
    // loaded and compiled on the first call's critical path (40–700 ms, issue 46).
    assert.deepEqual(urls.filter((u) => /\/node_modules\/(@modelcontextprotocol\/sdk|zod|amaro|typescript|ajv|ajv-formats|pino|@opentelemetry\/[^/]+)\//.test(u) || HIGHER_ROOMS.test(u)), []);
  });

  it('imports the package without the SDK, zod, amaro, ajv, acorn, pino, OpenTelemetry, or the serve/adapters/cli/telemetry rooms', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', ENTRY_CHILD], { timeout: 60_000 });
    const { esm, cjs } = JSON.parse(stdout) as { esm: string[]; cjs: string[] };
    assert.ok(esm.some((u) => u.includes('/src/host/tool-host.ts')), 'the hook saw the host load');
    assert.ok(esm.some((u) => u.includes('/node_modules/eventemitter3/')), 'the hook saw a dependency load');
    // The CommonJS cache holds paths, the hook URLs: both are checked for the same names.
    const loaded = [...esm, ...cjs].filter((u) => HEAVY.test(u) || HIGHER_ROOMS.test(u));
    assert.deepEqual(loaded, []);
  });
});
