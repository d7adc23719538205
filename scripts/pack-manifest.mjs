#!/usr/bin/env node
/**
 * Keeps `prepare` out of the packed package.json. `prepack` runs `node scripts/pack-manifest.mjs`
 * after building, `postpack` runs it with `--restore`: the manifest npm tars has no `prepare`,
 * so installing the tarball (or the published package) enumerates no install script and prints
 * no install-scripts warning, while a clone keeps `prepare` for git installs
 * (scripts/prepare.mjs says why it needs one).
 *
 * The original is kept beside it as package.json.prepack-orig until `--restore` puts it back;
 * a pack that failed in between leaves that file, and the next run (either mode) restores it
 * first, so the checkout's manifest is never lost.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const MANIFEST = join(ROOT, 'package.json');
const ORIGINAL = join(ROOT, 'package.json.prepack-orig');

if (existsSync(ORIGINAL)) renameSync(ORIGINAL, MANIFEST);
if (process.argv[2] === '--restore') process.exit(0);

const text = readFileSync(MANIFEST, 'utf8');
const manifest = JSON.parse(text);
if (manifest.scripts?.prepare === undefined) process.exit(0);
writeFileSync(ORIGINAL, text);
delete manifest.scripts.prepare;
writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
