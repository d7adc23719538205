/**
 * Python interpreters are capped and reclaimed (issue 13): N+1 conversations keep at most N
 * interpreters, the evicted conversation starts afresh on its next run, and an interpreter
 * ended by its idle timeout leaves the per-conversation map.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConversationRunners } from '../../src/code-execution/runners.ts';
import { processAlive, waitUntil } from '../helpers/peers.ts';

const opts = { tools: [], timeoutMs: 10_000 };
const all: ConversationRunners[] = [];
after(() => Promise.all(all.map((r) => r.close())));
const make = (...args: ConstructorParameters<typeof ConversationRunners>) => {
  const r = new ConversationRunners(...args);
  all.push(r);
  return r;
};

/** Waits for `check`, bounded by events polled every 10 ms (never by the machine's speed alone). */
const waitFor = (what: string, check: () => boolean) => waitUntil(() => check() || undefined, what);

const alive = processAlive;

test('N+1 conversations keep at most N interpreters; the least recently used restarts fresh', async () => {
  const runners = make(1, {}, {}, 2);
  const pids = new Map<string, number>();
  for (const id of ['a', 'b', 'c']) {
    const py = runners.pythonFor(id);
    assert.equal((await py.run(`name = "${id}"\nname`, opts)).value, id);
    pids.set(id, py.pid!);
    assert.ok(runners.pythonConversations <= 2, `at most 2 runners after ${id}`);
  }
  // 'a' was the least recently used when 'c' arrived: its interpreter is gone.
  await waitFor("the evicted interpreter's exit", () => !alive(pids.get('a')!));
  assert.ok(alive(pids.get('b')!) && alive(pids.get('c')!));
  const again = await runners.pythonFor('a').run('"name" in globals()', opts);
  assert.equal(again.value, false, 'the evicted conversation starts afresh');
  // 'b' is now the least recently used and makes room for 'a'; 'c' keeps its globals.
  await waitFor("b's exit", () => !alive(pids.get('b')!));
  assert.equal((await runners.pythonFor('c').run('name', opts)).value, 'c');
  assert.equal(runners.pythonConversations, 2);
});

test('a conversation in use is never evicted; the cap is restored on the next lookup', async () => {
  const runners = make(1, {}, {}, 1);
  const acquired = runners.claim('busy', { signal: new AbortController().signal, whenBusy: 'refuse', busyWaitMs: 0 });
  assert.ok(!(acquired instanceof Promise) && 'lease' in acquired, 'a free conversation is leased at once');
  const busy = runners.pythonFor('busy');
  await busy.run('kept = 1', opts);
  const other = runners.pythonFor('other');
  assert.equal((await other.run('2', opts)).value, 2);
  assert.equal((await busy.run('kept', opts)).value, 1, 'the claimed conversation kept its interpreter');
  acquired.lease.release();
  runners.pythonFor('third');
  assert.equal(runners.pythonConversations, 1);
});

test('the idle timeout ends the interpreter and removes the runner from the map', async () => {
  const runners = make(1, { idleTimeoutMs: 100 }, {}, 4);
  const py = runners.pythonFor('idle');
  await py.run('1', opts);
  const pid = py.pid!;
  assert.equal(runners.pythonConversations, 1);
  await waitFor('the runner to leave the map', () => runners.pythonConversations === 0);
  await waitFor('the interpreter to exit', () => !alive(pid));
  assert.notEqual(runners.pythonFor('idle'), py, 'a new runner for the next run');
});

test('a bad cap is refused', () => {
  assert.throws(() => new ConversationRunners(1, {}, {}, 0), /maxPythonInterpreters must be a positive integer/);
});

test("one tenant's many conversations end its own interpreters, not another tenant's (tenant: the id up to its first '/')", async () => {
  const runners = make(1, {}, {}, 2);
  const b = runners.pythonFor('tenantB/main');
  assert.equal((await b.run('name = "B"\nname', opts)).value, 'B');
  const bPid = b.pid!;
  for (const id of ['tenantA/c0', 'tenantA/c1', 'tenantA/c2']) {
    assert.equal((await runners.pythonFor(id).run('1', opts)).value, 1);
    assert.ok(runners.pythonConversations <= 2, `at most 2 runners after ${id}`);
  }
  assert.ok(alive(bPid), "tenant B's interpreter lives on");
  assert.equal((await runners.pythonFor('tenantB/main').run('name', opts)).value, 'B');
});
