/**
 * The repository keeps its own copy of the frozen MCPL vectors so a clone stands alone. When the
 * upstream copy is present beside the repository (`../shared/mcpl-conformance`), the two must be
 * byte-identical: a drifted copy would let conformance pass against vectors nobody froze.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REPO_ROOT } from './shared.ts';

const kept = resolve(REPO_ROOT, 'test', 'conformance', 'vectors');
const upstream = resolve(REPO_ROOT, '..', 'shared', 'mcpl-conformance');
const jsonFiles = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

test('the kept vectors are all present and parse', () => {
  const files = jsonFiles(kept);
  assert.deepEqual(files, [
    'tool-class-vectors.json',
    'tool-lifecycle-vectors.json',
    'tools-observe-parser-vectors.json',
    'tools-observe.schema.json',
  ]);
  for (const f of files) JSON.parse(readFileSync(join(kept, f), 'utf8'));
});

test('the kept vectors are identical to the shared ones when those are beside the repository', { skip: !existsSync(upstream) && 'no ../shared/mcpl-conformance beside this clone' }, () => {
  assert.deepEqual(jsonFiles(kept), jsonFiles(upstream));
  for (const f of jsonFiles(upstream)) {
    assert.ok(readFileSync(join(kept, f)).equals(readFileSync(join(upstream, f))), `${f} differs from the shared copy`);
  }
});
