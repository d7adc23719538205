/**
 * Scripts as models write them, run end to end through a real ToolHost and code_execution:
 * each normalization makes the script run and is named in the envelope's `normalized`; a
 * script that needs none runs as written and the envelope has no `normalized`.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Ajv } from 'ajv';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { registerCodeExecution, type CodeExecution } from '../../src/code-execution/index.ts';
import { RESULT_ENVELOPE_SCHEMA } from '../../src/code-execution/output-schema.ts';

const validators = [new Ajv({ strict: false }).compile(RESULT_ENVELOPE_SCHEMA), new Ajv2020({ strict: false }).compile(RESULT_ENVELOPE_SCHEMA)];

type Lang = 'javascript' | 'python';
interface Case {
  name: string;
  language: Lang;
  code: string;
  value: unknown;
  normalized?: string[];
}

const CASES: Case[] = [
  { name: '```js fence', language: 'javascript', code: '```js\nconst u = await tools.get_user({ id: 1 });\nreturn u.name;\n```', value: 'Ada', normalized: ['fence'] },
  { name: 'bare ``` fence', language: 'javascript', code: '```\nreturn (await tools.get_user({ id: 2 })).name;\n```\n', value: 'Ada', normalized: ['fence'] },
  { name: 'unfenced JavaScript', language: 'javascript', code: 'return (await tools.get_user({ id: 3 })).name;', value: 'Ada' },
  { name: '```python fence', language: 'python', code: '```python\nu = await tools.get_user({"id": 1})\nu["name"]\n```', value: 'Ada', normalized: ['fence'] },
  { name: 'unfenced Python', language: 'python', code: 'u = await tools.get_user({"id": 1})\nu["name"]', value: 'Ada' },
];

describe('code_execution normalizes model-written scripts', () => {
  let host: ToolHost;
  let codeExecution: CodeExecution;
  before(() => {
    host = new ToolHost({ logger: pino({ level: 'silent' }) });
    host.registerTool({
      name: 'get_user',
      description: 'A user by id.',
      inputSchema: { type: 'object', properties: { id: { type: 'integer' } } },
      handler: async (input) => ({ content: [{ type: 'text', text: JSON.stringify({ id: input.id, name: 'Ada' }) }], structuredContent: { id: input.id, name: 'Ada' } }),
    });
    codeExecution = registerCodeExecution(host);
  });
  after(async () => {
    await codeExecution.close();
    await host.close();
  });

  for (const c of CASES) {
    test(`${c.language}: ${c.name}`, async () => {
      const stream = host.openStream(`norm-${c.language}-${c.name}`);
      const inferenceId = stream.beginInference();
      const outcome = await host.dispatch({ inferenceId, name: 'code_execution', input: { code: c.code, language: c.language } });
      stream.end('turn complete');
      const envelope = outcome.result?.structuredContent as any;
      assert.equal(envelope?.ok, true, JSON.stringify(outcome.result));
      assert.equal(envelope.value, c.value);
      assert.deepEqual(envelope.normalized, c.normalized);
      if (c.normalized === undefined) assert.ok(!('normalized' in envelope), 'no normalized key when nothing changed');
      for (const validate of validators) assert.ok(validate(envelope), `envelope fails the outputSchema: ${JSON.stringify(validate.errors)}`);
    });
  }
});
