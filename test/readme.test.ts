/**
 * The manual's examples run as written: README.md and every guide under docs/. A fenced ```ts,
 * ```js or ```sh block directly after an HTML comment `<!-- run -->` is runnable;
 * `<!-- run expect="text" … -->` also requires each `text` in what the block prints. Every
 * runnable block must exit 0. A ts/js block that is not marked must say so on its first line
 * (`// illustrative: <why>`, e.g. it needs a model API key or a remote server), so a reader
 * can tell which examples are proven. A block shown in more than one place (the same language and
 * code) runs once and must print what every place expects.
 *
 * Where a block runs: as a stranger runs it, in an empty project that installed the packed
 * tarball (test/helpers/pack-once.ts) and the packages the blocks import (taken from this
 * repository's devDependencies, at their declared ranges, from the npm cache). The block's file
 * is written into that project and runs there, with that project as its working directory and
 * a user's environment (no tsx preloaded, no npm_ variables): so `toolcell` resolves to the
 * installed tarball, `npx toolcell` to its bin, and whatever else a block needs must ship in the
 * package (`node_modules/toolcell/fixtures/…`) or be made by the block (`npx -y` for a server
 * the project did not install). sh blocks run there under `bash -euo pipefail`.
 * The one exception is a ts/js block that imports the repository's sources (`./src/…`): it is
 * about a clone's internals, says so, and runs beside README.md with node's `toolcell-source`
 * condition. TypeScript runs through this repository's tsx (the installed project has no
 * TypeScript tooling of its own; tsx only strips types, resolution is node's).
 * When the blocks are done the test prints how many ran where.
 *
 * Blocks run at most two at a time: each one starts processes (servers, sandboxes) and the
 * whole `npm test` shares two cores.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { installedApp, plainEnv } from './helpers/pack-once.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };

export interface Block {
  file: string;
  line: number;
  lang: 'ts' | 'js' | 'sh';
  code: string;
  expect: string[];
}

/** The marker, then the fence on the very next line; the block ends at the next fence line. */
const RUNNABLE = /^<!-- run((?: expect="[^"]*")*) -->\n```(ts|js|sh)\n([\s\S]*?)^```$/gm;

export function runnableBlocks(file: string, markdown: string): Block[] {
  const blocks: Block[] = [];
  for (const m of markdown.matchAll(RUNNABLE)) {
    const line = markdown.slice(0, m.index).split('\n').length + 2;
    const expect = [...m[1]!.matchAll(/expect="([^"]*)"/g)].map((e) => e[1]!);
    blocks.push({ file, line, lang: m[2] as Block['lang'], code: m[3]!, expect });
  }
  return blocks;
}

/**
 * Blocks with the same language and code, one per distinct block: a block the manual shows in
 * two places (a quickstart in the README and again in its guide) runs once, in the same
 * environment either place would give it, and must print what each place expects.
 */
export function distinctBlocks(all: Block[]): { block: Block; places: string[] }[] {
  const byCode = new Map<string, { block: Block; places: string[] }>();
  for (const b of all) {
    const key = `${b.lang}\n${b.code}`;
    const seen = byCode.get(key);
    if (seen === undefined) byCode.set(key, { block: { ...b, expect: [...b.expect] }, places: [`${b.file} line ${b.line}`] });
    else {
      seen.places.push(`${b.file} line ${b.line}`);
      for (const e of b.expect) if (!seen.block.expect.includes(e)) seen.block.expect.push(e);
    }
  }
  return [...byCode.values()];
}

/** ts/js fences that are neither marked runnable nor say on their first line that they are illustrative. */
export function unlabelledBlocks(markdown: string): number[] {
  const lines = markdown.split('\n');
  const found: number[] = [];
  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\S*)/.exec(lines[i]!);
    if (fence === null) continue;
    if (inFence) {
      inFence = false;
      continue;
    }
    inFence = true;
    if (!/^(ts|js|typescript|javascript|tsx|mjs)$/.test(fence[1]!)) continue;
    const marked = i > 0 && /^<!-- run\b/.test(lines[i - 1]!);
    const illustrative = /^\/\/ illustrative\b/.test(lines[i + 1] ?? '');
    if (!marked && !illustrative) found.push(i + 1);
  }
  return found;
}

/** Package names a block imports (bare specifiers, `node:` builtins left out). */
export function importedPackages(code: string): string[] {
  const names = new Set<string>();
  for (const m of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+)['"]([^'"./][^'"]*)['"]/gm)) {
    const spec = m[1]!;
    if (spec.startsWith('node:')) continue;
    const parts = spec.split('/');
    names.add(spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!);
  }
  return [...names];
}

