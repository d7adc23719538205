/**
 * Every relative link in the README, the guides in docs/ and the READMEs beside the code names a
 * file or folder that exists in the repository: a moved or renamed guide breaks this test, not a
 * reader's click. The same holds inside the packed package: every Markdown file it ships links
 * only to files it ships. Web links and in-page anchors are not followed (no network here).
 */
import { before, describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packedTarball, sh } from './helpers/pack-once.ts';

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

/**
 * The package ships README.md, docs/ and the JavaScript sandbox's README (package.json "files"),
 * so the README's relative links resolve in the installed package and on a registry page that
 * browses the package's files. There is no repository URL to point links at instead.
 */
describe('links inside the packed package', () => {
  let listing: Set<string>;
  let tarball = '';

  before(async (t) => {
    tarball = await packedTarball({ signal: (t as { signal?: AbortSignal }).signal });
    const { stdout } = await sh('tar', ['-tzf', tarball], ROOT);
    listing = new Set(stdout.split('\n').filter((l) => l.startsWith('package/')).map((l) => l.slice('package/'.length)));
  });

  it('ships the README, the guides and the engine README', () => {
    for (const file of ['README.md', 'docs/README.md', 'docs/getting-started.md', 'src/runtime/js/README.md']) assert.ok(listing.has(file), `${file} is in the tarball`);
  });

  it('every relative link of every Markdown file in the tarball names a file in the tarball', async (t) => {
    const shipped = [...listing].filter((f) => f.endsWith('.md'));
    const broken: string[] = [];
    let checked = 0;
    for (const file of shipped) {
      const { stdout: text } = await sh('tar', ['-xzOf', tarball, `package/${file}`], ROOT, { signal: t.signal });
      for (const target of relativeTargets(text)) {
        if (target === '') continue;
        checked += 1;
        const path = posix.normalize(posix.join(posix.dirname(file), decodeURIComponent(target))).replace(/\/$/, '');
        const found = listing.has(path) || [...listing].some((f) => f.startsWith(`${path}/`));
        if (path.startsWith('..') || !found) broken.push(`${file} → ${target}`);
      }
    }
    assert.ok(checked > 20, `links checked: ${checked}`);
    assert.deepEqual(broken, [], `links that leave the package or name a file it does not ship:\n${broken.join('\n')}`);
  });
});
