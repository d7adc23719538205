// Synchronous frame I/O of the sandbox process. The process never waits in its event loop for
// the host: it blocks in read(2), after a few reads of the doorbell (an answer already
// announced is picked up without the thread going to sleep).
//
// The QuickJS engine can also run this loop on a worker thread of the host (engines/quickjs/
// thread.ts): there frames are [header, payloads] messages on the thread's port, received
// synchronously (receiveMessageOnPort), and the doorbell and cancel board are a
// SharedArrayBuffer the host bumps with Atomics, so the thread sleeps in Atomics.wait; small
// frames go through two mailboxes in shared memory instead of the port where the ordering rule
// allows (sandbox/mailbox.mjs); to a host whose loop sleeps, a short wake message follows.
import fs from 'node:fs';
import { isMainThread, parentPort, receiveMessageOnPort, Worker, workerData } from 'node:worker_threads';
import { encodeFrame, FrameDecoder } from './frames.mjs';
import { WATCH_MS } from './watch-rule.mjs';
import {
  cancelSlot, DOORBELL_SLOT, HOST_WATCHING_SLOT, THREAD_MAY_WATCH_SLOT,
  TO_HOST_FULL_SLOT, TO_HOST_TAKEN_SLOT, TO_THREAD_FULL_SLOT, TO_THREAD_TAKEN_SLOT,
} from './board.mjs';
import { MailboxReceiver, MailboxSender, mailboxBytes } from './mailbox.mjs';

/** On a worker thread: the board shared with the host (its layout: board.mjs). */
const board = !isMainThread && workerData?.toolcellBoard instanceof SharedArrayBuffer ? new Int32Array(workerData.toolcellBoard) : null;
/**
 * On a worker thread: the port frames go to the host by. A channel of its own rather than the
 * worker's parent port, so the host can also take a frame synchronously (receiveMessageOnPort)
 * while it watches for an answer (engines/quickjs/thread.ts).
 */
const toHost = board === null ? null : workerData.toolcellPort ?? parentPort;
/** On a worker thread given mailboxes: frames to the host, and from it (sandbox/mailbox.mjs). */
const mailboxes = board !== null && workerData.toolcellMailboxes instanceof SharedArrayBuffer ? mailboxBytes(workerData.toolcellMailboxes) : null;
const outbox = mailboxes === null ? null : new MailboxSender(board, mailboxes.toHost, TO_HOST_FULL_SLOT, TO_HOST_TAKEN_SLOT);
const inbox = mailboxes === null ? null : new MailboxReceiver(board, mailboxes.toThread, TO_THREAD_FULL_SLOT, TO_THREAD_TAKEN_SLOT);

const TO_HOST = 3;
const FROM_HOST = 4;
const DOORBELL = 5;
/**
 * Doorbell reads before sleeping in read(2): a few, no timed spin. Measured on the 2-core target:
 * 0.5 ms of spinning lowered sequential calls (41.7k/s against 46.7k/s with none) and, with
 * four observer processes attached, took the CPU the host needed (whole-path inner calls fell
 * from 21k/s to 15k/s).
 */
const DOORBELL_READS = 16;
const MAX_FRAME_BYTES = 2 ** 31 - 1;

const decoder = new FrameDecoder(MAX_FRAME_BYTES);
const chunk = Buffer.allocUnsafe(1 << 18);
const bell = Buffer.alloc(4);
/** Frames decoded so far; the doorbell holds the number of frames the host has sent. */
let framesDecoded = 0;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Threads only: until when (performance.now()) to watch for the host's answer to our last calls. */
let watchUntil = 0;

