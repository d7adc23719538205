/**
 * Every relative link in the README, the guides in docs/ and the READMEs beside the code names a
 * file or folder that exists in the repository: a moved or renamed guide breaks this test, not a
 * reader's click. Web links and in-page anchors are not followed (no network here).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Markdown files under `dir`, skipping dependencies and build output. */
function markdownUnder(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist' || entry.startsWith('.')) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) found.push(...markdownUnder(path));
    else if (entry.endsWith('.md')) found.push(path);
  }
  return found;
}

/** Targets of inline links `[text](target)`, code spans and fenced blocks left out. */
export function relativeTargets(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  const targets: string[] = [];
  for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
    targets.push(target.split('#')[0]!);
  }
  return targets;
}

test('the link finder sees relative links and leaves web links, anchors and code alone', () => {
  assert.deepEqual(relativeTargets('[a](docs/x.md) [b](https://e.org) [c](#top) `[d](no.md)` [e](y.md#part)'), ['docs/x.md', 'y.md']);
});

test('every relative link in README.md, docs/ and src/**/README.md resolves', () => {
  const files = [join(ROOT, 'README.md'), ...markdownUnder(join(ROOT, 'docs')), ...markdownUnder(join(ROOT, 'src'))];
  const broken: string[] = [];
  for (const file of files) {
    for (const target of relativeTargets(readFileSync(file, 'utf8'))) {
      if (target === '') continue;
      if (!existsSync(join(dirname(file), decodeURIComponent(target)))) broken.push(`${relative(ROOT, file)} → ${target}`);
    }
  }
  assert.deepEqual(broken, [], `broken relative links:\n${broken.join('\n')}`);
});
