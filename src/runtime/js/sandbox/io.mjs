// Synchronous frame I/O of the sandbox process. The process never waits in its event loop for
// the host: it blocks in read(2), after a few reads of the doorbell (an answer already
// announced is picked up without the thread going to sleep).
//
// The QuickJS engine can also run this loop on a worker thread of the host (engines/quickjs/
// thread.ts): there frames are [header, payloads] messages on the thread's port, received
// synchronously (receiveMessageOnPort), and the doorbell and cancel board are a
// SharedArrayBuffer the host bumps with Atomics, so the thread sleeps in Atomics.wait.
import fs from 'node:fs';
import { isMainThread, parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { encodeFrame, FrameDecoder } from './frames.mjs';

/** On a worker thread: the board shared with the host ([0] frames sent, then the cancel slots). */
const board = !isMainThread && workerData?.toolcellBoard instanceof SharedArrayBuffer ? new Int32Array(workerData.toolcellBoard) : null;
/**
 * On a worker thread: the port frames go to the host by. A channel of its own rather than the
 * worker's parent port, so the host can also take a frame synchronously (receiveMessageOnPort)
 * while it watches for an answer (engines/quickjs/thread.ts).
 */
const toHost = board === null ? null : workerData.toolcellPort ?? parentPort;

const TO_HOST = 3;
const FROM_HOST = 4;
const DOORBELL = 5;
/**
 * How long to spin on the doorbell before sleeping in read(2). Measured on the 2-core target:
 * 0.5 ms of spinning lowered sequential calls (41.7k/s against 46.7k/s with none) and, with
 * four observer processes attached, took the CPU the host needed (whole-path inner calls fell
 * from 21k/s to 15k/s). Only the first few doorbell reads remain before read(2).
 */
const SPIN_MS = 0;
const MAX_FRAME_BYTES = 2 ** 31 - 1;

const decoder = new FrameDecoder(MAX_FRAME_BYTES);
const chunk = Buffer.allocUnsafe(1 << 18);
const bell = Buffer.alloc(4);
/** Frames decoded so far; the doorbell holds the number of frames the host has sent. */
let framesDecoded = 0;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * Threads only: how long a thread that has just asked the host for something (tool calls) watches
 * the board before it sleeps in Atomics.wait. On this project's 2-core virtual machine a sleeping
 * thread costs the host about 14 µs in Atomics.notify (a cross-core wake-up through the
 * hypervisor, paid synchronously by the notifier) and the thread as much again to wake: a
 * round trip between two threads fell from 37 µs to 24 µs with a 20 µs watch. The watch is
 * adaptive, so it costs little where it cannot pay: it is used only while nearly all of the
 * host's recent answers came within it, so a loaded machine (where answers are erratic and a
 * spinning thread would take the host's CPU) or a slow tool turns it off by itself, and answers
 * that come quickly again turn it back on. At load 9–13 a threshold of half the answers made
 * sequential calls slower than no watch at all (8–12k/s against 12–18k/s); four in five kept
 * them level with it, and idle at 18–28k/s against 13k/s.
 */
const WATCH_MS = 0.05;
/** When the last call frame went out (-1: no answer expected). */
let askedAt = -1;
/** Moving share of recent answers that came within WATCH_MS; the watch runs while it is at least QUICK_ENOUGH. */
let quickShare = 1;
/** Share of quick answers below which the thread sleeps at once (an erratic host: a loaded machine). */
const QUICK_ENOUGH = 0.8;

/** Writes one frame to the host. Exits quietly when the host is gone. */
export function send(header, payloads = []) {
  if (board !== null) {
    if (header.t === 'out' && header.c.length > 0) askedAt = performance.now();
    return toHost.postMessage([header, payloads]);
  }
  const buf = encodeFrame(header, payloads);
  let offset = 0;
  while (offset < buf.length) {
    try {
      offset += fs.writeSync(TO_HOST, buf, offset, buf.length - offset);
    } catch (error) {
      if (error.code === 'EPIPE' || error.code === 'ECONNRESET') process.exit(0);
      if (error.code !== 'EAGAIN') throw error;
      Atomics.wait(sleeper, 0, 0, 1);
    }
  }
}

/**
 * Threads only: a parked session (a VM's memory image, transferred, not copied) for the host
 * to hold until the conversation's next run; `null` when nothing was kept.
 */
export function sendParked(conv, session) {
  if (session === null) return toHost.postMessage([{ t: 'parked', conv }, []]);
  toHost.postMessage([{ t: 'parked', conv }, [], session], [session.blocks.buffer, session.data.buffer]);
}

/** A frame already buffered, without touching the pipe. */
export function poll() {
  if (board !== null) return threadReceive(false);
  return counted(decoder.next());
}

function counted(frame) {
  if (frame !== null) framesDecoded = (framesDecoded + 1) | 0;
  return frame;
}

/**
 * Blocks until a frame arrives. With `spin`, first watches the doorbell the host rings after
 * each write, so a quick answer is picked up without the thread going to sleep.
 */
export function receive(spin) {
  if (board !== null) return threadReceive(true);
  for (;;) {
    const frame = counted(decoder.next());
    if (frame !== null) return frame;
    if (spin) {
      spinOnDoorbell();
      spin = false;
    }
    readOnce();
  }
}

/**
 * Whether the host has announced frames not yet decoded: lets a process busy running a script
 * (the QuickJS engine's interrupt handler) look for a cancel without blocking.
 */
export function framesWaiting() {
  if (board !== null) return Atomics.load(board, 0) !== framesDecoded;
  fs.readSync(DOORBELL, bell, 0, 4, 0);
  return bell.readInt32LE(0) !== framesDecoded;
}

/** Must match CANCEL_SLOTS in sandbox-process.ts: the board of cancelled run ids after the doorbell. */
const CANCEL_SLOTS = 16;
const slot = Buffer.alloc(4);

/**
 * Whether the host posted a cancel of `run` on the board (one pread; consumes no frame, so it
 * is safe wherever it is interrupted — the QuickJS interrupt handler runs it mid-script).
 */
export function cancelPosted(run) {
  if (board !== null) return Atomics.load(board, 1 + (run % CANCEL_SLOTS)) === (run | 0);
  fs.readSync(DOORBELL, slot, 0, 4, 4 + 4 * (run % CANCEL_SLOTS));
  return slot.readInt32LE(0) === (run | 0);
}

function spinOnDoorbell() {
  const until = performance.now() + SPIN_MS;
  for (let i = 1; ; i++) {
    fs.readSync(DOORBELL, bell, 0, 4, 0);
    // More frames announced than decoded: their bytes are in the pipe, read(2) will not sleep.
    if (bell.readInt32LE(0) !== framesDecoded) return;
    if ((i & 15) === 0 && performance.now() > until) return;
  }
}

function readOnce() {
  let n;
  try {
    n = fs.readSync(FROM_HOST, chunk, 0, chunk.length, null);
  } catch (error) {
    if (error.code !== 'EAGAIN') throw error;
    Atomics.wait(sleeper, 0, 0, 1);
    return;
  }
  if (n === 0) process.exit(0); // the host closed the pipe: nobody is left to serve
  if (decoder.buffered === 0 && n >= 4) {
    // A frame larger than what arrived: read the rest straight into one buffer of its size,
    // instead of copying chunk after chunk and joining them.
    const total = chunk.readUInt32LE(0) + 4;
    if (total > n && total <= MAX_FRAME_BYTES) {
      const frame = Buffer.allocUnsafe(total);
      chunk.copy(frame, 0, 0, n);
      for (let at = n; at < total; ) {
        const more = fs.readSync(FROM_HOST, frame, at, total - at, null);
        if (more === 0) process.exit(0);
        at += more;
      }
      decoder.push(frame);
      return;
    }
  }
  decoder.push(Buffer.from(chunk.subarray(0, n)));
}

/** A frame from the host's port; with `block`, sleeps on the board until one is announced. */
function threadReceive(block) {
  for (;;) {
    const seen = Atomics.load(board, 0);
    const message = receiveMessageOnPort(parentPort);
    if (message !== undefined) {
      framesDecoded = (framesDecoded + 1) | 0;
      if (askedAt >= 0) {
        quickShare = quickShare * 0.9 + (performance.now() - askedAt <= WATCH_MS ? 0.1 : 0);
        askedAt = -1;
      }
      const [header, payloads, parked] = message.message;
      return { header, payloads, parked };
    }
    if (!block) return null;
    if (askedAt < 0 || quickShare < QUICK_ENOUGH || !watchBoard(seen)) Atomics.wait(board, 0, seen);
  }
}

/** Watches the doorbell for up to WATCH_MS after a call frame; true once it rang. */
function watchBoard(seen) {
  const until = askedAt + WATCH_MS;
  do {
    for (let i = 0; i < 64; i++) if (Atomics.load(board, 0) !== seen) return true;
  } while (performance.now() < until);
  return false;
}
