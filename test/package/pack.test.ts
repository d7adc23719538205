/**
 * The package, as a user gets it, two ways: `npm pack` of the checkout (its `prepack` builds
 * dist/) installed as a tarball, and `npm install git+file://<clone>` (npm runs the clone's
 * `prepare`, which builds dist/). Each goes into an empty project, where plain Node — no tsx, no
 * loader — imports it and runs a turn, `npx toolcell --help` answers, `npx toolcell serve`
 * serves an MCP client, and plain `tsc` type-checks a file that imports it. These and the other
 * test/package files are the tests that exercise dist/; every other test runs the .ts sources.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { installedApp, installedFromGit, packedTarball, ROOT, sh } from '../helpers/pack-once.ts';

const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/**
 * Run by plain node in the installed project: every main export is there, and one turn works
 * end to end — a built-in registered and dispatched, a refusal by its input schema, and a
 * JavaScript and a Python script calling it through code_execution (which proves the
 * sandbox's child files and the Python bootstrap were shipped where dist/ looks for them).
 */
const SMOKE = `
import('toolcell').then(async (m) => {
  const names = ['ToolHost', 'registerCodeExecution', 'textResult', 'errorResult', 'resultText', 'validateArguments',
    'renderDeclarations', 'renderPythonStubs', 'PythonRunner', 'ConnectError', 'ToolError', 'TOOL_CLASSES', 'isToolClass', 'PARENT_META_KEY'];
  const auth = await import('toolcell/auth');
  const missing = [
    ...names.filter((n) => m[n] === undefined),
    ...['ClientCredentialsProvider', 'PrivateKeyJwtProvider', 'TokenFileProvider', 'InteractiveAuthProvider'].filter((n) => auth[n] === undefined).map((n) => 'toolcell/auth ' + n),
  ];
  const host = new m.ToolHost();
  host.registerTool({
    name: 'add',
    description: 'Adds two integers',
    inputSchema: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] },
    classes: ['notes'],
    handler: async ({ a, b }) => m.textResult(String(a + b)),
  });
  const ce = m.registerCodeExecution(host, { languages: ['javascript', 'python'] });
  const inferenceId = host.openStream('c1').beginInference();
  const call = (name, input) => host.dispatch({ inferenceId, name, input });
  const direct = await call('add', { a: 1, b: 2 });
  const refused = await call('add', { a: 'one', b: 2 });
  const js = await call('code_execution', { code: 'return Number(await tools.add({ a: 20, b: 22 }));' });
  const py = await call('code_execution', { language: 'python', code: 'int(await tools.add({"a": 2, "b": 3}))' });
  await ce.close();
  await host.close();
  console.log(JSON.stringify({
    missing,
    direct: [direct.status, m.resultText(direct.result)],
    refused: [refused.status, refused.refusal?.code, m.resultText(refused.result)],
    js: [js.status, js.result.structuredContent?.value],
    py: [py.status, py.result.structuredContent?.value],
    // What a failed run said, so that a failure of this test names its cause.
    pyError: py.result.structuredContent?.ok === false ? py.result.structuredContent.error : undefined,
  }));
});
`;

/**
 * An MCP client (the SDK toolcell itself depends on, as installed in the project) talks to
 * `npx toolcell serve` over stdio: code_execution is listed and runs a script.
 */
const SERVE_CLIENT = `
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
const client = new Client({ name: 'pack-test', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: 'npx', args: ['--no', '--', 'toolcell', 'serve'], stderr: 'ignore' }));
const { tools } = await client.listTools();
const result = await client.callTool({ name: 'code_execution', arguments: { code: 'return 6 * 7;' } });
await client.close();
console.log(JSON.stringify({ tools: tools.map((t) => t.name), value: result.structuredContent?.value, isError: result.isError ?? false }));
`;

/**
 * The QuickJS template image the build writes (engines/quickjs/template.mjs) is in the package
 * and made from exactly the guest code and QuickJS the installed package runs: the key a thread
 * computes matches, so threads restore it instead of building the template (a mismatch would
 * only cost speed, which no other test would notice).
 */
const TEMPLATE_CHECK = `
import fs from 'node:fs';
import { createRequire } from 'node:module';
const require = createRequire(process.cwd() + '/');
const dir = require.resolve('toolcell').replace(/index\\.js$/, 'runtime/js/engines/quickjs/');
const t = await import(dir + 'template.mjs');
const quickjs = await import(require.resolve('quickjs-wasi', { paths: [dir] }));
const { key } = t.templateInputs(quickjs, fs.readFileSync(require.resolve('quickjs-wasi/quickjs.wasm', { paths: [dir] })));
const read = t.readTemplateImage(t.IMAGE_FILE, key);
console.log(JSON.stringify({ image: read.image !== undefined, absent: read.absent }));
`;

const TYPES_CHECK = `
import { ToolHost, textResult, type DispatchOutcome, type HostToolDefinition } from 'toolcell';

const host: ToolHost = new ToolHost();
const tool: HostToolDefinition = {
  name: 'echo',
  description: 'Echoes',
  inputSchema: { type: 'object' },
  handler: async () => textResult('x'),
};
host.registerTool(tool);
const outcome: Promise<DispatchOutcome> = host.dispatch({ inferenceId: 'i', name: 'echo', input: {} });
void outcome;
// @ts-expect-error a status the API does not have must not type-check
const wrong: DispatchOutcome['status'] = 'exploded';
void wrong;
`;

