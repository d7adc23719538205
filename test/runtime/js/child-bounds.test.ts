/**
 * Every limit a sandbox process enforces, seen at the pipe: the test plays the host, sends a run
 * frame with one limit set low, and checks what crosses back. Over-limit calls, log entries and
 * return values must never appear in a frame; the run ends (or the call rejects inside the
 * script) with the same words the host uses (session.ts), for both engines. Through the runtime
 * the host's own checks would hide a sandbox process that skipped one (see host-bounds.test.ts).
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { planBindings } from '../../../src/runtime/js/bindings.ts';
import { resolveLimits, type JsLimits } from '../../../src/runtime/js/limits.ts';
import { runHeader, type ChildCall, type ChildLimits, type ChildMessage, type OutLine } from '../../../src/runtime/js/protocol.ts';
import { SandboxProcess } from '../../../src/runtime/js/sandbox-process.ts';
import type { RunError } from '../../../src/runtime/types.ts';
import { ENGINES } from './engines.ts';
import { tool } from './helpers.ts';

interface Crossed {
  calls: ChildCall[];
  logs: OutLine[];
  /** The run's outcome as the process reported it: the returned JSON text, or its error. */
  outcome: { ok: true; json: string } | { ok: false; error: RunError };
}

const config = planBindings([tool('t')]).config;

/** Plays the host of one sandbox process: one run at a time, every call answered with `null`. */
class Host {
  private readonly process: SandboxProcess;
  private nextRun = 1;

  constructor(readonly engine: 'quickjs' | 'v8') {
    this.process = new SandboxProcess({ engine, heapMb: 64 });
  }

  async run(code: string, limits: Partial<JsLimits>): Promise<Crossed> {
    await this.process.ready;
    this.process.ref();
    const all = resolveLimits({ limits, where: 'limits' });
    const run = this.nextRun++;
    const crossed: Omit<Crossed, 'outcome'> = { calls: [], logs: [] };
    const ended = new Promise<Crossed>((resolve, reject) => {
      let outcome: Crossed['outcome'] | undefined;
      this.process.listen({
        message: (m: ChildMessage) => {
          if (!('run' in m) || m.run !== run) return reject(new Error(`unexpected ${m.t} frame`));
          if (m.t === 'out') {
            crossed.calls.push(...m.calls);
            crossed.logs.push(...m.logs);
            if (m.calls.length > 0 && outcome === undefined) {
              const r = m.calls.flatMap((c) => [c.id, 1, null]);
              this.process.send({ t: 'res', run, r, ms: 30_000 }, m.calls.map(() => 'null'));
            }
          } else if (m.t === 'done') {
            outcome = m.ok ? { ok: true, json: m.json } : { ok: false, error: m.error };
          } else if (m.t === 'idle') {
            // Both engines report idle after the outcome: the process is ready for the next run.
            if (outcome === undefined) reject(new Error('idle before an outcome'));
            else resolve({ ...crossed, outcome });
          }
        },
        end: (end) => reject(new Error(`the sandbox process ended: ${end.message}`)),
      });
    });
    // The QuickJS process also takes the memory limit and the deadline with the run.
    const header = { ...runHeader(run, all), conv: null, heapMb: all.heapMb, ms: Number.isFinite(all.timeoutMs) ? all.timeoutMs : null };
    this.process.send(header, [code, config]);
    try {
      return await ended;
    } finally {
      this.process.listen(null);
      this.process.unref();
    }
  }

  close(): Promise<void> {
    return this.process.stop();
  }
}

const failed = (message: string): Crossed['outcome'] => ({ ok: false, error: { kind: 'script', name: 'RangeError', message } });

