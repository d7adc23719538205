/**
 * The host's one timer for every executing call's safety timeout (src/host/call-deadlines.ts):
 * calls expire in deadline order whatever their timeout lengths, a released call never expires,
 * ended calls do not pile up behind a long-running one, and with nothing executing no timer is set.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CallDeadlines, type Deadlined } from '../../src/host/call-deadlines.ts';

class Call implements Deadlined {
  deadline = -1;
  deadlineLane = 0;
  isOpen = true;
  constructor(readonly name: string) {}
}

/** Deadlines whose expiry ends and releases the call, as the host's does, recording the order. */
function recording() {
  const expired: string[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const deadlines: CallDeadlines<Call> = new CallDeadlines<Call>((call) => {
    call.isOpen = false;
    deadlines.release(call);
    expired.push(call.name);
    for (const w of waiters) if (expired.length >= w.count) w.resolve();
  });
  const expiries = (count: number) =>
    new Promise<void>((resolve) => (expired.length >= count ? resolve() : waiters.push({ count, resolve })));
  const end = (call: Call) => {
    call.isOpen = false;
    deadlines.release(call);
  };
  return { deadlines, expired, expiries, end };
}

test('calls expire in deadline order across timeout lengths, each once', async () => {
  const { deadlines, expired, expiries } = recording();
  // Deadlines 150 ms apart: each is taken when its call is added, so adds that a loaded machine
  // spreads over tens of milliseconds must not reorder them (10/20/30 ms did, under load).
  deadlines.add(new Call('thirty'), 310);
  deadlines.add(new Call('ten'), 10);
  deadlines.add(new Call('twenty'), 160);
  deadlines.add(new Call('ten-b'), 10);
  await expiries(4);
  assert.deepEqual(expired, ['ten', 'ten-b', 'twenty', 'thirty']);
  assert.equal(deadlines.size, 0);
  assert.equal(deadlines.held, 0);
  assert.equal(deadlines.armedAt, Infinity, 'no timer once nothing executes');
});

test('a timer that fires late still expires calls in deadline order', async () => {
  const { deadlines, expired, expiries } = recording();
  deadlines.add(new Call('thirty'), 30);
  deadlines.add(new Call('twenty'), 20);
  deadlines.add(new Call('ten'), 10);
  // Hold the loop past every deadline, as a loaded machine does: one firing finds all three due.
  const until = performance.now() + 45;
  while (performance.now() < until);
  await expiries(3);
  assert.deepEqual(expired, ['ten', 'twenty', 'thirty']);
});

test('a call released before its deadline never expires; the rest still do', async () => {
  const { deadlines, expired, expiries, end } = recording();
  const early = new Call('ended-early');
  deadlines.add(early, 5);
  const later = new Call('still-open');
  deadlines.add(later, 25);
  end(early);
  await expiries(1);
  assert.deepEqual(expired, ['still-open']);
});

test('ended calls behind a long-running one are dropped: the queues stay bounded', () => {
  const { deadlines, end } = recording();
  const long = new Call('long');
  deadlines.add(long, 60_000);
  for (let i = 0; i < 10_000; i++) {
    const c = new Call(`c${i}`);
    deadlines.add(c, 60_000);
    end(c);
  }
  assert.equal(deadlines.size, 1);
  assert.ok(deadlines.held <= 2 * 256 + 1, `queues hold ${deadlines.held} entries for 1 executing call`);
  end(long);
  assert.equal(deadlines.held, 0);
  assert.equal(deadlines.armedAt, Infinity);
});

test('with nothing executing no timer is set (the process may exit)', () => {
  const { deadlines, end } = recording();
  const c = new Call('only');
  deadlines.add(c, 60_000);
  assert.ok(Number.isFinite(deadlines.armedAt), 'a timer is set while the call executes');
  end(c);
  assert.equal(deadlines.armedAt, Infinity);
  assert.equal(deadlines.size, 0);
});

test('an unbounded timeout sets no timer and does not delay the bounded ones', async () => {
  const { deadlines, expired, expiries, end } = recording();
  const forever = new Call('forever');
  deadlines.add(forever, Infinity);
  assert.equal(deadlines.armedAt, Infinity, 'Infinity would fire after 1 ms if handed to setTimeout');
  deadlines.add(new Call('bounded'), 10);
  await expiries(1);
  assert.deepEqual(expired, ['bounded']);
  assert.equal(deadlines.armedAt, Infinity);
  end(forever);
  assert.equal(deadlines.size, 0);
});
