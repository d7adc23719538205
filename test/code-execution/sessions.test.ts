/**
 * Script sessions end to end (issue 10), JavaScript (QuickJS, the default engine) and Python,
 * through registerCodeExecution on a real host: what one run leaves is read by the next run of
 * the same conversation, never by another; `reset` clears it; `session.fresh` is true exactly
 * when the run started in a new session (first run, reset, a time-limit kill, idle reclaim);
 * `inspect` describes a large result's shape within its bound; `print` reaches `stdout`.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import { registerCodeExecution, type CodeExecutionOptions } from '../../src/code-execution/index.ts';
import { waitUntil } from '../helpers/peers.ts';

type Lang = 'javascript' | 'python';

/** A large nested result: 20,000 records of about 300 characters each (about 6 MB of JSON). */
function bigResult() {
  return {
    total: 20_000,
    items: Array.from({ length: 20_000 }, (_, i) => ({
      id: i,
      title: `item ${i}`,
      body: 'lorem ipsum '.repeat(20),
      tags: ['a', 'b', 'c'],
      owner: { name: `user${i % 50}`, address: { city: 'Paris', zip: '75001' } },
    })),
    next: null,
  };
}

function rig(options: CodeExecutionOptions = {}) {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  host.registerTool({
    name: 'big',
    description: 'Returns a large nested result',
    inputSchema: { type: 'object' },
    classes: ['memory'],
    handler: async () => ({ content: [{ type: 'text', text: 'big' }], structuredContent: bigResult() }),
  });
  host.registerTool({
    name: 'ping',
    description: 'Answers pong',
    inputSchema: { type: 'object' },
    classes: ['memory'],
    handler: async () => textResult('pong'),
  });
  const ce = registerCodeExecution(host, options);
  /** One code_execution call in `conversation`; resolves with its structured result. */
  const run = async (conversation: string, language: Lang, code: string, extra: Record<string, unknown> = {}) => {
    const stream = host.openStream(conversation);
    const outcome = await host.dispatch({ inferenceId: stream.beginInference(), name: 'code_execution', input: { code, language, ...extra } });
    stream.end();
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome.result));
    return outcome.result.structuredContent as any;
  };
  return {
    host,
    ce,
    run,
    async close() {
      await ce.close();
      await host.close();
    },
  };
}

const SET: Record<Lang, string> = { javascript: 'counter = 41; return counter;', python: 'counter = 41\ncounter' };
const READ: Record<Lang, string> = {
  javascript: 'return typeof counter === "undefined" ? "gone" : counter + 1;',
  python: '"gone" if "counter" not in globals() else counter + 1',
};
/** Runs past any time limit; the Python one also survives the interrupt, so its interpreter is killed. */
const SPIN: Record<Lang, string> = {
  javascript: 'counter = 99; while (true) {}',
  python: 'counter = 99\nwhile True:\n    try:\n        while True:\n            pass\n    except KeyboardInterrupt:\n        pass',
};

