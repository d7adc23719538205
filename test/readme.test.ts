/**
 * The README's examples run as written. A fenced ```ts, ```js or ```sh block directly after
 * an HTML comment `<!-- run -->` is runnable; `<!-- run expect="text" … -->` also requires
 * each `text` in what the block prints. Each runnable block is run from the repository root (so
 * `fixtures/…` and `./src/…` mean what they say there), ts/js under node with tsx, sh under
 * bash -e, and must exit 0.
 *
 * `import … from 'toolcell'` resolves to this checkout's sources, not to a build: node is
 * started with the `toolcell-source` export condition (package.json `exports`), which maps
 * the package's own name to src/index.ts. Published installs never set that condition.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

interface Block {
  line: number;
  lang: 'ts' | 'js' | 'sh';
  code: string;
  expect: string[];
}

/** The marker, then the fence on the very next line; the block ends at the next fence line. */
const RUNNABLE = /^<!-- run((?: expect="[^"]*")*) -->\n```(ts|js|sh)\n([\s\S]*?)^```$/gm;

function runnableBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  for (const m of markdown.matchAll(RUNNABLE)) {
    const line = markdown.slice(0, m.index).split('\n').length + 2;
    const expect = [...m[1]!.matchAll(/expect="([^"]*)"/g)].map((e) => e[1]!);
    blocks.push({ line, lang: m[2] as Block['lang'], code: m[3]!, expect });
  }
  return blocks;
}

async function runBlock(block: Block): Promise<{ stdout: string; stderr: string }> {
  if (block.lang === 'sh') return run('bash', ['-euo', 'pipefail', '-c', block.code], { cwd: ROOT, timeout: 120_000 });
  // Beside README.md, so relative imports resolve as a reader at the root would expect.
  const file = join(ROOT, `.readme-block-${block.line}.${block.lang === 'ts' ? 'mts' : 'mjs'}`);
  writeFileSync(file, block.code);
  try {
    return await run(process.execPath, ['--conditions=toolcell-source', '--import', 'tsx', file], { cwd: ROOT, timeout: 120_000 });
  } finally {
    rmSync(file, { force: true });
  }
}

const blocks = runnableBlocks(README);

describe('README examples', () => {
  it('marks the library example runnable', () => {
    assert.ok(blocks.length >= 2, `runnable blocks: ${blocks.length}`);
    assert.ok(blocks.some((b) => /new ToolHost\(/.test(b.code) && /from 'toolcell'/.test(b.code)), 'the library example is marked <!-- run -->');
  });

  it('finds every marked block (a marker not directly followed by a ts/js/sh fence is a mistake)', () => {
    assert.equal(README.match(/^<!-- run\b/gm)?.length ?? 0, blocks.length);
  });

  for (const block of blocks) {
    it(`README.md line ${block.line} (${block.lang}) runs to completion`, { timeout: 150_000 }, async () => {
      let out: { stdout: string; stderr: string };
      try {
        out = await runBlock(block);
      } catch (error) {
        const e = error as { code?: unknown; stdout?: string; stderr?: string; message: string };
        assert.fail(`the block exited with ${String(e.code)}\n--- stdout\n${e.stdout ?? ''}\n--- stderr\n${e.stderr ?? ''}`);
      }
      for (const text of block.expect) assert.ok(out.stdout.includes(text), `expected ${JSON.stringify(text)} in:\n${out.stdout}`);
    });
  }
});