// The checks only read the installed project (each writes its own files), so they run at once.
// No fixed time limit: the tarball is built once per run by the shared helper, and each step
// stops with the test (its signal) rather than after a guess of how long a loaded machine needs.
const SOURCES: { label: string; install: (signal: AbortSignal | undefined) => Promise<string> }[] = [
  { label: 'the packed tarball (npm pack of a clone)', install: (signal) => installedApp('plain', signal ? { signal } : {}) },
  { label: 'npm install git+file://<clone>', install: (signal) => installedFromGit('plain', signal ? { signal } : {}) },
];

for (const source of SOURCES) describe(`${source.label} under plain node`, { concurrency: true }, () => {
  let app = '';

  before(async (t) => {
    app = await source.install((t as { signal?: AbortSignal }).signal);
  });

  it('imports under plain node and runs a turn: a built-in, a schema refusal, a JavaScript and a Python script', async (t) => {
    const { stdout } = await sh(process.execPath, ['-e', SMOKE], app, { signal: t.signal });
    const report = JSON.parse(stdout.trim().split('\n').at(-1)!);
    assert.deepEqual(report.missing, []);
    assert.deepEqual(report.direct, ['completed', '3']);
    assert.equal(report.refused[0], 'refused');
    assert.equal(report.refused[1], 'invalid_arguments');
    assert.match(report.refused[2], /args\.a: expected integer, got string/);
    assert.deepEqual(report.js, ['completed', 42]);
    assert.deepEqual(report.py, ['completed', 5], `the Python run: ${JSON.stringify(report.pyError)}`);
  });

  it('ships the QuickJS template image, made from the guest code and engine it installs', async (t) => {
    writeFileSync(join(app, 'template-check.mjs'), TEMPLATE_CHECK);
    const { stdout } = await sh(process.execPath, ['template-check.mjs'], app, { signal: t.signal });
    assert.deepEqual(JSON.parse(stdout.trim().split('\n').at(-1)!), { image: true });
  });

  it('ships a CLI: npx toolcell --help prints the usage and exits 0', async (t) => {
    // `--no`: use the installed bin, never fetch one; `--` keeps --help away from npx itself.
    const { stdout } = await sh('npx', ['--no', '--', 'toolcell', '--help'], app, { signal: t.signal });
    assert.match(stdout, /^Usage: toolcell/m);
  });

  it('serves over MCP: npx toolcell serve answers an SDK client, and its code_execution runs', async (t) => {
    writeFileSync(join(app, 'serve-client.mjs'), SERVE_CLIENT);
    const { stdout } = await sh(process.execPath, ['serve-client.mjs'], app, { signal: t.signal });
    const report = JSON.parse(stdout.trim().split('\n').at(-1)!);
    assert.ok(report.tools.includes('code_execution'), `tools: ${report.tools.join(', ')}`);
    assert.deepEqual([report.value, report.isError], [42, false]);
  });

  it('ships types: a TypeScript file importing toolcell type-checks with plain tsc', async (t) => {
    writeFileSync(join(app, 'check.ts'), TYPES_CHECK);
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          // Errors inside dependencies' declarations are theirs; that toolcell's resolve (and
          // are not `any`) is what the @ts-expect-error line in check.ts proves.
          skipLibCheck: true,
          // @types/node from the checkout: the app itself installs nothing but toolcell.
          typeRoots: [join(ROOT, 'node_modules', '@types')],
          types: ['node'],
        },
        files: ['check.ts'],
      }),
    );
    await sh(process.execPath, [TSC, '-p', 'tsconfig.json'], app, { signal: t.signal });
  });
});

describe('npm pack of a clone', () => {
  it('packs dist/ and the fixtures the manual uses, with no script that would run on an install', async (t) => {
    const tarball = await packedTarball({ signal: t.signal });
    const { stdout: listing } = await sh('tar', ['-tzf', tarball], ROOT, { signal: t.signal });
    const files = new Set(listing.split('\n').filter(Boolean));
    for (const f of ['package/dist/index.js', 'package/dist/index.d.ts', 'package/dist/cli/main.js', 'package/fixtures/peer.mjs', 'package/fixtures/readme/files.json']) {
      assert.ok(files.has(f), `${f} is in the tarball`);
    }
    const { stdout: manifest } = await sh('tar', ['-xzOf', tarball, 'package/package.json'], ROOT, { signal: t.signal });
    const scripts = (JSON.parse(manifest) as { scripts?: Record<string, string> }).scripts ?? {};
    // npm runs these on a consumer's install (prepare: for a tarball or git source).
    for (const event of ['preinstall', 'install', 'postinstall', 'prepare']) assert.equal(scripts[event], undefined, `the packed manifest has no ${event}`);
    // …while the checkout keeps its prepare (git installs need it) and no backup is left over.
    const own = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    assert.equal(own.scripts.prepare, 'node scripts/prepare.mjs');
    assert.equal(existsSync(join(ROOT, 'package.json.prepack-orig')), false);
  });
});