function markdownUnder(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) found.push(...markdownUnder(path));
    else if (entry.endsWith('.md')) found.push(path);
  }
  return found;
}

const FILES = [join(ROOT, 'README.md'), ...markdownUnder(join(ROOT, 'docs'))];
const TEXT = new Map(FILES.map((f) => [f, readFileSync(f, 'utf8')]));
const blocks = FILES.flatMap((f) => runnableBlocks(relative(ROOT, f), TEXT.get(f)!));
/** A block about a clone's internals (it imports `./src/…`); every other block runs in the installed project. */
const fromSources = (b: Block): boolean => b.lang !== 'sh' && /(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+)['"]\.\/src\//m.test(b.code);
const packaged = (b: Block): boolean => !fromSources(b);

/**
 * Frameworks and other packages the packaged blocks import, at this repository's declared
 * ranges (devDependencies, or dependencies for one a block imports directly, such as zod).
 */
function frameworkDependencies(): string[] {
  const wanted = new Set(blocks.filter((b) => packaged(b) && b.lang !== 'sh').flatMap((b) => importedPackages(b.code)));
  // A server a block spawns with `npx -y <package>` is installed beside it too: npx then runs it
  // from the project rather than asking the registry first, which on a loaded machine took
  // longer than the 30 s handshake the block runs under (the blocks still say `npx -y`, for a
  // project that has not installed it).
  for (const name of npxPackages()) wanted.add(name);
  wanted.delete('toolcell');
  const declared = { ...PACKAGE.dependencies, ...PACKAGE.devDependencies };
  const unknown = [...wanted].filter((name) => declared[name] === undefined);
  if (unknown.length > 0) throw new Error(`manual blocks import packages this repository does not declare: ${unknown.join(', ')}`);
  return [...wanted].sort().map((name) => `${name}@${declared[name]}`);
}

/** The packages blocks spawn through `npx -y` (`'npx', args: ['-y', '<package>'` or `npx -y <package>`). */
function npxPackages(): string[] {
  const names = new Set<string>();
  for (const b of blocks.filter(packaged)) {
    for (const m of b.code.matchAll(/['"]-y['"],\s*['"]([^'"]+)['"]|\bnpx -y ([^\s'"]+)/g)) names.add((m[1] ?? m[2])!);
  }
  return [...names].sort();
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error === null) resolve({ stdout, stderr });
      else reject(Object.assign(error, { stdout, stderr }));
    });
  });
}

let app: string | undefined;

/** How many distinct blocks ran, by where: printed at the end. */
const ran = { installed: 0, sources: 0, failed: 0 };

async function runBlock(block: Block): Promise<{ stdout: string; stderr: string }> {
  if (packaged(block)) {
    assert.ok(app, 'the packed package was installed');
    if (block.lang === 'sh') return run('bash', ['-euo', 'pipefail', '-c', block.code], app, plainEnv());
    const file = join(app, `.readme-block-${block.file.replace(/[^a-z0-9]+/gi, '-')}-${block.line}.${block.lang === 'ts' ? 'mts' : 'mjs'}`);
    writeFileSync(file, block.code);
    try {
      // A user's environment (no tsx preloaded, no npm_ variables), with tsx only to strip types.
      return await run(process.execPath, ['--import', TSX, file], app, plainEnv());
    } finally {
      rmSync(file, { force: true });
    }
  }
  const ext = block.lang === 'ts' ? 'mts' : 'mjs';
  const name = `.readme-block-${block.file.replace(/[^a-z0-9]+/gi, '-')}-${block.line}.${ext}`;
  // Beside README.md, so relative imports resolve as a reader at the root would expect.
  const file = join(ROOT, name);
  writeFileSync(file, block.code);
  try {
    return await run(process.execPath, ['--conditions=toolcell-source', '--import', TSX, file], ROOT, process.env);
  } finally {
    rmSync(file, { force: true });
  }
}

