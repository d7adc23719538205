// Entry of a QuickJS sandbox process: plain JavaScript under bare node, started by the host with
// an empty environment and the permission model (src/runtime/js/sandbox-process.ts). One
// process serves many conversations and several runs at once: runs interleave whenever a script
// waits on a tool call. Each run executes in a QuickJS VM (its own WebAssembly instance and
// memory) that shares no object with Node; only numbers and strings cross (engines/quickjs/vm.mjs).
//
// One VM per conversation, kept between its runs: the conversation's session. A run that ends
// the way scripts end (a value, or an error the script threw) leaves its VM in the slot for the
// conversation's next run; any other end (time limit, cancel, out of memory, an engine fault, a
// limit that stopped the script mid-way) disposes it, and the next run starts on a fresh VM from
// the spares, restored from a snapshot while the process is idle. The host says when a run must
// start fresh (`fresh` in the run header: first run, `reset`, or a session it knows is gone); each
// run reports whether it started fresh and whether its VM was kept. The host drops the slot of
// a conversation idle too long (`drop`), which frees the VM's memory.
//
// The loop is synchronous, as in the V8 engine's process: it blocks in read(2) between frames.
// While a script executes, the interrupt handler stops it at its deadline, or when the host has
// announced a frame that cancels it, without ending the process or the other runs in it. What
// it does with each frame is sandbox-loop.mjs's, the same in a sandbox process and on a thread.
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { isMainThread, workerData } from 'node:worker_threads';
import { cancelPosted, framesWaiting, poll, receive, send, sendParked, watchParent } from '../../sandbox/io.mjs';
import { startSandboxLoop } from './sandbox-loop.mjs';
import { wasmDigest } from './template.mjs';

process.on('unhandledRejection', () => {});

// On a worker thread of the host (engines/quickjs/thread.ts) the host hands over the package's
// path, its compiled module and the digest of its bytes; as a process, the paths come as
// arguments. A test's thread entry may name another template image in workerData.templateImage.
const onThread = !isMainThread;
const [libPath, wasmPath] = onThread ? [workerData.lib, null] : process.argv.slice(2);
const imagePath = onThread ? workerData.templateImage : undefined;
// On a thread the compiled module arrives on its own port once the host's background compile is
// done (engines/quickjs/thread.ts); quickjs-wasi's JavaScript loads meanwhile.
const arriving = onThread ? new Promise((resolve) => workerData.wasmPort.once('message', resolve)) : null;
const quickjs = await import(pathToFileURL(libPath).href);
const wasmBytes = onThread ? null : fs.readFileSync(wasmPath);
const wasmModule = onThread ? await arriving : new WebAssembly.Module(wasmBytes);
if (onThread) workerData.wasmPort.close();
const digest = onThread ? workerData.wasmDigest : wasmDigest(wasmBytes);

async function loop() {
  for (;;) {
    let frame = poll();
    if (frame === null || frame === undefined) {
      await prepare();
      frame = receive(true);
    }
    await dispatch(frame);
  }
}

// A thread dies with its host; a process is ended by a watchdog once orphaned.
if (!onThread) watchParent();

const { dispatch, prepare } = await startSandboxLoop({
  quickjs,
  wasmModule,
  digest,
  imagePath,
  // A thread runs one VM at a time: one spare; a process serves several runs.
  spareVms: onThread ? 1 : 2,
  oneRunAtATime: onThread,
  io: { send, sendParked, cancelPosted, framesWaiting },
});
send({ t: 'ready' });
loop().catch((error) => {
  try {
    send({ t: 'fatal', message: String(error?.message ?? error) });
  } finally {
    process.exit(70);
  }
});
