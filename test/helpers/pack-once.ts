/**
 * The published package, built once: `npm pack` of the checkout and `npm install` of that
 * tarball into an empty project, shared by every test file (and every test process) that needs
 * them. `npm test` runs files in parallel processes; before this each packed-package test built
 * its own tarball (a full tsc build each) and gave it a fixed time, which a loaded machine
 * overran.
 *
 * Results live under `$TMPDIR/toolcell-pack/<key>/`, where the key hashes everything that goes
 * into the tarball (src/, scripts/, docs/, fixtures/, package.json, the lock file,
 * tsconfig.build.json, README.md, LICENSE): a run with unchanged sources reuses the last one, and a change makes a fresh one.
 * The same holds for `npm install git+file://` of a clone of the checkout (`installedFromGit`).
 * One process builds (it holds a lock directory with its pid); the others wait for the result to
 * appear (a directory watch, not a poll) or for the builder to die, then take over. Nothing has a
 * fixed time limit: pass the test's `signal` and the work stops with the test.
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { processAlive as alive } from './peers.ts';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BASE = join(tmpdir(), 'toolcell-pack');

/** The environment of a user's shell: nothing inherited that would load tsx into plain node. */
export function plainEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  for (const key of Object.keys(env)) if (key.startsWith('npm_')) delete env[key];
  return env;
}

export interface ShOptions {
  /** Stops the command (SIGTERM) when aborted: pass the test's or hook's `signal`. */
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

/** Runs a command in `cwd` with a user's environment; a failure's error carries both outputs. */
export function sh(command: string, args: string[], cwd: string, options: ShOptions = {}): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd, env: options.env ?? plainEnv(), maxBuffer: 16 * 1024 * 1024, ...(options.signal ? { signal: options.signal } : {}) },
      (error, stdout, stderr) => {
        if (error === null) return resolve({ stdout, stderr });
        const code = (error as { code?: unknown }).code;
        reject(new Error(`${command} ${args.join(' ')} failed (${String(code)}): ${error.message}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`));
      },
    );
  });
}

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.isFile()) yield path;
  }
}

