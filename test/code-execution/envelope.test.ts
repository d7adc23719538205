/**
 * The result envelope: in every outcome (ok, script error, timeout, aborted, sandbox, truncated)
 * and in both languages, `structuredContent` and the JSON text are the same object and it
 * validates against the `outputSchema` code_execution declares. The per-execution call budget
 * is refused at the host's refusal site, with no lifecycle event, and the script sees why.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Ajv } from 'ajv';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { registerCodeExecution, type CodeExecution } from '../../src/code-execution/index.ts';
import { RESULT_ENVELOPE_SCHEMA } from '../../src/code-execution/output-schema.ts';
import type { HostLifecycleEvent as LifecycleEvent } from '../../src/lifecycle/events.ts';
import type { ToolResult } from '../../src/host/types.ts';

type Lang = 'javascript' | 'python';

const validators = [new Ajv({ strict: false }).compile(RESULT_ENVELOPE_SCHEMA), new Ajv2020({ strict: false }).compile(RESULT_ENVELOPE_SCHEMA)];

/** Asserts the result is one envelope, in the text and in structuredContent, valid under the declared schema. */
function envelopeOf(result: ToolResult): any {
  const structured = result.structuredContent;
  assert.ok(structured, `no structuredContent: ${JSON.stringify(result)}`);
  assert.equal(result.content.length, 1);
  const text = (result.content[0] as unknown as { text: string }).text;
  assert.deepEqual(JSON.parse(text), structured, 'the JSON text and structuredContent differ');
  for (const validate of validators) assert.ok(validate(structured), `envelope fails the outputSchema: ${JSON.stringify(validate.errors)}\n${text.slice(0, 2000)}`);
  assert.equal(result.isError === true, structured.ok === false);
  return structured;
}

const SCRIPTS: Record<Lang, Record<string, string>> = {
  javascript: {
    ok: `const r = await tools.echo({ n: 1 }); console.log('seen', r.n); return { n: r.n, list: [1, 2] };`,
    script: `await tools.echo({ n: 1 });\nthrow new TypeError('bad thing');`,
    timeout: `while (true) {}`,
    hold: `await tools.hold({}); return 'released';`,
    sandbox: `const keep = []; for (;;) keep.push(new Array(1e6).fill(keep.length));`,
    big: `console.log('x'.repeat(5000)); return Array.from({ length: 5000 }, (_, i) => ({ id: i, name: 'item ' + i }));`,
    budget: `let n = 0, error;
for (let i = 0; i < 10; i++) { try { await tools.echo({ i }); n++; } catch (e) { error = e.name + ': ' + e.message; break; } }
return { n, error };`,
  },
  python: {
    ok: `import sys\nr = await tools.echo({"n": 1})\nprint("seen", r["n"])\nprint("warned", file=sys.stderr)\n{"n": r["n"], "list": [1, 2]}`,
    script: `await tools.echo({"n": 1})\nraise TypeError("bad thing")`,
    timeout: `import time\nwhile True:\n    time.sleep(0.01)`,
    hold: `await tools.hold({})\n"released"`,
    // The interpreter dies under the script (os.kill of its own pid would not do: under the OS
    // layer it is pid 1 of its namespace, which ignores signals from inside).
    sandbox: `import os\nos._exit(9)`,
    big: `print("x" * 5000)\n[{"id": i, "name": "item %d" % i} for i in range(5000)]`,
    budget: `n, error = 0, None
for i in range(10):
    try:
        await tools.echo({"i": i})
        n += 1
    except Exception as e:
        error = type(e).__name__ + ": " + str(e)
        break
{"n": n, "error": error}`,
  },
};

