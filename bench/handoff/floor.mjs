// One subject of bench:handoff (bench/handoff-floor.ts): the bare floor of a call handed from a
// worker thread to the host's event loop and back, with a given amount of work on each side.
//
//   argv: <thread work µs> <host work µs> <calls> <passes>
//   prints one JSON line: { rates: [calls/s of each pass after one warm-up pass] }
//
// The shape is toolcell's QuickJS bridge without toolcell: the thread sleeps in Atomics.wait
// until the host rings, works, then wakes the host's sleeping loop with a port message; the
// host works and rings back. Neither side watches for the other (no spinning).
import { isMainThread, MessageChannel, Worker, workerData } from 'node:worker_threads';

const spinFor = (us) => {
  const until = performance.now() + us / 1000;
  while (performance.now() < until);
};

if (isMainThread) {
  const [threadUs, hostUs, calls, passes] = process.argv.slice(2).map(Number);
  const board = new Int32Array(new SharedArrayBuffer(8));
  const channel = new MessageChannel();
  const worker = new Worker(new URL(import.meta.url), { workerData: { board: board.buffer, port: channel.port2, threadUs }, transferList: [channel.port2] });
  const ring = () => {
    Atomics.add(board, 0, 1);
    Atomics.notify(board, 0);
  };
  let left = 0;
  let finish = () => {};
  channel.port1.on('message', () => {
    if (--left === 0) return finish();
    spinFor(hostUs);
    ring();
  });
  const pass = () =>
    new Promise((resolve) => {
      left = calls;
      const started = performance.now();
      finish = () => resolve(Math.round(calls / ((performance.now() - started) / 1000)));
      ring();
    });
  await pass(); // warm-up: both sides' code compiled, the thread settled
  const rates = [];
  for (let i = 0; i < passes; i++) rates.push(await pass());
  console.log(JSON.stringify({ rates }));
  await worker.terminate();
} else {
  const board = new Int32Array(workerData.board);
  let seen = 0;
  for (;;) {
    Atomics.wait(board, 0, seen);
    seen = Atomics.load(board, 0);
    spinFor(workerData.threadUs);
    workerData.port.postMessage('wake');
  }
}