/** A hash of every input of the tarball, so a cached one is used only while it is current. */
function sourceKey(): string {
  const hash = createHash('sha256');
  const inputs = [join(ROOT, 'src'), join(ROOT, 'scripts'), join(ROOT, 'docs'), join(ROOT, 'fixtures')];
  const single = ['package.json', 'package-lock.json', 'tsconfig.build.json', 'tsconfig.json', 'README.md', 'LICENSE'].map((f) => join(ROOT, f));
  const all = [...inputs.flatMap((dir) => [...files(dir)]), ...single.filter((f) => existsSync(f))].sort();
  for (const file of all) {
    hash.update(relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/** Resolves when `target` exists or `lock`'s owner is gone (whichever first); rejects on abort. */
function waitFor(target: string, lock: string, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const dir = dirname(target);
    const check = (): boolean => {
      if (existsSync(target)) return true;
      const owner = Number(readText(join(lock, 'pid')));
      // No pid yet means the owner is between mkdir and writing it: wait for its next event.
      return Number.isInteger(owner) && owner > 0 ? !alive(owner) : !existsSync(lock);
    };
    const watcher = watch(dir, () => {
      if (check()) done();
    });
    // A builder that is killed leaves no event in `dir`; its death is seen by this liveness
    // check, which bounds nothing and only notices an owner that can no longer finish.
    const liveness = setInterval(() => {
      if (check()) done();
    }, 1000);
    const onAbort = (): void => {
      finish();
      reject(signal!.reason instanceof Error ? signal!.reason : new Error('aborted waiting for the packed package'));
    };
    const finish = (): void => {
      watcher.close();
      clearInterval(liveness);
      signal?.removeEventListener('abort', onAbort);
    };
    const done = (): void => {
      finish();
      resolve();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    if (check()) done();
  });
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return ''; // not written yet: the caller treats an empty pid as "owner still starting"
  }
}

/**
 * Makes `dir/name` exactly once across processes: the first caller runs `make` into a scratch
 * directory that is renamed into place when complete; later callers get the finished path.
 */
async function once(dir: string, name: string, make: (scratch: string) => Promise<void>, signal: AbortSignal | undefined): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const target = join(dir, name);
  const lock = join(dir, `${name}.lock`);
  for (;;) {
    if (existsSync(target)) return target;
    try {
      mkdirSync(lock);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      await waitFor(target, lock, signal);
      if (existsSync(target)) return target;
      // The owner died without a result: clear its lock and try to become the owner.
      const owner = Number(readText(join(lock, 'pid')));
      if (Number.isInteger(owner) && owner > 0 && !alive(owner)) rmSync(lock, { recursive: true, force: true });
      continue;
    }
    writeFileSync(join(lock, 'pid'), String(process.pid));
    const scratch = join(dir, `${name}.tmp-${process.pid}`);
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(scratch);
    try {
      await make(scratch);
      renameSync(scratch, target);
      return target;
    } catch (error) {
      rmSync(scratch, { recursive: true, force: true });
      throw error;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

/**
 * Removes results of other source states (other checkouts share $TMPDIR) that nobody has used
 * for an hour: every use touches its directory, so one in use by a running test is kept.
 */
function pruneStale(current: string): void {
  if (!existsSync(BASE)) return;
  for (const entry of readdirSync(BASE)) {
    if (entry === current) continue;
    const path = join(BASE, entry);
    const locked = readdirSync(path).some((f) => f.endsWith('.lock'));
    if (!locked && Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true });
  }
}

let keyMemo: string | undefined;
function key(): string {
  return (keyMemo ??= sourceKey());
}

/**
 * The path of `toolcell-<version>.tgz` built from the checkout (`npm pack`, whose `prepack`
 * builds dist/ — exactly what a stranger's `npm pack` of a clone does). Built once per source
 * state, whichever test asks first.
 */
export async function packedTarball(options: { signal?: AbortSignal } = {}): Promise<string> {
  const dir = join(BASE, key());
  const packed = await once(
    dir,
    'tarball',
    async (scratch) => {
      pruneStale(key());
      // No separate build: `prepack` builds dist/, so this is the command a user runs.
      await sh('npm', ['pack', '--pack-destination', scratch, '--silent'], ROOT, options);
      const tarballs = readdirSync(scratch).filter((f) => f.endsWith('.tgz'));
      if (tarballs.length !== 1) throw new Error(`npm pack wrote ${tarballs.join(', ') || 'nothing'} into ${scratch}`);
      renameSync(join(scratch, tarballs[0]!), join(scratch, 'toolcell.tgz'));
    },
    options.signal,
  );
  const now = new Date();
  utimesSync(dir, now, now);
  return join(packed, 'toolcell.tgz');
}

export interface InstalledAppOptions {
  signal?: AbortSignal;
  /** Extra packages installed beside toolcell (`name@range`), e.g. a framework an adapter needs. */
  dependencies?: string[];
  /** `npm install --omit=dev` semantics (what a user's production install gets). */
  omitDev?: boolean;
}

/**
 * An empty ESM project (`type: module`) with the packed toolcell installed, shared under
 * `name`: callers that need the same installation pass the same name (and the same options).
 * Tests write their own files into it; nothing else in it is theirs to change.
 */
export async function installedApp(name: string, options: InstalledAppOptions = {}): Promise<string> {
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`installedApp: name "${name}" must be lower-case letters, digits and dashes`);
  const tarball = await packedTarball(options);
  return once(
    join(BASE, key()),
    `app-${name}`,
    async (scratch) => {
      writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: `app-${name}`, version: '1.0.0', private: true, type: 'module' }));
      // Dependencies come from the local npm cache when it has them (it does after the
      // checkout's own install); the registry is asked only for what is missing.
      const args = ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];
      if (options.omitDev) args.push('--omit=dev');
      await sh('npm', [...args, tarball, ...(options.dependencies ?? [])], scratch, options);
    },
    options.signal,
  );
}

/**
 * The files a clone of the checkout has: what git tracks plus what it would track (untracked,
 * not ignored), so the current working state is tested, committed or not. The `node_modules`
 * symlink of a worktree is not ignored by `node_modules/` (a pattern for directories) and is
 * left out by name.
 */
function cloneFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return out.split('\0').filter((f) => f !== '' && f !== 'node_modules' && !f.startsWith('node_modules/') && existsSync(join(ROOT, f)) && lstatSync(join(ROOT, f)).isFile());
}

/**
 * An empty ESM project where `npm install git+file://<clone>` installed toolcell, the way a user
 * installs from a repository: npm clones it, installs its devDependencies there, runs its
 * `prepare` (which builds dist/) and packs it. The clone is a fresh git repository holding
 * the checkout's files (cloneFiles), made once per source state like the tarball.
 */
export async function installedFromGit(name: string, options: { signal?: AbortSignal } = {}): Promise<string> {
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`installedFromGit: name "${name}" must be lower-case letters, digits and dashes`);
  const dir = join(BASE, key());
  const clone = await once(
    dir,
    'clone',
    async (scratch) => {
      pruneStale(key());
      for (const file of cloneFiles()) {
        mkdirSync(dirname(join(scratch, file)), { recursive: true });
        copyFileSync(join(ROOT, file), join(scratch, file));
      }
      const git = (...args: string[]): Promise<unknown> => sh('git', ['-c', 'user.name=toolcell test', '-c', 'user.email=test@toolcell.invalid', ...args], scratch, options);
      await git('init', '--quiet');
      await git('add', '--all');
      await git('commit', '--quiet', '--no-verify', '-m', 'the checkout, as a clone has it');
    },
    options.signal,
  );
  const app = await once(
    dir,
    `git-app-${name}`,
    async (scratch) => {
      writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: `git-app-${name}`, version: '1.0.0', private: true, type: 'module' }));
      await sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', `git+file://${clone}`], scratch, options);
    },
    options.signal,
  );
  const now = new Date();
  utimesSync(dir, now, now);
  return app;
}
