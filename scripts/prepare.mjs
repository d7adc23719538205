#!/usr/bin/env node
/**
 * `prepare`: gives a checkout that has no dist/ one, so that `npm install git+https://…` (npm
 * clones the repository, installs its devDependencies and runs `prepare` in the clone before
 * packing it) installs a package with code in it. It runs only where npm runs `prepare`: in a
 * clone (a developer's `npm install`, a git dependency being prepared), never when a project
 * installs the published package or a tarball — and the packed manifest has no `prepare` at
 * all (scripts/pack-manifest.mjs takes it out), so those installs list no install script.
 *
 * A dist/ that is already there is kept: npm runs `prepare` twice while preparing a git
 * dependency, and a developer's repeated `npm install` should not rebuild for 20 s each time
 * (`npm run build` rebuilds; `npm pack` always does, through `prepack`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

if (existsSync(join(ROOT, 'dist', 'index.js'))) {
  console.log('prepare: dist/ is present, not rebuilt (npm run build rebuilds it)');
  process.exit(0);
}
try {
  createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch (error) {
  // An install without devDependencies (`npm install --omit=dev` in a clone) cannot build; the
  // sources still run through tsx, so say what is missing instead of failing the install.
  console.warn(`prepare: dist/ not built, TypeScript is not installed (${error.code ?? error.message}); run npm run build after installing devDependencies`);
  process.exit(0);
}
const built = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { stdio: 'inherit' });
process.exit(built.status ?? 1);