/** One scenario per limit the sandbox process enforces (the type makes the list complete). */
const SCENARIOS: Record<keyof ChildLimits, { limits: Partial<JsLimits>; code: string; check(crossed: Crossed): void }> = {
  maxCalls: {
    limits: { maxCalls: 2 },
    code: 'tools.t(1); tools.t(2); tools.t(3); await null;',
    check({ calls, outcome }) {
      assert.equal(calls.length, 2);
      assert.deepEqual(outcome, failed('the script made more than 2 tool calls (limit maxCalls)'));
    },
  },
  maxInFlight: {
    limits: { maxInFlight: 2 },
    code: `const all = await Promise.allSettled([tools.t(1), tools.t(2), tools.t(3)]);
           return all.map((r) => r.status === 'fulfilled' ? 'ok' : r.reason.name + ': ' + r.reason.message);`,
    check({ calls, outcome }) {
      assert.equal(calls.length, 2);
      assert.deepEqual(outcome, { ok: true, json: JSON.stringify(['ok', 'ok', 'RangeError: tools.t: 2 calls are already in flight (limit maxInFlight); await some before starting more']) });
    },
  },
  maxArgsBytes: {
    limits: { maxArgsBytes: 10 },
    code: `return [await tools.t('12345678'), await tools.t('123456789').catch((e) => e.name + ': ' + e.message)];`,
    check({ calls, outcome }) {
      assert.deepEqual(calls.map((c) => c.args), ['"12345678"']);
      assert.deepEqual(outcome, { ok: true, json: JSON.stringify([null, 'RangeError: the arguments of tools.t are 11 bytes, over the 10-byte limit (maxArgsBytes)']) });
    },
  },
  maxInFlightBytes: {
    limits: { maxInFlightBytes: 20 },
    // Two calls of 10 bytes fit; the third is refused; once they are answered, their bytes are free.
    code: `const first = await Promise.allSettled([tools.t('1234567a'), tools.t('1234567b'), tools.t('1234567c')]);
           const later = await tools.t('1234567d');
           return [first.map((r) => r.status === 'fulfilled' ? 'ok' : r.reason.message), later];`,
    check({ calls, outcome }) {
      assert.deepEqual(calls.map((c) => c.args), ['"1234567a"', '"1234567b"', '"1234567d"']);
      assert.deepEqual(outcome, { ok: true, json: JSON.stringify([['ok', 'ok',
        'tools.t: its 10 bytes of arguments would put more than the 20-byte limit (maxInFlightBytes) in flight; await some calls before starting more'], null]) });
    },
  },
  maxLogBytes: {
    limits: { maxLogBytes: 10 },
    code: `try { for (let i = 0; i < 100; i++) console.log('abcd'); } catch {} return 1;`,
    check({ logs, outcome }) {
      assert.equal(logs.length, 2);
      assert.deepEqual(outcome, failed('console output exceeded 10 bytes (limit maxLogBytes)'));
    },
  },
  maxLogEntries: {
    limits: { maxLogEntries: 3 },
    code: `try { for (let i = 0; i < 100; i++) console.log(); } catch {} return 1;`,
    check({ logs, outcome }) {
      assert.equal(logs.length, 3);
      assert.deepEqual(outcome, failed('the script wrote more than 3 log entries (limit maxLogEntries)'));
    },
  },
  maxDepth: {
    limits: { maxDepth: 3 },
    // Arguments reject and a return value fails the run; three levels pass. (Logged values are
    // rendered by the bounded inspector, which never goes deep, so console.* need no depth check.)
    code: `const ok = await tools.t([[[1]]]);
           const args = await tools.t([[[[1]]]]).catch((e) => e.name + ': ' + e.message);
           console.log(args);
           return [[[[ok]]]];`,
    check({ calls, logs, outcome }) {
      assert.deepEqual(calls.map((c) => c.args), ['[[[1]]]']);
      assert.deepEqual(logs.map((l) => l.message), [
        'RangeError: the arguments of tools.t are nested deeper than 3 levels (limit maxDepth)',
      ]);
      assert.deepEqual(outcome, failed('the return value is nested deeper than 3 levels (limit maxDepth)'));
    },
  },
  maxReturnBytes: {
    limits: { maxReturnBytes: 10 },
    code: `return 'x'.repeat(20);`,
    check({ outcome }) {
      assert.deepEqual(outcome, failed('the return value is 22 bytes, over the 10-byte limit (maxReturnBytes)'));
    },
  },
};

for (const engine of ENGINES) {
  describe(`${engine} sandbox process`, () => {
    const host = new Host(engine);
    after(() => host.close());

    for (const [limit, { limits, code, check }] of Object.entries(SCENARIOS)) {
      test(`enforces ${limit} before anything crosses the pipe`, { timeout: 60_000 }, async () => {
        check(await host.run(code, limits));
      });
    }

    test('the defaults let the same scripts through', { timeout: 60_000 }, async () => {
      const crossed = await host.run(SCENARIOS.maxDepth.code, {});
      assert.deepEqual(crossed.outcome, { ok: true, json: '[[[[null]]]]' });
      assert.equal(crossed.calls.length, 2);
    });

    if (engine === 'quickjs') {
      // Under V8 these two are the host's: it sets the process's heap at spawn and kills it at the deadline.
      test('enforces heapMb and the deadline it is given with each run', { timeout: 60_000 }, async () => {
        const oom = await host.run('const a = []; for (;;) a.push("abc" + a.length);', { heapMb: 16 });
        assert.deepEqual(oom.outcome, { ok: false, error: { kind: 'sandbox', message: 'the script ran out of memory (heap limit 16 MiB)' } });
        const late = await host.run('for (;;) {}', { timeoutMs: 100 });
        assert.deepEqual(late.outcome, { ok: false, error: { kind: 'timeout', message: 'the script did not finish within its time limit of 100 ms' } });
      });
    }
  });
}