// The parsers above decide what runs; pin them on small inputs.
{
  const md = '<!-- run expect="a" expect="b" -->\n```ts\nimport { x } from \'toolcell/ai-sdk\';\n```\n\n```js\n// illustrative: needs a key\n```\n```ts\nlost();\n```\n';
  describe('the manual test finds what it should', () => {
    it('reads markers, expectations and imports', () => {
      const [b] = runnableBlocks('x.md', md);
      assert.deepEqual(b?.expect, ['a', 'b']);
      assert.equal(b?.line, 3);
      assert.deepEqual(importedPackages(b!.code), ['toolcell']);
      assert.deepEqual(importedPackages("import a from '@openai/agents/x';\nimport 'node:fs';\nconst m = await import('ai');\nimport b from './src/y.ts';"), ['@openai/agents', 'ai']);
    });
    it('flags an unmarked ts/js block without the illustrative line', () => {
      assert.deepEqual(unlabelledBlocks(md), [9]);
    });
    it('runs a block shown twice once, expecting what each place expects', () => {
      const twice = runnableBlocks('a.md', md).concat(runnableBlocks('b.md', md.replace('expect="b"', 'expect="c"')));
      const [one, ...rest] = distinctBlocks(twice);
      assert.equal(rest.length, 0);
      assert.deepEqual(one?.places, ['a.md line 3', 'b.md line 3']);
      assert.deepEqual(one?.block.expect, ['a', 'b', 'c']);
      assert.equal(distinctBlocks(twice.concat({ ...twice[0]!, code: twice[0]!.code + ' ' })).length, 2, 'a block differing by one character runs on its own');
    });
  });
}

describe('the manual: README.md and docs/**/*.md', { concurrency: 2 }, () => {
  // One install per source state, shared with later runs (pack-once caches it). No fixed time
  // limit: it stops with the suite's signal.
  before(async (t) => {
    if (!blocks.some(packaged)) return;
    const dependencies = frameworkDependencies();
    const key = createHash('sha256').update(dependencies.join('\n')).digest('hex').slice(0, 8);
    app = await installedApp(`manual-${key}`, { dependencies, signal: (t as { signal?: AbortSignal }).signal });
  });

  it('a packaged block resolves toolcell to the installed tarball, not to this checkout', async () => {
    assert.ok(app, 'the packed package was installed');
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', "console.log(import.meta.resolve('toolcell'), import.meta.resolve('toolcell/ai-sdk'))"], app, plainEnv());
    for (const url of stdout.trim().split(' ')) assert.ok(url.startsWith(pathToFileURL(join(app, 'node_modules', 'toolcell', 'dist')).href), url);
  });

  it('the README marks its library example runnable, against the packed package', () => {
    const readme = blocks.filter((b) => b.file === 'README.md');
    assert.ok(readme.some((b) => /new ToolHost\(/.test(b.code) && packaged(b)), 'the README library example is marked <!-- run --> and imports toolcell');
  });

  it('finds every marked block (a marker not directly followed by a ts/js/sh fence is a mistake)', () => {
    for (const file of FILES) {
      const text = TEXT.get(file)!;
      assert.equal(text.match(/^<!-- run\b/gm)?.length ?? 0, runnableBlocks(file, text).length, relative(ROOT, file));
    }
  });

  it('every ts/js block either runs or says it is illustrative', () => {
    const unlabelled = FILES.flatMap((f) => unlabelledBlocks(TEXT.get(f)!).map((line) => `${relative(ROOT, f)}:${line}`));
    assert.deepEqual(unlabelled, [], 'mark these <!-- run --> or start them with "// illustrative: <why>"');
  });

  it('runs every block but those about a clone\'s internals in the installed project', () => {
    const inClone = blocks.filter(fromSources).map((b) => `${b.file} line ${b.line}`);
    assert.ok(inClone.length <= 1, `blocks that import ./src/ (they cannot run where a user installed the package): ${inClone.join(', ')}`);
  });

  for (const { block, places } of distinctBlocks(blocks)) {
    const where = packaged(block) ? `${block.lang === 'sh' ? 'bash' : 'node'}, empty project with the packed package` : 'a clone\'s sources';
    it(`${places.join(', ')} (${block.lang}, ${where}) runs to completion`, { timeout: 150_000 }, async () => {
      let out: { stdout: string; stderr: string };
      try {
        out = await runBlock(block);
      } catch (error) {
        ran.failed++;
        const e = error as { code?: unknown; stdout?: string; stderr?: string; message: string };
        assert.fail(`the block exited with ${String(e.code)}\n--- stdout\n${e.stdout ?? ''}\n--- stderr\n${e.stderr ?? ''}`);
      }
      for (const text of block.expect) assert.ok(out.stdout.includes(text), `expected ${JSON.stringify(text)} in:\n${out.stdout}`);
      if (packaged(block)) ran.installed++;
      else ran.sources++;
    });
  }

  after(() => {
    const total = distinctBlocks(blocks).length;
    console.log(`manual: ${ran.installed + ran.sources} of ${total} distinct blocks (${blocks.length} in the text) ran as written — ${ran.installed} in an empty project with the packed package, ${ran.sources} from a clone's sources; ${ran.failed} failed`);
  });
});
