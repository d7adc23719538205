// Entry of a sandbox process: plain JavaScript under bare node (no tsx), started by the host
// with an empty environment, the permission model, and code generation from strings disabled.
// It serves one run at a time, each in a fresh context, and sends `idle` only once the event
// loop turns after a run: a script that left a spinning microtask behind never gets there.
import { send, receive, poll, watchParent } from '../../sandbox/io.mjs';
import { C_BIND, C_RUN, C_THROWN, compileScript, createSandboxContext, describeSyntaxError } from './context.mjs';
import { Run } from './run.mjs';
import { DEADLOCK_MESSAGE } from '../../sandbox/run-bounds.mjs';
import { CatalogStore, MISSING_CATALOG } from '../../sandbox/catalogs.mjs';

// Rejections nobody handled belong to script promises; the run reports its own outcome.
process.on('unhandledRejection', () => {});

const forceContextify = process.argv.includes('--toolcell-contextify');
/** A context prepared while idle, so a run does not wait for one. */
let prepared = null;
/** @type {Run | null} */
let active = null;
/** The tool catalogs this process holds: a run of one of them is sent its id alone. */
const catalogs = new CatalogStore();

function start(header, payloads) {
  const code = payloads[0];
  const catalog = catalogs.take(header, payloads);
  const sandbox = prepared ?? createSandboxContext(forceContextify);
  prepared = null;
  const run = new Run(header.run, header.limits, catalog, header.sites === true, sandbox);
  active = run;
  if (catalog === null) return run.fail('sandbox', undefined, MISSING_CATALOG);
  let bound;
  try {
    // Only nested paths and globals are installed up front; each tool on first use (prelude.js).
    // A durable run's seed and journaled clock reads (`dur`) cross as JSON text: primitives only.
    bound = sandbox.control(C_BIND, catalog.eager(), run.out.sites, header.dur !== undefined ? JSON.stringify(header.dur) : '');
  } catch {
    bound = 'the prelude failed to install the tools';
  }
  if (bound !== '') return run.fail('sandbox', undefined, bound);
  let script;
  try {
    script = compileScript(code, sandbox.control);
  } catch (error) {
    const { message, stack } = describeSyntaxError(error, code);
    return run.fail('script', 'SyntaxError', message, stack);
  }
  let fn;
  let thrown;
  let threw = false;
  try {
    fn = script.runInContext(sandbox.ctx);
  } catch (error) {
    threw = true;
    thrown = error;
  }
  try {
    // Both calls hand context values back to the prelude untouched: this realm never reads them.
    if (threw) sandbox.control(C_THROWN, thrown);
    else sandbox.control(C_RUN, fn);
  } catch {
    run.fail('sandbox', undefined, 'the sandbox prelude failed to start the script');
  }
}

function dispatch(frame) {
  const { header, payloads } = frame;
  if (header.t === 'res') {
    // Answers for a run that already ended are expected and dropped.
    if (active !== null && active.running && header.run === active.id) active.deliver(header, payloads);
    return;
  }
  if (header.t === 'run' && (active === null || !active.running)) return start(header, payloads);
  throw new Error(`unexpected ${String(header.t)} frame`);
}

function pump() {
  if (active === null) {
    dispatch(receive(false));
  } else if (!active.running) {
    // Only reached once microtasks drained after the run: the liveness signal.
    const id = active.id;
    active = null;
    prepared = createSandboxContext(forceContextify);
    send({ t: 'idle', run: id });
  } else {
    active.flush();
    if (active.inflight === 0) {
      active.fail('script', 'Error', DEADLOCK_MESSAGE);
    } else {
      dispatch(receive(true));
      for (let frame = poll(); frame !== null; frame = poll()) dispatch(frame);
    }
  }
  setImmediate(loop);
}

function loop() {
  try {
    pump();
  } catch (error) {
    try {
      send({ t: 'fatal', message: String(error?.message ?? error) });
    } finally {
      process.exit(70);
    }
  }
}

watchParent();

prepared = createSandboxContext(forceContextify);
send({ t: 'ready' });
setImmediate(loop);
