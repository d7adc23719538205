/**
 * Step 4 of scripts/build.mjs: bundles dist/'s public entry points so that importing toolcell
 * reads a handful of files instead of ~150 modules (the cold-start cost docs/benchmarks.md
 * measures). Owns dist/_bundle/ and the entry stubs; everything else in dist/ stays as tsc and
 * the asset copy left it.
 *
 * - One esbuild run over every entry point the manifest names (each `exports` default and the
 *   `bin`), with code splitting: a module two entries share lands in one shared chunk, so
 *   `toolcell` and `toolcell/telemetry` imported together still hold one copy of each class,
 *   registry and symbol. Lazy `import()`s stay lazy (their own chunks); every package is
 *   external (the packed package ships the bundle; esbuild is a build-time tool only).
 * - Every output (entries and chunks) is written flat into dist/_bundle/, one level below dist/.
 *   A bundled module that uses `import.meta.url` (worker entries, bootstrap.py, the QuickJS
 *   image, createRequire for optional packages) gets it rewritten to the URL of its own original
 *   file in dist/, computed from the chunk's URL at run time (`new URL('../<path>',
 *   import.meta.url)`), so it resolves exactly as the unbundled file did wherever the package
 *   is installed. The originals stay in place: worker threads and child processes load them
 *   unbundled, in realms of their own (no instanceof or identity crosses a thread or process).
 * - Each entry path the manifest names (dist/index.js, dist/cli/main.js, …) is overwritten by a
 *   stub re-exporting its bundle, so the published layout and `require.resolve('toolcell')`
 *   are unchanged. The stubs' original text goes into the source maps' sourcesContent (the only
 *   originals the package no longer holds); every other mapped source is the dist/ file itself.
 * - `keepNames`: esbuild renames clashing top-level names (two modules' `Pool` become `Pool`
 *   and `Pool2`); keeping `.name` keeps class names in stack traces, logs and error output.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { build } from 'esbuild';

/** Where the bundle's entries and chunks go, below dist/ (one level: the rewrite assumes it). */
export const BUNDLE_DIR = '_bundle';

/** `import.meta.url` as code (not `import.meta.resolve`, which resolves packages, unchanged from a chunk). */
const IMPORT_META_URL = /\bimport\.meta\.url\b/g;
const USES_IMPORT_META_URL = /\bimport\.meta\.url\b/;
/**
 * Any other use of `import.meta` (`dirname`, `filename`, the object itself) would silently
 * name dist/_bundle/ instead of the module's own directory: the build refuses it until this
 * plugin rewrites that use too.
 */
const OTHER_IMPORT_META = /\bimport\.meta\b(?!\.(?:url|resolve)\b)/;

const posix = (path) => path.split(sep).join('/');

/**
 * The dist/ entry files the manifest publishes: `exports` targets (their `default`) and `bin`.
 * @param {string} root the package root
 * @returns {Map<string, string>} output name (flat, no extension) → absolute path of the entry
 */
function entryPoints(root) {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const targets = new Set();
  for (const target of Object.values(manifest.exports ?? {})) {
    const file = typeof target === 'string' ? target : target.default;
    if (typeof file === 'string' && file.startsWith('./dist/') && file.endsWith('.js')) targets.add(file);
  }
  for (const file of Object.values(typeof manifest.bin === 'string' ? { bin: manifest.bin } : manifest.bin ?? {})) targets.add(file);
  const entries = new Map();
  for (const file of targets) {
    const name = file.slice('./dist/'.length, -'.js'.length).replaceAll('/', '-');
    entries.set(name, join(root, file));
  }
  return entries;
}

/**
 * esbuild plugin: a dist/ module's `import.meta.url` becomes its original file's URL, relative
 * to the chunk it lands in (every chunk sits in dist/_bundle/, so `../` reaches dist/).
 * @param {string} dist absolute dist/ directory
 * @param {Set<string>} rewritten receives the path of every module rewritten
 */