for (const language of ['javascript', 'python'] as const) {
  describe(`${language} sessions`, () => {
    const r = rig({ python: { interruptGraceMs: 50, killGraceMs: 300 } });
    after(() => r.close());

    test('a binding set in one call is read by the next; fresh only on the first', async () => {
      const first = await r.run('conv-a', language, SET[language]);
      assert.equal(first.value, 41);
      assert.deepEqual(first.session, { fresh: true });
      const second = await r.run('conv-a', language, READ[language]);
      assert.equal(second.value, 42);
      assert.deepEqual(second.session, { fresh: false });
    });

    test('another conversation never sees it', async () => {
      await r.run('conv-b', language, SET[language]);
      const other = await r.run('conv-c', language, READ[language]);
      assert.equal(other.value, 'gone');
      assert.deepEqual(other.session, { fresh: true });
      // And the owner still has it: the other conversation's run did not disturb it.
      assert.equal((await r.run('conv-b', language, READ[language])).value, 42);
    });

    test('reset starts a fresh session before running', async () => {
      await r.run('conv-d', language, SET[language]);
      const reset = await r.run('conv-d', language, READ[language], { reset: true });
      assert.equal(reset.value, 'gone');
      assert.deepEqual(reset.session, { fresh: true });
      const after = await r.run('conv-d', language, READ[language]);
      assert.deepEqual(after.session, { fresh: false });
    });

    test('after a time-limit kill the next run is fresh and says so', async () => {
      await r.run('conv-e', language, SET[language]);
      const spun = await r.run('conv-e', language, SPIN[language], { time_limit_ms: 1000 });
      assert.equal(spun.ok, false);
      assert.equal(spun.error.kind, 'timeout');
      assert.deepEqual(spun.session, { fresh: false }, 'the spinning run itself started in the session');
      const next = await r.run('conv-e', language, READ[language]);
      assert.equal(next.value, 'gone');
      assert.deepEqual(next.session, { fresh: true });
    });

    test('inspect describes a large nested result within its bound', async () => {
      const code = language === 'javascript'
        ? 'const r = await tools.big({}); return inspect(r);'
        : 'r = await tools.big({})\ninspect(r)';
      const result = await r.run('conv-f', language, code);
      const shape = result.value as string;
      assert.equal(typeof shape, 'string');
      assert.ok(shape.length <= 2_000, `inspect returned ${shape.length} characters`);
      // The shape names the top-level keys, the list's length, a sample record's keys and a long string's length.
      for (const part of ['total', 'items', '20000', 'owner', 'address', 'tags', '240', 'next']) {
        assert.ok(shape.includes(part), `${part} missing from ${shape}`);
      }
      assert.ok(!shape.includes('item 1,') && !shape.includes("'item 1'"), 'only one sample record is described');
      assert.deepEqual(result.calls.map((c: { name: string }) => c.name), ['big'], 'inspect is not a tool call');
    });

    test('print reaches stdout; console/logs stay apart', async () => {
      const code = language === 'javascript'
        ? 'print("hello", { n: 1 }); console.log("a log"); print(2); return 0;'
        : 'print("hello", {"n": 1})\nprint(2)\n0';
      const result = await r.run('conv-g', language, code);
      assert.equal(result.stdout, language === 'javascript' ? "hello { n: 1 }\n2\n" : "hello {'n': 1}\n2\n");
      if (language === 'javascript') assert.deepEqual(result.logs, [{ level: 'log', message: 'a log' }]);
      assert.deepEqual(result.calls, []);
    });
  });

  test(`${language}: an idle session is reclaimed (sessionIdleMs) and the next run says fresh`, async () => {
    const r = rig({ sessionIdleMs: 300 });
    try {
      await r.run('idle', language, SET[language]);
      if (language === 'javascript') {
        const js = await r.ce.runners.javascript();
        await waitUntil(() => js.stats().conversations === 0, 'the idle VM reclaimed');
      } else {
        const py = r.ce.runners.pythonFor('idle');
        await waitUntil(() => py.state === 'cold', 'the idle interpreter reclaimed');
      }
      const next = await r.run('idle', language, READ[language]);
      assert.equal(next.value, 'gone');
      assert.deepEqual(next.session, { fresh: true });
    } finally {
      await r.close();
    }
  });
}

test('QuickJS on threads (jsThreads): a session persists between runs through code_execution', async () => {
  const r = rig({ jsThreads: true, languages: ['javascript'] });
  try {
    const first = await r.run('threads', 'javascript', SET.javascript);
    assert.equal(first.value, 41);
    const next = await r.run('threads', 'javascript', READ.javascript);
    assert.equal(next.value, 42);
    assert.deepEqual(next.session, { fresh: false });
  } finally {
    await r.close();
  }
});

test('V8 engine: every run is a fresh session, and the result says so', async () => {
  const r = rig({ engine: 'v8', languages: ['javascript'] });
  try {
    await r.run('v8', 'javascript', SET.javascript);
    const next = await r.run('v8', 'javascript', READ.javascript);
    assert.equal(next.value, 'gone');
    assert.deepEqual(next.session, { fresh: true });
  } finally {
    await r.close();
  }
});
