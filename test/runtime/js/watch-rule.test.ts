/**
 * The watch rule of a QuickJS thread's bridge (sandbox/watch-rule.mjs): a side watches only while
 * the machine's runnable tasks leave a CPU for each side, looked at again every RECHECK_MS, and
 * never without /proc or with one CPU.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { RECHECK_MS, runnableTasks, WatchRule, watchPays } from '../../../src/runtime/js/sandbox/watch-rule.mjs';

const stat = (running: number) => `0.52 0.61 0.70 ${running}/512 12345\n`;

test('a watch pays only while each side has a CPU', () => {
  assert.equal(watchPays(1, 2), true);
  assert.equal(watchPays(2, 2), true, 'the host looking and the thread running: one CPU each');
  assert.equal(watchPays(3, 2), false, 'a third runnable task: a watch holds the CPU the other side needs');
  assert.equal(watchPays(1, 1), false, 'one CPU: never');
  assert.equal(watchPays(Number.NaN, 8), false);
});

test('the runnable tasks are read from /proc/loadavg text, and from this machine\'s where there is one', () => {
  assert.equal(runnableTasks(stat(7)), 7);
  assert.equal(runnableTasks('16.73 15.73 14.38 16/302 18079\n'), 16);
  assert.ok(Number.isNaN(runnableTasks('cpu 1 2 3\n')));
  let real: string | undefined;
  try {
    real = readFileSync('/proc/loadavg', 'latin1');
  } catch {
    return; // not Linux: the rule reads no /proc there (next test)
  }
  assert.ok(runnableTasks(real) >= 1, 'this test itself is running');
});

test('the rule looks again only every RECHECK_MS, and never watches without /proc or one CPU', () => {
  let running = 1;
  let reads = 0;
  const rule = new WatchRule(2, () => (reads++, stat(running)));
  assert.equal(rule.now(1_000), true);
  running = 5;
  assert.equal(rule.now(1_000 + RECHECK_MS / 2), true, 'within RECHECK_MS the last look stands');
  assert.equal(reads, 1);
  assert.equal(rule.now(1_000 + RECHECK_MS), false, 'the busy machine is seen at the next look');
  assert.equal(new WatchRule(2, () => null).now(0), false, 'no /proc: no watch');
  let asked = false;
  assert.equal(new WatchRule(1, () => ((asked = true), stat(1))).now(0), false, 'one CPU: no watch');
  assert.equal(asked, false, 'and /proc is not read for it');
});
