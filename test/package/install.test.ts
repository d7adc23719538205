/**
 * What a user who does not trace installs and loads, from the packed tarball (the shared
 * pack-once project `plain`): the install stays within 35 MB (the OpenTelemetry SDK and exporters
 * are optional peers, so npm installs none of them), `import('toolcell')` loads no OpenTelemetry,
 * serve, CLI or telemetry code (recorded by a module-resolution hook in a fresh plain-node
 * process; a bundled chunk counts as the dist/ modules its source map names) and reads its
 * bundle, not ~150 modules, and `toolcell serve` with `telemetry` configured refuses to start,
 * naming the packages to install.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync, writeFileSync, readFileSync, lstatSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { before, describe, it } from 'node:test';
import { installedApp, plainEnv, sh } from '../helpers/pack-once.ts';

const LIMIT_BYTES = 35 * 1024 * 1024;

/**
 * Files of toolcell's own that `import('toolcell')` may read: the entry stub, its bundle and the
 * chunks they share (scripts/bundle.mjs; 9 files in all at the time of writing). Unbundled it
 * read ~150 modules, which was most of its cold start (docs/benchmarks.md).
 */
const MAX_FILES_IMPORTED = 12;

/**
 * The dist/ modules behind the toolcell files a process loaded: a file of dist/_bundle/ stands
 * for the modules its source map names, any other file for itself.
 */
function originalModules(loaded: string[]): string[] {
  return loaded.flatMap((url) => {
    if (!/\/toolcell\/dist\/_bundle\/[^/]+\.js$/.test(url)) return [url];
    const file = fileURLToPath(url);
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
    return map.sources.map((source) => pathToFileURL(resolve(dirname(file), source)).href);
  });
}

/** Bytes of the files under `dir` (symlinks not followed), as `du -sb` counts them less directories. */
function bytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytes(path);
    else if (entry.isFile()) total += statSync(path).size;
    else total += lstatSync(path).size;
  }
  return total;
}

/** Records every module URL the ESM loader resolves (hooks run on their own thread in Node 20). */
const HOOKS = `
import { appendFileSync } from 'node:fs';
let out;
export function initialize(data) { out = data.out; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(out, resolved.url + '\\n');
  return resolved;
}
`;
const REGISTER = `
import { register } from 'node:module';
register('./record-hooks.mjs', import.meta.url, { data: { out: process.env.LOADED_OUT } });
`;
// CommonJS modules loaded by require() inside CommonJS packages do not pass the ESM hooks: the
// CommonJS cache lists them.
const IMPORT_TOOLCELL = `
import { createRequire } from 'node:module';
import { appendFileSync } from 'node:fs';
await import('toolcell');
const cache = createRequire(import.meta.url).cache;
appendFileSync(process.env.LOADED_OUT, Object.keys(cache).join('\\n') + '\\n');
`;

describe('the install for a user who does not trace', { concurrency: true }, () => {
  let app = '';

  before(async (t) => {
    app = await installedApp('plain', { signal: (t as { signal?: AbortSignal }).signal });
  });

  it('weighs at most 35 MB and holds no OpenTelemetry SDK or exporter', () => {
    const modules = join(app, 'node_modules');
    const total = bytes(modules);
    const scope = join(modules, '@opentelemetry');
    const scopes = existsSync(scope) ? readdirSync(scope) : [];
    assert.deepEqual(scopes.filter((n) => n !== 'api'), [], 'only the API may come in (as a dependency of a dependency)');
    assert.ok(total <= LIMIT_BYTES, `node_modules is ${(total / 1048576).toFixed(1)} MB`);
  });

  it('import("toolcell") loads no OpenTelemetry, serve, CLI or telemetry module', async (t) => {
    writeFileSync(join(app, 'record-hooks.mjs'), HOOKS);
    writeFileSync(join(app, 'record-register.mjs'), REGISTER);
    writeFileSync(join(app, 'import-toolcell.mjs'), IMPORT_TOOLCELL);
    const out = join(app, `loaded-${process.pid}.txt`);
    writeFileSync(out, '');
    await sh(process.execPath, ['--import', './record-register.mjs', 'import-toolcell.mjs'], app, { signal: t.signal, env: { ...plainEnv(), LOADED_OUT: out } });
    const loaded = readFileSync(out, 'utf8').split('\n').filter(Boolean);
    assert.ok(loaded.some((u) => u.includes('/node_modules/toolcell/dist/index.js')), `the hook saw toolcell load: ${loaded.slice(0, 5).join(', ')}`);
    const own = [...new Set(loaded.filter((u) => u.includes('/node_modules/toolcell/')))];
    assert.ok(own.length <= MAX_FILES_IMPORTED, `import('toolcell') read ${own.length} files of toolcell's: ${own.slice(0, 5).join(', ')}, …`);
    const modules = originalModules(own);
    assert.ok(modules.some((u) => u.includes('/node_modules/toolcell/dist/host/tool-host.js')), `the source maps name the bundled modules: ${modules.slice(0, 5).join(', ')}`);
    const unwanted = [...loaded, ...modules].filter((u) => /\/@opentelemetry\/|\/toolcell\/dist\/(serve|cli|telemetry)\//.test(u));
    assert.deepEqual([...new Set(unwanted)], []);
  });

  it('toolcell serve with telemetry configured refuses to start, naming the packages to install', async (t) => {
    writeFileSync(join(app, 'traced.json'), JSON.stringify({ telemetry: { otlp: { url: 'http://127.0.0.1:4318' } } }));
    const failure = await sh('npx', ['--no', '--', 'toolcell', 'serve', '--config', 'traced.json'], app, { signal: t.signal }).then(
      () => undefined,
      (error: Error) => error.message,
    );
    assert.ok(failure !== undefined, 'serve started without the telemetry packages');
    assert.match(failure, /npm install @opentelemetry\/api @opentelemetry\/resources @opentelemetry\/sdk-trace-node @opentelemetry\/exporter-trace-otlp-http @opentelemetry\/sdk-metrics @opentelemetry\/exporter-metrics-otlp-http/);
  });
});
