#!/usr/bin/env node
/**
 * Builds the published package into dist/: `npm run build`, and `prepack` (so `npm pack` and
 * `npm publish` of a clone always ship a fresh dist/); `prepare` (scripts/prepare.mjs) runs it
 * in a clone that has no dist/, which is how `npm install git+…` gets one. Installing the packed
 * package runs nothing (scripts/pack-manifest.mjs). Development and tests run the .ts sources
 * through tsx; only test/package/ reads dist/.
 *
 * 1. tsc with tsconfig.build.json: JavaScript and .d.ts files, relative `.ts` specifiers
 *    rewritten to `.js` in the JavaScript (`rewriteRelativeImportExtensions`).
 * 2. The same rewrite in the .d.ts files, which tsc leaves alone, so TypeScript users need
 *    neither `allowImportingTsExtensions` nor a compiler that resolves `.ts` in declarations.
 * 3. Every runtime asset under src/ copied beside its compiled neighbours (by extension, not
 *    by a list, so files added later are picked up): code loads them by a path relative to
 *    `import.meta.url`, which then resolves from dist/ exactly as it does from src/.
 * 4. The entry points bundled (scripts/bundle.mjs): every `exports` target and the `bin` become
 *    stubs over dist/_bundle/, where esbuild put them and the chunks they share, packages
 *    external, so importing toolcell reads a handful of files instead of ~150 modules (its
 *    cold start: docs/benchmarks.md). A bundled module's `import.meta.url` is rewritten to its
 *    original file in dist/, which stays, so the worker entries, assets and createRequire above
 *    resolve as before. esbuild is a devDependency: the package ships the bundle, not esbuild.
 * 5. The QuickJS template image (engines/quickjs/template.mjs says why), built from dist/'s own
 *    guest code and the installed quickjs-wasi, in a process of its own as a sandbox would.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundleDist } from './bundle.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');
const DIST = join(ROOT, 'dist');

/** Files that are loaded at run time by path or imported as-is, not compiled. */
const ASSET = /\.(?:mjs|cjs|js|py|wasm|json|d\.mts|d\.cts)$/;
/** A relative module specifier ending in .ts/.mts/.cts, inside quotes. */
const TS_SPECIFIER = /(['"])(\.{1,2}\/[^'"\n]*?)\.([mc]?)ts\1/g;

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.isFile()) yield path;
  }
}

rmSync(DIST, { recursive: true, force: true });

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
if (compiled.status !== 0) {
  console.error(`build: tsc failed (${compiled.signal ?? `exit ${compiled.status}`})`);
  process.exit(1);
}

let declarations = 0;
for (const file of walk(DIST)) {
  if (!file.endsWith('.d.ts')) continue;
  const text = readFileSync(file, 'utf8');
  // Only `from '…'`, `import '…'` and `import('…')` positions carry specifiers, but a quoted
  // relative path ending in .ts anywhere else in a declaration (a doc comment's example) is
  // better rewritten too than left pointing at a file the package does not ship.
  const rewritten = text.replace(TS_SPECIFIER, (_, quote, stem, flavour) => `${quote}${stem}.${flavour}js${quote}`);
  if (rewritten !== text) {
    writeFileSync(file, rewritten);
    declarations++;
  }
}

let assets = 0;
for (const file of walk(SRC)) {
  if (!ASSET.test(file)) continue;
  const target = join(DIST, relative(SRC, file));
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(file, target);
  assets++;
}

const bundled = await bundleDist(ROOT);

const template = spawnSync(process.execPath, ['--input-type=module', '-e', `
  import fs from 'node:fs';
  import { createRequire } from 'node:module';
  const t = await import(${JSON.stringify(pathToFileURL(join(DIST, 'runtime/js/engines/quickjs/template.mjs')).href)});
  const require = createRequire(${JSON.stringify(pathToFileURL(join(ROOT, 'package.json')).href)});
  const quickjs = await import(require.resolve('quickjs-wasi'));
  const { options, sources, key } = t.templateInputs(quickjs, fs.readFileSync(require.resolve('quickjs-wasi/quickjs.wasm')));
  const { image } = await t.buildTemplate(quickjs.QuickJS, options, sources);
  t.writeTemplateImage(t.IMAGE_FILE, key, image);
`], { stdio: 'inherit' });
if (template.status !== 0) {
  console.error(`build: the QuickJS template image could not be written (${template.signal ?? `exit ${template.status}`})`);
  process.exit(1);
}

console.log(
  `build: dist/ written (${declarations} declaration files rewritten, ${assets} assets copied; ` +
    `${bundled.entries} entries bundled into ${bundled.outputs} files, ${bundled.rewritten} import.meta.url modules pointed at their originals)`,
);
