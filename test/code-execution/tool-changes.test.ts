/**
 * Issue 13: a script's bindings are planned once per registry version and kept by the sandbox
 * between runs — and still follow the registry exactly. A tool registered between two runs of
 * one conversation is callable in the next, one removed is not (in each engine and in Python),
 * the conversation's session survives the change, and while nothing changes the binding plan
 * is not sent again.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import { registerCodeExecution, type CodeExecution, type ResultEnvelope } from '../../src/code-execution/index.ts';

function builtin(host: ToolHost, name: string): void {
  host.registerTool({ name, description: `The ${name} tool`, inputSchema: { type: 'object' }, classes: ['files'], handler: async () => textResult(`${name} ran`) });
}

interface Lane {
  name: string;
  setup(host: ToolHost): CodeExecution;
  language: 'javascript' | 'python';
  /** Calls `tool`; remembers `value` in the session; returns [the tool's answer, what the session remembered]. */
  callAndRemember(tool: string, value: number): string;
  /** True when the script sees `tool` among its tools. */
  has(tool: string): string;
  /** Whether the session kept state across runs (V8 runs always start fresh). */
  keepsSession: boolean;
  /** How many times this conversation's runs sent the binding plan to their sandbox or interpreter. */
  sent(ce: CodeExecution): Promise<number>;
}

const LANES: Lane[] = [
  ...(['quickjs', 'v8'] as const).map((engine) => ({
    name: `JavaScript (${engine})`,
    setup: (host: ToolHost) => registerCodeExecution(host, { languages: ['javascript'], engine }),
    language: 'javascript' as const,
    callAndRemember: (tool: string, value: number) =>
      `const previous = globalThis.remembered ?? null; globalThis.remembered = ${value}; return [await tools.${tool}({}), previous];`,
    has: (tool: string) => `return Object.keys(tools).includes(${JSON.stringify(tool)}) && ${JSON.stringify(tool)} in tools;`,
    keepsSession: engine === 'quickjs',
    sent: async (ce: CodeExecution) => (await ce.runners.javascript()).stats().catalogsSent,
  })),
  {
    name: 'Python',
    setup: (host: ToolHost) => registerCodeExecution(host, { languages: ['python'] }),
    language: 'python',
    callAndRemember: (tool: string, value: number) =>
      `previous = globals().get("remembered")\nremembered = ${value}\n[await tools.${tool}({}), previous]`,
    has: (tool: string) => `${JSON.stringify(tool)} in tools and ${JSON.stringify(tool)} in dir(tools)`,
    keepsSession: true,
    sent: async (ce: CodeExecution) => ce.runners.pythonFor('c').toolTablesSent,
  },
];

describe('tools registered and removed between runs of one conversation', () => {
  for (const lane of LANES) {
    test(`${lane.name}: the next run sees the change; unchanged runs are not sent the plan again`, async () => {
      const host = new ToolHost({ logger: pino({ level: 'silent' }) });
      builtin(host, 'alpha');
      const ce = lane.setup(host);
      const inferenceId = host.beginInference({ conversationId: 'c' });
      const run = async (code: string): Promise<ResultEnvelope> => {
        const outcome = await host.dispatch({ inferenceId, name: 'code_execution', input: { code, language: lane.language } });
        assert.equal(outcome.status, 'completed');
        return outcome.result.structuredContent as unknown as ResultEnvelope;
      };
      try {
        let r = await run(lane.callAndRemember('alpha', 1));
        assert.ok(r.ok, JSON.stringify(r.error));
        assert.deepEqual(r.value, ['alpha ran', null]);
        r = await run(lane.callAndRemember('alpha', 2));
        assert.deepEqual(r.value, ['alpha ran', lane.keepsSession ? 1 : null]);
        assert.equal(await lane.sent(ce), 1, 'a second run with the same tools is not sent the plan again');

        builtin(host, 'beta');
        r = await run(lane.callAndRemember('beta', 3));
        assert.ok(r.ok, `a tool registered between runs is callable in the next: ${JSON.stringify(r.error)}`);
        assert.deepEqual(r.value, ['beta ran', lane.keepsSession ? 2 : null], 'the session survives the change of tools');
        assert.equal((await run(lane.has('beta'))).value, true);
        assert.equal(await lane.sent(ce), 2, 'the changed plan is sent once');

        assert.ok(host.registry.removeHostTool('alpha'));
        assert.equal((await run(lane.has('alpha'))).value, false, 'a removed tool is no longer among the tools');
        r = await run(lane.callAndRemember('alpha', 4));
        assert.equal(r.ok, false, 'a tool removed between runs is not callable in the next');
        assert.match(r.error!.message, /alpha/);
        assert.match(r.error!.message, /not a tool|No tool named/);
        assert.equal((await run(lane.callAndRemember('beta', 5))).ok, true, 'the remaining tool still works');
        assert.equal(await lane.sent(ce), 3);
      } finally {
        await ce.close();
        await host.close();
      }
    });
  }
});
