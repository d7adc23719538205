/**
 * The pure pieces under the runtime: frames, message validation, binding plans, limits, the
 * pausable deadline, and the suggestion ranking the sandbox process repeats from names.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { closestTools } from '../../../src/runtime/js/sandbox/closest.mjs';
import { encodeFrame, FrameDecoder, FrameError } from '../../../src/runtime/js/sandbox/frames.mjs';
import { planBindings } from '../../../src/runtime/js/bindings.ts';
import { PausableDeadline } from '../../../src/runtime/js/clock.ts';
import { DEFAULT_LIMITS, resolveLimits } from '../../../src/runtime/js/limits.ts';
import { parseChildMessage, routeChildMessage } from '../../../src/runtime/js/protocol.ts';
import { closestNames, sanitizeToolName } from '../../../src/runtime/names.ts';
import { tool } from './helpers.ts';

describe('frames', () => {
  test('round-trip a header and raw payloads, whatever the chunking', () => {
    const payloads = ['{"a":"é 😀"}', '', 'x'.repeat(70_000), '"quoted" \\ back\nslash'];
    const bytes = Buffer.concat([encodeFrame({ t: 'out', n: [1, 2] }, payloads), encodeFrame({ t: 'idle', run: 3 }, [])]);
    for (const size of [1, 7, 4096, bytes.length]) {
      const decoder = new FrameDecoder(1 << 20);
      const frames = [];
      for (let at = 0; at < bytes.length; at += size) {
        decoder.push(Buffer.from(bytes.subarray(at, at + size)));
        for (let f = decoder.next(); f !== null; f = decoder.next()) frames.push(f);
      }
      assert.deepEqual(frames, [
        { header: { t: 'out', n: [1, 2] }, payloads },
        { header: { t: 'idle', run: 3 }, payloads: [] },
      ]);
    }
  });

  test('reject oversize and inconsistent frames', () => {
    const big = new FrameDecoder(100);
    big.push(encodeFrame({ t: 'x' }, ['y'.repeat(200)]));
    assert.throws(() => big.next(), FrameError);
    const lying = encodeFrame({ t: 'x' }, ['abc']);
    lying.writeUInt32LE(99, 12); // payload length beyond the frame
    const decoder = new FrameDecoder(1 << 20);
    decoder.push(lying);
    assert.throws(() => decoder.next(), /overruns/);
    const notJson = encodeFrame({ t: 'x' }, []);
    notJson.write('!', 12);
    const d2 = new FrameDecoder(1 << 20);
    d2.push(notJson);
    assert.throws(() => d2.next(), /not JSON/);
  });
});

describe('messages from a sandbox process', () => {
  test('well-formed messages are typed', () => {
    assert.deepEqual(parseChildMessage({ t: 'out', run: 1, c: [1, 0, 'echo', 2, 1, 'img'], l: ['warn'] }, ['{}', '', 'careful']), {
      t: 'out',
      run: 1,
      calls: [
        { id: 1, global: false, name: 'echo', args: '{}' },
        { id: 2, global: true, name: 'img', args: '' },
      ],
      logs: [{ level: 'warn', message: 'careful' }],
    });
    assert.deepEqual(parseChildMessage({ t: 'done', run: 2, ok: true }, ['[1]']), { t: 'done', run: 2, ok: true, json: '[1]' });
    assert.deepEqual(parseChildMessage({ t: 'done', run: 2, ok: false, error: { kind: 'script', name: 'E', message: 'm' } }, []), {
      t: 'done',
      run: 2,
      ok: false,
      error: { kind: 'script', name: 'E', message: 'm' },
    });
  });

  test('anything else is invalid, with a reason', () => {
    const bad: Array<[unknown, string[]]> = [
      [null, []],
      [[], []],
      [{ t: 'nope' }, []],
      [{ t: 'out', run: 0, c: [], l: [] }, []],
      [{ t: 'out', run: 1, c: [1, 0], l: [] }, []],
      [{ t: 'out', run: 1, c: [1, 0, 'a'], l: [] }, []],
      [{ t: 'out', run: 1, c: [1.5, 0, 'a'], l: [] }, ['{}']],
      [{ t: 'out', run: 1, c: [], l: ['trace'] }, ['x']],
      [{ t: 'done', run: 1, ok: true }, []],
      [{ t: 'done', run: 1, ok: false, error: { kind: 'aborted', message: 'm' } }, []],
      [{ t: 'done', run: 1, ok: false, error: { kind: 'script', message: 1 } }, []],
      [{ t: 'done', run: 1, ok: false, error: { kind: 'script', message: 'm', stack: 3 } }, []],
      [{ t: 'idle' }, []],
      [{ t: 'fatal' }, []],
      [{ t: 'ready' }, ['x']],
    ];
    for (const [header, payloads] of bad) {
      const message = parseChildMessage(header, payloads);
      assert.equal(message.t, 'invalid', JSON.stringify(header));
      assert.ok('reason' in message && message.reason.length > 0);
    }
  });
});

describe('binding plans', () => {
  test('carry labels, identifiers, aliases, collisions, nested paths and globals', () => {
    const global = (name: string) => ({ name, kind: 'global' as const, invoke: async () => 1 });
    const plan = planBindings([tool('x--run'), tool('plain'), tool('a.b'), tool('a+b'), tool('a-b'), tool('c.d-e'), global('image'), global('m.get-one'), global('m')]);
    assert.deepEqual(JSON.parse(plan.config), {
      tools: [
        ['x--run', 'tools["x--run"]', 'x__run'],
        ['plain', 'tools.plain', 'plain'],
        ['a.b', 'tools["a.b"]', 'a.b'],
        ['a+b', 'tools["a+b"]', 'a_b'],
        ['a-b', 'tools["a-b"]', 'a_b'],
        ['c.d-e', 'tools["c.d-e"]', 'c.d_e'],
      ],
      aliases: [['x__run', 'x--run']],
      nested: [['a.b', 'a.b'], ['c.d_e', 'c.d-e']],
      collisions: [['a_b', ['a+b', 'a-b']]],
      globals: [['image', ['image'], 0], ['m', ['m'], 0], ['m.get-one', ['m', 'get_one'], 0]],
    });
    assert.deepEqual([...plan.tools.keys()], ['x--run', 'plain', 'a.b', 'a+b', 'a-b', 'c.d-e']);
    assert.deepEqual([...plan.globals.keys()], ['image', 'm.get-one', 'm']);
  });

  test('refuse globals that would shadow a built-in, use a reserved word, or share a path', () => {
    const global = (name: string) => ({ name, kind: 'global' as const, invoke: async () => 1 });
    assert.throws(() => planBindings([global('Math.max')]), /would shadow the built-in Math/);
    assert.throws(() => planBindings([global('delete.x')]), /reserved word delete/);
    assert.throws(() => planBindings([global('m.a-b'), global('m.a_b')]), /globals "m.a-b" and "m.a_b" would both be reached as m.a_b/);
    assert.throws(() => planBindings([{ ...global('m'), signature: 42 }]), /signature must be a string or/);
  });

  test('a tool and a global may share a name: they live in different places', () => {
    const plan = planBindings([tool('image'), { name: 'image', kind: 'global', invoke: async () => 1 }]);
    assert.equal(plan.tools.size + plan.globals.size, 2);
  });
});

describe('limits', () => {
  test('later layers win; Infinity disables the timeout', () => {
    const limits = resolveLimits({ limits: { maxCalls: 5 }, where: 'a' }, { limits: { maxCalls: 7, timeoutMs: Infinity }, where: 'b' });
    assert.deepEqual(limits, { ...DEFAULT_LIMITS, maxCalls: 7, timeoutMs: Infinity });
  });
});

describe('the pausable deadline', () => {
  test('expires after its time when never paused', async () => {
    const started = performance.now();
    await new Promise<void>((resolve) => new PausableDeadline(30, resolve).start());
    assert.ok(performance.now() - started >= 29);
  });

  test('does not run while paused, and keeps the time used before the pause', (t) => {
    // A hand-moved clock and mocked timers: the assertion is about arithmetic, not a loaded machine.
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let clock = 0;
    const advance = (ms: number) => {
      clock += ms;
      t.mock.timers.tick(ms);
    };
    let expired = false;
    const deadline = new PausableDeadline(300, () => (expired = true), () => clock);
    deadline.start();
    advance(150);
    const resume = deadline.pause();
    assert.equal(deadline.paused, true);
    advance(1_000);
    assert.equal(expired, false, 'expired while paused');
    resume();
    advance(149);
    assert.equal(expired, false, 'expired before the 150 ms left after the pause');
    advance(1);
    assert.equal(expired, true, 'did not expire once the 150 ms left had passed');
  });

  test('stop() prevents expiry; an infinite deadline never arms', async () => {
    let expired = false;
    const stopped = new PausableDeadline(10, () => (expired = true));
    stopped.start();
    stopped.stop();
    const never = new PausableDeadline(Infinity, () => (expired = true));
    never.start();
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.equal(expired, false);
  });
});

describe('suggestions in the sandbox process', () => {
  test('rank tools as closestNames in names.ts does', () => {
    const names = ['search_issues', 'search_code', 'get_issue', 'create_issue', 'x--run', 'list', 'List', 'a.b', 'ab'];
    const tools = names.map((n) => [n, n, sanitizeToolName(n)] as [string, string, string]);
    for (const wanted of ['searchIssues', 'get_isue', 'x_run', 'lst', 'AB', '', 'zzzzzzzz', 'create-issue']) {
      assert.deepEqual(closestTools(wanted, tools).map((t) => t.name), closestNames(wanted, names), wanted);
    }
  });
});

describe('routeChildMessage: the order both sandbox kinds must keep', () => {
  const ready = { t: 'ready' } as const;
  const idle = parseChildMessage({ t: 'idle', run: 1 }, []);
  test('one ready first, then messages go to the listening run', () => {
    assert.deepEqual(routeChildMessage(ready, { ready: false, listening: false }, 'x'), { do: 'ready' });
    assert.deepEqual(routeChildMessage(idle, { ready: true, listening: true }, 'x'), { do: 'deliver', message: idle });
  });
  test('a second ready, a message before ready, fatal, a message while idle and an invalid frame break the bridge', () => {
    assert.deepEqual(routeChildMessage(ready, { ready: true, listening: false }, 'sandbox thread'), { do: 'break', reason: 'the sandbox thread announced itself twice' });
    assert.deepEqual(routeChildMessage(idle, { ready: false, listening: true }, 'x'), { do: 'break', reason: 'idle before ready' });
    assert.deepEqual(routeChildMessage({ t: 'fatal', message: 'boom' }, { ready: true, listening: true }, 'sandbox process'), { do: 'break', reason: 'the sandbox process failed: boom' });
    assert.deepEqual(routeChildMessage(idle, { ready: true, listening: false }, 'x'), { do: 'break', reason: 'unexpected idle while idle' });
    assert.deepEqual(routeChildMessage({ t: 'invalid', reason: 'bad' }, { ready: true, listening: true }, 'x'), { do: 'break', reason: 'bad' });
  });
});

describe('parked sessions (QuickJS threads)', () => {
  const session = (over: Record<string, unknown> = {}) => ({
    size: 3 * 4096, blocks: Int32Array.from([0, 2]), data: new Uint8Array(2 * 4096),
    stackPointer: 100, runtimePtr: 200, contextPtr: 300, catalog: 7, ...over,
  });
  const parse = (attachment: unknown, header: Record<string, unknown> = { t: 'parked', conv: 'c' }) => parseChildMessage(header, [], attachment);
  const reason = (attachment: unknown) => {
    const m = parse(attachment);
    return m.t === 'invalid' ? m.reason : 'accepted';
  };

  test('a well-formed image is accepted; no image means nothing was kept', () => {
    const ok = parse(session());
    assert.equal(ok.t, 'parked');
    assert.equal((ok as { session: unknown }).session !== null, true);
    assert.deepEqual(parse(undefined), { t: 'parked', conv: 'c', session: null });
  });

  test('an image the host could not restore faithfully is refused, naming why', () => {
    assert.match(reason(session({ size: 4097 })), /malformed size/);
    assert.match(reason(session({ size: 2 ** 33 })), /malformed size/);
    assert.match(reason(session({ data: new Uint8Array(4096) })), /without a memory image/);
    assert.match(reason(session({ blocks: [0, 2] })), /without a memory image/);
    assert.match(reason(session({ blocks: Int32Array.from([2, 0]) })), /block outside its memory/);
    assert.match(reason(session({ blocks: Int32Array.from([0, 3]) })), /block outside its memory/);
    assert.match(reason(session({ stackPointer: 3 * 4096 })), /pointer outside its memory/);
    assert.match(reason(session({ contextPtr: -1 })), /pointer outside its memory/);
    assert.match(reason(session({ catalog: 'x' })), /malformed catalog/);
    assert.match(reason('not an object'), /not an object/);
  });

  test('only a parked message may carry an attachment', () => {
    const m = parseChildMessage({ t: 'idle', run: 1 }, [], session());
    assert.deepEqual(m, { t: 'invalid', reason: 'idle carries an attachment' });
    assert.equal(parse(session(), { t: 'parked', conv: '' }).t, 'invalid');
  });

  test("the removed inline placement's messages are unknown", () => {
    assert.equal(parseChildMessage({ t: 'held', ms: 30, conv: 'c' }, []).t, 'invalid');
    assert.equal(parseChildMessage({ t: 'overran', run: 4, sent: 2, held: 21 }, []).t, 'invalid');
  });
});