/** Writes one frame to the host. Exits quietly when the host is gone. */
export function send(header, payloads = []) {
  if (board !== null) {
    // Calls await the host's answer: watch for it while the host says a watch pays (watch-rule.mjs).
    if (header.t === 'out' && header.c.length > 0 && Atomics.load(board, THREAD_MAY_WATCH_SLOT) === 1) watchUntil = performance.now() + WATCH_MS;
    const hostWatching = Atomics.load(board, HOST_WATCHING_SLOT) === 1;
    if (outbox === null) return toHost.postMessage([header, payloads]);
    // The mailbox whether or not the host watches. A sleeping host still needs the port's
    // wake-up, but a short string costs less to post than the frame's structured clone: held to
    // one CPU, where the host never watches, 10.8k sequential calls/s against 10.1k (medians of
    // 18 rounds each, processes interleaved); no change measured with two CPUs, idle or loaded.
    if (outbox.tryPut(header, payloads)) {
      // Also when the host stopped watching after the look above, without seeing the frame.
      if (!hostWatching || Atomics.load(board, HOST_WATCHING_SLOT) === 0) postToHost(WAKE);
      return;
    }
    return postToHost([header, payloads]);
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
  if (session === null) return postToHost([{ t: 'parked', conv }, []]);
  postToHost([{ t: 'parked', conv }, [], session], [session.blocks.buffer, session.data.buffer]);
}

/** Tells the host to look in the mailbox (a port message that is no frame). */
const WAKE = 'wake';

function postToHost(message, transfer) {
  toHost.postMessage(message, transfer);
  outbox?.portPosted();
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
  if (board !== null) return Atomics.load(board, DOORBELL_SLOT) !== framesDecoded;
  fs.readSync(DOORBELL, bell, 0, 4, 0);
  return bell.readInt32LE(0) !== framesDecoded;
}

const slot = Buffer.alloc(4);

/**
 * Whether the host posted a cancel of `run` on the board (one pread; consumes no frame, so it
 * is safe wherever it is interrupted — the QuickJS interrupt handler runs it mid-script).
 */
export function cancelPosted(run) {
  if (board !== null) return Atomics.load(board, cancelSlot(run)) === (run | 0);
  fs.readSync(DOORBELL, slot, 0, 4, 4 * cancelSlot(run));
  return slot.readInt32LE(0) === (run | 0);
}

function spinOnDoorbell() {
  for (let i = 0; i < DOORBELL_READS; i++) {
    fs.readSync(DOORBELL, bell, 0, 4, 0);
    // More frames announced than decoded: their bytes are in the pipe, read(2) will not sleep.
    if (bell.readInt32LE(0) !== framesDecoded) return;
  }
}

/**
 * A sandbox process: a script spinning when the host dies would spin on (the main thread never
 * reads the closed pipe), so a watchdog thread ends the process once it has been orphaned.
 */
export function watchParent() {
  const watchdog = new Worker(
    `const { workerData } = require('node:worker_threads');
     setInterval(() => { if (process.ppid !== workerData) process.kill(process.pid, 'SIGKILL'); }, 500);`,
    { eval: true, workerData: process.ppid, env: {}, stdout: true, stderr: true },
  );
  watchdog.unref();
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
    const seen = Atomics.load(board, DOORBELL_SLOT);
    const frame = nextFromHost();
    if (frame !== null) {
      framesDecoded = (framesDecoded + 1) | 0;
      watchUntil = 0;
      return frame;
    }
    if (!block) return null;
    if (!watchBoard(seen)) Atomics.wait(board, DOORBELL_SLOT, seen);
  }
}

/** The host's next frame, from its mailbox or its port in the order it sent them, or null. */
function nextFromHost() {
  if (inbox === null) {
    const message = receiveMessageOnPort(parentPort);
    if (message === undefined) return null;
    const [header, payloads, parked] = message.message;
    return { header, payloads, parked };
  }
  const next = inbox.take(inbox.holding ? undefined : receiveMessageOnPort(parentPort)?.message);
  if (next === undefined) return null;
  if (next.mailbox !== undefined) return next.mailbox;
  const [header, payloads, parked] = next.port;
  return { header, payloads, parked };
}

/** Watches the doorbell until the watch for the awaited answer ends; true once it rang. */
function watchBoard(seen) {
  if (watchUntil === 0) return false;
  do {
    for (let i = 0; i < 64; i++) if (Atomics.load(board, DOORBELL_SLOT) !== seen) return true;
  } while (performance.now() < watchUntil);
  watchUntil = 0;
  return false;
}
