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
const PROBE_TIMEOUT_MS = 30_000;

const cache = new Map<string, Promise<InterpreterInfo | ResolveFailure>>();

/**
 * The interpreter `python` names, probed once per (`python`, environment) and cached: a shim
 * may choose by any variable (e.g. `PYENV_VERSION`). A failed probe is not cached, so
 * installing Python later works without a restart.
 */
export function resolveInterpreter(python: string, env: Record<string, string>): Promise<InterpreterInfo | ResolveFailure> {
  const key = `${python}\0${JSON.stringify(Object.entries(env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))}`;
  let pending = cache.get(key);
  if (!pending) {
    pending = probe(python, env);
    cache.set(key, pending);
    pending.then((r) => 'description' in r && cache.delete(key), () => cache.delete(key));
  }
  return pending;
}

function probe(python: string, env: Record<string, string>): Promise<InterpreterInfo | ResolveFailure> {
  return new Promise((resolve) => {
    execFile(python, ['-I', '-c', PROBE], { env, timeout: PROBE_TIMEOUT_MS, maxBuffer: 1 << 20, encoding: 'utf8' }, (err, stdout, stderr) => {
      const diagnostics = (stderr ?? '').slice(-4096);
      if (err) {
        const code = (err as NodeJS.ErrnoException).code;
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
