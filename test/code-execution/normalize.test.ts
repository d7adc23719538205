/**
 * Scripts as models write them, run end to end through a real ToolHost and code_execution:
 * each normalization makes the script run and is named in the envelope's `normalized`; a
 * script that needs none runs as written and the envelope has no `normalized`. JavaScript cases
 * run in both engines.
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
  { name: 'lone async arrow', language: 'javascript', code: 'async () => {\n  const u = await tools.get_user({ id: 4 });\n  return u.name;\n}', value: 'Ada', normalized: ['function'] },
  { name: 'lone arrow with an expression body and a semicolon', language: 'javascript', code: 'async () => (await tools.get_user({ id: 5 })).name;', value: 'Ada', normalized: ['function'] },
  { name: 'parenthesized lone function expression', language: 'javascript', code: '(async function () {\n  return (await tools.get_user({ id: 6 })).name;\n})', value: 'Ada', normalized: ['function'] },
  { name: 'lone async function main', language: 'javascript', code: '// fetch the user\nasync function main() {\n  const u = await tools.get_user({ id: 7 });\n  return u.name;\n}\n', value: 'Ada', normalized: ['function'] },
  { name: 'fenced lone arrow', language: 'javascript', code: '```js\nasync () => {\n  return (await tools.get_user({ id: 8 })).name;\n}\n```', value: 'Ada', normalized: ['fence', 'function'] },
  { name: 'main declared and called by the script: untouched', language: 'javascript', code: 'async function main() { return (await tools.get_user({ id: 9 })).name; }\nreturn await main();', value: 'Ada' },
  { name: 'a lone function not named main: untouched', language: 'javascript', code: 'async function helper() { return 1; }', value: undefined },
  { name: 'prose before and after a ```typescript fence', language: 'javascript', code: 'Here is the script:\n\n```typescript\nconst u: { name: string } = await tools.get_user({ id: 10 });\nreturn u.name;\n```\n\nIt returns the name.', value: 'Ada', normalized: ['fence', 'typescript'] },
  { name: 'code that parses with a fenced example in a comment: untouched', language: 'javascript', code: '/* usage:\n```js\nexample()\n```\n*/\nreturn 18;', value: 18 },
  { name: '```python fence', language: 'python', code: '```python\nu = await tools.get_user({"id": 1})\nu["name"]\n```', value: 'Ada', normalized: ['fence'] },
  { name: 'unfenced Python', language: 'python', code: 'u = await tools.get_user({"id": 1})\nu["name"]', value: 'Ada' },
];

for (const engine of ['quickjs', 'v8'] as const) describe(`code_execution normalizes model-written scripts (${engine})`, () => {
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
    codeExecution = registerCodeExecution(host, { engine });
  });
  after(async () => {
    await codeExecution.close();
    await host.close();
  });

  test('an error inside a called lone function names the line the model wrote', async () => {
    const stream = host.openStream(`norm-${engine}-line`);
    const inferenceId = stream.beginInference();
    const code = '```js\nasync () => {\n  const u = await tools.get_user({ id: 1 });\n  throw new Error(`no ${u.name}`);\n}\n```';
    const outcome = await host.dispatch({ inferenceId, name: 'code_execution', input: { code } });
    stream.end('turn complete');
    const envelope = outcome.result?.structuredContent as any;
    assert.equal(envelope?.ok, false, JSON.stringify(outcome.result));
    assert.match(envelope.error.message, /no Ada/);
    // Thrown errors carry their position in the stack (the envelope's line is for syntax errors).
    assert.match(envelope.error.stack, /script\.js:4:/, JSON.stringify(envelope.error));
    assert.deepEqual(envelope.normalized, ['fence', 'function']);
  });

  // Python does not depend on the JavaScript engine: run once.
  for (const c of CASES.filter((c) => c.language === 'javascript' || engine === 'quickjs')) {
    test(`${c.language}: ${c.name}`, async () => {
      const stream = host.openStream(`norm-${engine}-${c.language}-${c.name}`);
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