function originalUrls(dist, rewritten) {
  return {
    name: 'toolcell-original-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.m?js$/ }, (args) => {
        if (relative(dist, args.path).startsWith('..')) return undefined;
        const text = readFileSync(args.path, 'utf8');
        const other = OTHER_IMPORT_META.exec(text);
        if (other) throw new Error(`${args.path} uses import.meta other than .url or .resolve (at ${other.index}); scripts/bundle.mjs would point it at ${BUNDLE_DIR}/`);
        if (!USES_IMPORT_META_URL.test(text)) return undefined;
        rewritten.add(args.path);
        const own = `../${posix(relative(dist, args.path))}`;
        const contents = text.replace(IMPORT_META_URL, `new URL(${JSON.stringify(own)}, import.meta.url).href`);
        return { contents, loader: 'js', resolveDir: dirname(args.path) };
      });
    },
  };
}

/**
 * Bundles dist/'s entries into dist/_bundle/ and replaces each entry file with a stub.
 * @param {string} root the package root (dist/ must hold tsc's output and the assets)
 * @returns {Promise<{ entries: number, outputs: number, rewritten: number }>}
 */
export async function bundleDist(root) {
  const dist = join(root, 'dist');
  const outdir = join(dist, BUNDLE_DIR);
  const entries = entryPoints(root);
  const originals = new Map([...entries.values()].map((path) => [path, readFileSync(path, 'utf8')]));
  const rewritten = new Set();

  const result = await build({
    // Metafile paths are relative to this; the build may be run from any directory.
    absWorkingDir: root,
    entryPoints: Object.fromEntries(entries),
    outdir,
    entryNames: '[name]',
    chunkNames: 'chunk-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    keepNames: true,
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'warning',
    plugins: [originalUrls(dist, rewritten)],
  });

  // One copy of every module: esbuild's splitting promises it, and two entries each holding a
  // module would mean two copies of its classes and state in one process, so it is checked.
  const holder = new Map();
  for (const [output, { inputs }] of Object.entries(result.metafile.outputs)) {
    for (const input of Object.keys(inputs)) {
      if (holder.has(input)) throw new Error(`bundle: ${input} is in both ${holder.get(input)} and ${output}`);
      holder.set(input, output);
    }
  }

  // Source maps: the stubbed entries' original text, since their files now hold the stubs.
  for (const output of Object.keys(result.metafile.outputs)) {
    if (!output.endsWith('.map')) continue;
    const mapPath = join(root, output);
    const map = JSON.parse(readFileSync(mapPath, 'utf8'));
    const base = dirname(mapPath);
    const contents = map.sources.map((source) => originals.get(join(base, source)) ?? null);
    if (contents.some((c) => c !== null)) {
      map.sourcesContent = contents;
      writeFileSync(mapPath, JSON.stringify(map));
    }
  }

  for (const [name, path] of entries) {
    const output = result.metafile.outputs[posix(relative(root, join(outdir, `${name}.js`)))];
    if (output === undefined) throw new Error(`bundle: esbuild wrote no ${name}.js`);
    const target = JSON.stringify(posix(relative(dirname(path), join(outdir, `${name}.js`))).replace(/^(?!\.)/, './'));
    const original = originals.get(path);
    const lines = [];
    if (original.startsWith('#!')) lines.push(original.slice(0, original.indexOf('\n')));
    lines.push(`// Stub written by scripts/bundle.mjs: this entry's code is bundled in ${BUNDLE_DIR}/${name}.js.`);
    if (output.exports.length === 0) lines.push(`import ${target};`);
    else {
      lines.push(`export * from ${target};`);
      if (output.exports.includes('default')) lines.push(`export { default } from ${target};`);
    }
    writeFileSync(path, `${lines.join('\n')}\n`);
  }

  return { entries: entries.size, outputs: Object.keys(result.metafile.outputs).filter((o) => o.endsWith('.js')).length, rewritten: rewritten.size };
}
