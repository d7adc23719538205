/**
 * engines/quickjs/slice-meter.mjs: a slice is over its bound by CPU and wall time, or by wall time
 * alone once past the slack; the CPU reference is read at most once per 4 ms of slices.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sliceMeter } from '../../../src/runtime/js/engines/quickjs/slice-meter.mjs';

/** A meter over a CPU clock the test sets (ms), counting its reads. */
function meterWith(wallSlackMs = 80) {
  const clock = { cpuMs: 0, reads: 0 };
  const meter = sliceMeter({
    wallSlackMs,
    cpuUsage: () => {
      clock.reads++;
      return { user: clock.cpuMs * 1000, system: 0 };
    },
  });
  return { clock, meter };
}

describe('slice meter', () => {
  test('inside its bound in wall time, a slice has the rest of the bound left, with no CPU read', () => {
    const { clock, meter } = meterWith();
    meter.begin(1000);
    const reads = clock.reads;
    assert.equal(meter.left(1000, 1015, 20), 5);
    assert.equal(clock.reads, reads);
  });

  test('past the bound in wall time with the CPU to match, it is over', () => {
    const { clock, meter } = meterWith();
    meter.begin(1000);
    clock.cpuMs += 21;
    assert.equal(meter.left(1000, 1021, 20), 0);
  });

  test('past the bound in wall time but not in CPU (it waited for a core), it may run what CPU it has left', () => {
    const { clock, meter } = meterWith();
    meter.begin(1000);
    clock.cpuMs += 6;
    assert.equal(meter.left(1000, 1040, 20), 14);
    // Never beyond the wall-time slack.
    clock.cpuMs += 0;
    assert.equal(meter.left(1000, 1095, 20), 5);
  });

  test('past the bound by the slack in wall time, it is over whatever its CPU', () => {
    const { meter } = meterWith(80);
    meter.begin(1000);
    assert.equal(meter.left(1000, 1100, 20), 0);
  });

  test('the reference is read again only after 4 ms, so it is never later than the slice start', () => {
    const { clock, meter } = meterWith();
    meter.begin(1000);
    clock.cpuMs += 3;
    meter.begin(1003); // 3 ms later: the reference stays at 1000's reading
    clock.cpuMs += 18;
    // The slice from 1003 used 18 ms of CPU; from the reference 21: judged over (errs towards moving).
    assert.equal(meter.left(1003, 1030, 20), 0);
    meter.begin(1030); // 30 ms after the last reading: read again
    clock.cpuMs += 5;
    assert.equal(meter.left(1030, 1060, 20), 15);
  });

  test("a slice's spent time is its wall time when short, else at most the CPU since the reference", () => {
    const { clock, meter } = meterWith();
    meter.begin(1000);
    assert.equal(meter.spent(1000, 1001.5), 1.5);
    clock.cpuMs += 7;
    assert.equal(meter.spent(1000, 1050), 7);
    assert.equal(meter.spent(1000, 1005), 5);
  });
});
