/**
 * Resolves the configured `python` once per process: which executable it really is
 * (`sys.executable`, so a version-manager shim is paid for once, not at every start) and which
 * paths it loads from (so a sandbox can offer exactly those, read-only).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';

/** A resolved interpreter. */
export interface InterpreterInfo {
  /** `sys.executable`: what every later start runs directly. */
  executable: string;
  version: string;
  /** Host paths the interpreter reads: its binary, stdlib, extension modules, site-packages, libpython. */
  paths: string[];
}

/** Why the interpreter could not be resolved; `description` completes "…" as an error sentence. */
export type ResolveFailure = { description: string; diagnostics: string };

const PROBE = [
  'import json, os, sys, sysconfig',
  'paths = [sys.executable, os.path.realpath(sys.executable)] + [p for p in sys.path if p]',
  'paths += [sysconfig.get_config_var("LIBDIR") or "", sys.prefix if sys.prefix != sys.base_prefix else ""]',
  'print(json.dumps({"executable": sys.executable, "version": sys.version.split()[0], "paths": [p for p in paths if p]}))',
].join('\n');
/** Longest the probe may run before it is killed (a shim that hangs). */
const PROBE_TIMEOUT_MS = 30_000;

/** A probe in flight or done, shared by every start that needs it. */
interface Probe {
  result: Promise<InterpreterInfo | ResolveFailure>;
  /** Kills the probe's process (execFile's `signal`). */
  controller: AbortController;
  /** Starts waiting for it now; when the last one gives up (closes, aborts), the probe is killed. */
  waiters: number;
  settled: boolean;
}

const cache = new Map<string, Probe>();

/**
 * The interpreter `python` names, probed once per (`python`, environment) and cached: a shim
 * may choose by any variable (e.g. `PYENV_VERSION`). A failed probe is not cached, so
 * installing Python later works without a restart. When `signal` aborts, this caller gets a
 * failure at once, and the probe is killed if no other caller still waits for it: closing a
 * runner never leaves a probe running (it would hold the host's process open for up to
 * {@link PROBE_TIMEOUT_MS}).
 */
export function resolveInterpreter(python: string, env: Record<string, string>, signal?: AbortSignal): Promise<InterpreterInfo | ResolveFailure> {
  const key = `${python}\0${JSON.stringify(Object.entries(env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))}`;
  let entry = cache.get(key);
  if (!entry) {
    const controller = new AbortController();
    const started: Probe = { result: probe(python, env, controller.signal), controller, waiters: 0, settled: false };
    entry = started;
    cache.set(key, started);
    started.result.then(
      (r) => {
        started.settled = true;
        if ('description' in r && cache.get(key) === started) cache.delete(key);
      },
      () => cache.get(key) === started && cache.delete(key),
    );
  }
  if (entry.settled || signal === undefined) return entry.result;
  const cancelled: ResolveFailure = { description: `the Python interpreter ${JSON.stringify(python)} was not started: its start was cancelled`, diagnostics: '' };
  if (signal.aborted) return Promise.resolve(cancelled);
  const shared = entry;
  shared.waiters++;
  return new Promise((resolve) => {
    const onAbort = () => {
      resolve(cancelled);
      if (--shared.waiters === 0 && !shared.settled) {
        // Nobody waits for it any more: killed, and forgotten so that a later start probes anew.
        if (cache.get(key) === shared) cache.delete(key);
        shared.controller.abort();
      }
    };
    signal.addEventListener('abort', onAbort, { once: true });
    shared.result.then((r) => {
      signal.removeEventListener('abort', onAbort);
      shared.waiters--;
      resolve(r);
    });
  });
}

function probe(python: string, env: Record<string, string>, signal: AbortSignal): Promise<InterpreterInfo | ResolveFailure> {
  return new Promise((resolve) => {
    execFile(python, ['-I', '-c', PROBE], { env, timeout: PROBE_TIMEOUT_MS, maxBuffer: 1 << 20, encoding: 'utf8', signal, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      const diagnostics = (stderr ?? '').slice(-4096);
      if (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (signal.aborted) return resolve({ description: `the Python interpreter ${JSON.stringify(python)} was not started: its start was cancelled`, diagnostics });
        if (code === 'ENOENT') {
          return resolve({ description: `the Python interpreter ${JSON.stringify(python)} was not found (install Python 3.8+ or set the \`python\` option)`, diagnostics });
        }
        const exit = typeof code === 'number' ? `exited with code ${code}` : (err as { signal?: string }).signal ? `was killed by ${(err as { signal?: string }).signal}` : `could not be started: ${err.message}`;
        return resolve({ description: `the Python interpreter ${JSON.stringify(python)} ${exit} while starting`, diagnostics });
      }
      try {
        const info = JSON.parse(stdout.trim().split('\n').pop() ?? '') as InterpreterInfo;
        if (typeof info.executable !== 'string' || !info.executable) throw new Error('no sys.executable');
        resolve({ executable: info.executable, version: info.version, paths: [...new Set(info.paths.filter((p) => fs.existsSync(p)))] });
      } catch (e) {
        resolve({ description: `the Python interpreter ${JSON.stringify(python)} did not describe itself (${(e as Error).message})`, diagnostics });
      }
    });
  });
}
