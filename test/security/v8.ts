/**
 * The V8 engine for the security tests: QuickJS is the default, and these attacks are about
 * the opt-in `vm` engine (`engine: 'v8'`), whose guest can meet objects of Node's own realm.
 */
import { JsRuntime, type JsRuntimeOptions } from '../../src/runtime/js/index.ts';

export function v8Runtime(options: JsRuntimeOptions = {}): JsRuntime {
  return new JsRuntime({ ...options, engine: 'v8' });
}

/**
 * Script source defining `hostError(kind)`: recurses to the stack limit and, unwinding, retries
 * an operation that runs Node's own code on the script's stack until one of them overflows there.
 * Returns the RangeError made in the sandbox process's own realm, or null.
 */
export const HOST_ERROR_FINDER = `
async function hostError(kind) {
  let found = null;
  const keep = (e) => { if (!(e instanceof Object) && found === null) found = e; };
  const imports = [];
  function attempt() {
    try {
      if (kind === 'stack') new Error('x').stack;
      else if (kind === 'capture') Error.captureStackTrace({});
      else imports.push(import('node:fs').catch(keep));
    } catch (e) {
      keep(e);
    }
  }
  function dive() {
    try { dive(); } catch {}
    if (found === null && imports.length < 20000) attempt();
  }
  dive();
  await Promise.all(imports);
  return found;
}
async function anyHostError() {
  for (const kind of ['stack', 'import', 'capture']) {
    const e = await hostError(kind);
    if (e !== null) return e;
  }
  return null;
}
`;
