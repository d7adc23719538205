/**
 * Makes what the bench:peers subjects run: toolcell as its package ships (dist/, built now from
 * the sources, so the bench never measures a stale build) and the subject files themselves as
 * plain JavaScript, so every subject process is a bare `node` with no TypeScript loader in it.
 *
 * Why: a user runs toolcell from the published package, and the peers from theirs; none of them
 * runs tsx. tsx's loader thread and its esbuild process were ~50 MB of every subject's tree RSS
 * (a node that imports one .ts file through tsx: 78.5 + 11.8 MB; bare node: 40 MB), and every
 * module a cold start loaded lazily went through its transform. The subject files are stripped
 * with amaro (types become spaces; toolcell already depends on it for scripts) into
 * `.bench/peers/`, the same depth below the root as `bench/peers/`, so the relative paths they
 * compute (`../../dist/…`, `../../fixtures/…`) hold from either place.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUT = join(ROOT, '.bench', 'peers');
/** The files a subject process loads, all beside this one. */
const SUBJECT_FILES = ['subject-main', 'subjects', 'workloads', 'observers'];
/** A relative specifier of a sibling .ts file, inside quotes. */
const SIBLING_TS = /(['"])\.\/([\w-]+)\.ts\1/g;

type TransformSync = (code: string, options: { mode: 'strip-only' }) => { code: string };

/** Builds dist/ from the sources, so that a bench never measures a stale build. */
export function buildDist(bench: string): void {
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`${bench} could not build dist/: ${build.stderr || build.stdout}`.slice(0, 2000));
}

/** Builds dist/ and the stripped subject files; returns the entry a subject process runs. */
export function buildSubjects(): string {
  const started = performance.now();
  buildDist('bench:peers');
  const { transformSync } = createRequire(import.meta.url)('amaro') as { transformSync: TransformSync };
  mkdirSync(OUT, { recursive: true });
  for (const name of SUBJECT_FILES) {
    const source = readFileSync(fileURLToPath(new URL(`./${name}.ts`, import.meta.url)), 'utf8');
    const { code } = transformSync(source, { mode: 'strip-only' });
    writeFileSync(join(OUT, `${name}.mjs`), code.replace(SIBLING_TS, (_, quote, stem) => `${quote}./${stem}.mjs${quote}`));
  }
  process.stderr.write(`built dist/ and the subjects' JavaScript in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  return join(OUT, 'subject-main.mjs');
}