describe('the code_execution result envelope', () => {
  let host: ToolHost;
  let ce: CodeExecution;
  let small: CodeExecution;
  let smallHost: ToolHost;
  const events: LifecycleEvent[] = [];
  const refused: { code: string; name: string }[] = [];
  let release: (() => void) | undefined;
  let holding: (() => void) | undefined;

  const makeHost = () => {
    const h = new ToolHost({ logger: pino({ level: 'silent' }) });
    h.registerTool({ name: 'echo', description: 'Echo', inputSchema: { type: 'object' }, classes: ['shell'], handler: async (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }) });
    h.registerTool({
      name: 'hold',
      description: 'Holds until released',
      inputSchema: { type: 'object' },
      classes: ['shell'],
      handler: () =>
        new Promise((resolve) => {
          release = () => resolve({ content: [{ type: 'text', text: 'released' }] });
          holding?.();
        }),
    });
    return h;
  };

  before(() => {
    host = makeHost();
    host.on('lifecycle', (e) => events.push(e));
    host.on('refused', (r) => refused.push({ code: r.code, name: r.name }));
    ce = registerCodeExecution(host, { maxCallsPerExecution: 3 });
    smallHost = makeHost();
    small = registerCodeExecution(smallHost, { maxResultChars: 4000 });
  });
  after(async () => {
    await ce.close();
    await small.close();
    await host.close();
    await smallHost.close();
  });

  test('code_execution declares the envelope as its outputSchema', () => {
    const listing = host.listTools().find((t) => t.name === 'code_execution')!;
    assert.deepEqual(listing.outputSchema, RESULT_ENVELOPE_SCHEMA);
  });

  const run = async (h: ToolHost, language: Lang, code: string, extra: Record<string, unknown> = {}) => {
    const inferenceId = h.beginInference({ conversationId: `env-${language}` });
    return h.dispatch({ inferenceId, name: 'code_execution', input: { code, language, ...extra } });
  };

  for (const language of ['javascript', 'python'] as const) {
    const S = SCRIPTS[language];
    describe(language, () => {
      test('ok: value, logs or stdout, calls with durations rounded to 0.1 ms', async () => {
        const env = envelopeOf((await run(host, language, S.ok!)).result);
        assert.equal(env.ok, true);
        assert.deepEqual(env.value, { n: 1, list: [1, 2] });
        assert.equal(env.calls.length, 1);
        assert.equal(env.calls[0].name, 'echo');
        assert.equal(Math.round(env.calls[0].durationMs * 10) / 10, env.calls[0].durationMs);
        assert.equal(env.error, undefined);
        if (language === 'javascript') assert.deepEqual(env.logs, [{ level: 'log', message: 'seen 1' }]);
        else {
          assert.equal(env.stdout, 'seen 1\n');
          // stderr folds into logs; no returnCode, no language field.
          assert.deepEqual(env.logs, [{ level: 'error', message: 'warned\n' }]);
          assert.equal('returnCode' in env, false);
        }
        assert.equal('language' in env, false);
      });

      test('script error', async () => {
        const env = envelopeOf((await run(host, language, S.script!)).result);
        assert.equal(env.ok, false);
        assert.equal(env.error.kind, 'script');
        assert.match(env.error.message, /bad thing/);
        assert.equal(env.calls.length, 1);
      });

      test('timeout', async () => {
        const env = envelopeOf((await run(host, language, S.timeout!, { time_limit_ms: 1000 })).result);
        assert.equal(env.error.kind, 'timeout');
        assert.deepEqual(env.timeLimit, { requestedMs: 1000, appliedMs: 1000, capped: false });
      });

      test('aborted (the handler result when its call is aborted mid-run)', async () => {
        // The host answers an aborted call itself; the envelope the handler still returns is
        // what a client with its own signal sees. Call the registered handler directly.
        const tool = host.registry.get('code_execution')!;
        const controller = new AbortController();
        const inferenceId = host.beginInference({ conversationId: `abort-${language}` });
        const held = new Promise<void>((resolve) => (holding = resolve));
        const pending = tool.handler!({ code: S.hold!, language }, {
          signal: controller.signal,
          progress: () => {},
          origin: 'model',
          toolCallId: `abort-parent-${language}`,
          inferenceId,
          conversationId: `abort-${language}`,
        });
        await held;
        controller.abort(new Error('the test aborted it'));
        const env = envelopeOf(await pending);
        release!();
        assert.equal(env.ok, false);
        assert.equal(env.error.kind, 'aborted');
      });

      test('sandbox', async () => {
        const env = envelopeOf((await run(host, language, S.sandbox!)).result);
        assert.equal(env.ok, false);
        assert.equal(env.error.kind, 'sandbox', JSON.stringify(env.error));
      });

      test('truncated: the value keeps its first items as valid JSON, with its length, shape and cut; the text stays within the cap', async () => {
        const result = (await run(smallHost, language, S.big!)).result;
        const env = envelopeOf(result);
        const text = (result.content[0] as unknown as { text: string }).text;
        assert.ok(text.length <= 4000, `text is ${text.length} chars`);
        assert.equal(env.ok, true);
        // The first items, whole and in order, and where the cut was made.
        assert.ok(Array.isArray(env.value) && env.value.length > 0, JSON.stringify(env.value));
        env.value.forEach((item: { id: number }, i: number) => assert.equal(item.id, i));
        assert.deepEqual(env.truncated.value.cuts, [{ path: '$', kept: env.value.length, of: 5000 }]);
        assert.ok(env.truncated.value.chars > 100_000);
        assert.match(env.truncated.value.shape, /^array\(5000\) of \{ "id": number, "name": string\(\d+\) \}$/);
        // The printed or logged 5,000 x's keep a first part, and the cut is marked.
        if (language === 'javascript') {
          assert.ok(env.truncated.logs);
          assert.match(env.logs[0].message, /^x+$/);
        } else {
          assert.equal(env.truncated.stdout.chars, 5001);
          assert.match(env.stdout, /^x+$/);
        }
      });

      test('the call past maxCallsPerExecution is refused at the host (execution_budget, no lifecycle event) and the script sees why', async () => {
        refused.length = 0;
        const before = events.length;
        const outcome = await run(host, language, S.budget!);
        const env = envelopeOf(outcome.result);
        assert.equal(env.ok, true, JSON.stringify(env));
        assert.equal(env.value.n, 3);
        assert.match(env.value.error, /^ToolError: The call budget of 3 calls per execution is spent; "echo" was not run/);
        assert.deepEqual(refused, [{ code: 'execution_budget', name: 'echo' }]);
        const started = events.slice(before).filter((e) => e.phase === 'started' && e.tool === 'echo');
        assert.equal(started.length, 3, 'the refused call opened nothing');
        // A new execution has its own budget.
        const again = envelopeOf((await run(host, language, S.budget!)).result);
        assert.equal(again.value.n, 3);
      });
    });
  }

  test('the execution budget counts with the per-inference budget', async () => {
    const h = makeHost();
    const c = registerCodeExecution(h, { maxCallsPerExecution: 50 });
    const capped = new ToolHost({ logger: pino({ level: 'silent' }), callsPerInference: 4 });
    capped.registerTool({ name: 'echo', description: 'Echo', inputSchema: { type: 'object' }, classes: ['shell'], handler: async () => ({ content: [{ type: 'text', text: '1' }] }) });
    const c2 = registerCodeExecution(capped, { maxCallsPerExecution: 50 });
    try {
      const inferenceId = capped.beginInference({ conversationId: 'both' });
      const outcome = await capped.dispatch({ inferenceId, name: 'code_execution', input: { code: SCRIPTS.javascript.budget } });
      const env = envelopeOf(outcome.result);
      // code_execution itself is one of the inference's 4 calls, so its script opens 3.
      assert.equal(env.value.n, 3);
      assert.match(env.value.error, /budget of 4 calls for this inference/);
    } finally {
      await c.close();
      await c2.close();
      await h.close();
      await capped.close();
    }
  });
});
