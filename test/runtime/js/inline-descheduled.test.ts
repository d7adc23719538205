/**
 * QuickJS inline: a slice judged over its bound only by the wall clock moved its run when the
 * host's thread merely waited for a core (a loaded machine; here, the process stopped with
 * SIGSTOP). The bound is CPU as well (engines/quickjs/slice-meter.mjs): a slice that used ~5 ms
 * of CPU and was stopped 35 ms keeps its run on the host's thread.
 */
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const FIXTURE = fileURLToPath(new URL('./fixtures/stopped-slices.ts', import.meta.url));
/** How long each stop lasts: past the 20 ms bound, inside the 80 ms wall slack. */
const STOP_MS = 35;

test('a slice that only waited (its process stopped) does not move its run', async () => {
  const child = fork(FIXTURE, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const messages: Array<{ t: string; [key: string]: unknown }> = [];
  let arrived: (() => void) | null = null;
  child.on('message', (m: { t: string }) => {
    messages.push(m);
    arrived?.();
  });
  const exited = once(child, 'exit');
  const next = async () => {
    while (messages.length === 0) await new Promise<void>((resolve) => (arrived = resolve));
    return messages.shift()!;
  };
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  try {
    const ready = await next();
    assert.equal(ready.t, 'ready', JSON.stringify(ready));
    // Stops at an uneven rhythm until the run is over: the run is ~60 slices of ~5 ms each
    // (300 ms, inside the 3 s a run may have there), nearly all of its time inside a slice, so
    // most stops land in one.
    let stops = 0;
    while (messages.length === 0) {
      await pause(23 + (stops % 3) * 7);
      if (messages.length > 0) break;
      child.kill('SIGSTOP');
      await pause(STOP_MS);
      child.kill('SIGCONT');
      stops++;
    }
    const done = await next();
    assert.equal(done.t, 'done', JSON.stringify(done));
    const stats = done.stats as { inlineRuns: number; movedRuns: number };
    assert.ok((done.longest as number) > 20 + 5, `no stop landed inside a slice (longest slice ${String(done.longest)} ms, ${stops} stops)`);
    assert.equal(stats.inlineRuns, 2, 'both runs started on the host thread');
    assert.equal(stats.movedRuns, 0, `a run moved though its slices used ~5 ms of CPU (longest ${String(done.longest)} ms of wall time, ${stops} stops)`);
  } finally {
    child.kill('SIGCONT');
    await exited;
  }
});
