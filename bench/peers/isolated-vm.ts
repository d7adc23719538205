/**
 * utcp code-mode runs scripts in isolated-vm, a native module. Its 6.x line ships prebuilt
 * binaries for Node 22 and 24 only and declares Node ≥ 22, so on this project's Node 20 the
 * bench uses 5.0.4 (Node ≥ 18; `overrides` in package.json bends utcp's `^6` peer range to it),
 * which has no prebuilt binary: it must be compiled from source with node-gyp against Node's own
 * headers. npm 11 skips dependency install scripts unless package.json approves them, and a
 * two-minute C++ build on every `npm ci` is a cost every developer and CI run would pay for one
 * benchmark; so `npm ci` leaves it unbuilt and this bench builds it on first use, with the
 * node-gyp that npm bundles (no network: the headers come from `nodedir`). `BENCH_NO_BUILD=1`
 * skips the build; the bench then runs without utcp and says why in its JSON.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

function loads(): { ok: true } | { ok: false; reason: string } {
  const probe = spawnSync(process.execPath, ['-e', 'require("isolated-vm")'], { encoding: 'utf8' });
  if (probe.status === 0) return { ok: true };
  const line = probe.stderr.split('\n').find((l) => /Error|error:/.test(l)) ?? probe.stderr.trim().split('\n')[0] ?? `exit ${probe.status}`;
  return { ok: false, reason: line.trim().slice(0, 300) };
}

function nodeGyp(): string | undefined {
  const candidates = [
    process.env.npm_execpath ? join(dirname(process.env.npm_execpath), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js') : '',
    join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
    '/usr/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js',
  ];
  return candidates.find((c) => c !== '' && existsSync(c));
}

/** Makes isolated-vm loadable here (building it once if need be), or says why it cannot be. */
export async function ensureIsolatedVm(): Promise<{ ok: true } | { ok: false; reason: string }> {
  let dir: string;
  try {
    dir = dirname(require.resolve('isolated-vm/package.json'));
  } catch {
    return { ok: false, reason: 'isolated-vm is not installed (npm ci installs it as a devDependency)' };
  }
  const first = loads();
  if (first.ok) return first;
  if (process.env.BENCH_NO_BUILD === '1') return { ok: false, reason: `isolated-vm does not load and BENCH_NO_BUILD=1: ${first.reason}` };
  const gyp = nodeGyp();
  if (!gyp) return { ok: false, reason: `isolated-vm does not load (${first.reason}) and npm's node-gyp was not found to build it` };
  const nodedir = process.env.npm_config_nodedir ?? (existsSync('/usr/include/node/node_version.h') ? '/usr' : undefined);
  process.stderr.write(`building isolated-vm from source for Node ${process.versions.node} (once; about 2 minutes on 2 cores)…\n`);
  const t = performance.now();
  const build = spawnSync(process.execPath, [gyp, 'rebuild', '--release', '-j', 'max', ...(nodedir ? [`--nodedir=${nodedir}`] : [])], {
    cwd: dir,
    encoding: 'utf8',
    maxBuffer: 64 * 2 ** 20,
  });
  if (build.status !== 0) {
    const tail = `${build.stdout}\n${build.stderr}`.trim().split('\n').slice(-3).join(' | ');
    return { ok: false, reason: `isolated-vm failed to build from source (node-gyp exit ${build.status}): ${tail.slice(0, 400)}` };
  }
  process.stderr.write(`built isolated-vm in ${((performance.now() - t) / 1000).toFixed(0)} s\n`);
  return loads();
}
