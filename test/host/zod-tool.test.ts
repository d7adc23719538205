/**
 * Built-ins declared with a zod 4 schema: the listing shows the JSON Schema the zod schema
 * converts to, the host's argument check refuses what it does not allow, and the handler gets
 * the parsed, typed output (defaults applied).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { ToolHost, textResult, resultText } from '../../src/index.ts';

test('a zod inputSchema is listed as JSON Schema, checked, and parsed into typed args', async () => {
  const host = new ToolHost();
  host.registerTool({
    name: 'greet',
    description: 'Greets',
    inputSchema: z.object({ name: z.string(), times: z.number().int().default(2) }),
    // `times` is a number here, not unknown: typed from the schema (a type error otherwise).
    handler: async ({ name, times }) => textResult(Array.from({ length: times }, () => `hi ${name}`).join(' ')),
  });
  const listed = host.listTools().find((t) => t.name === 'greet')!;
  assert.equal((listed.inputSchema as { type?: string }).type, 'object');
  assert.deepEqual((listed.inputSchema as { required?: string[] }).required, ['name']);
  assert.equal('$schema' in listed.inputSchema, false);

  const stream = host.openStream('c');
  const ok = await host.dispatch({ inferenceId: stream.beginInference(), name: 'greet', input: { name: 'Ada' } });
  assert.equal(ok.status, 'completed');
  assert.equal(resultText(ok.result), 'hi Ada hi Ada', 'the default of `times` was applied by the parse');

  const bad = await host.dispatch({ inferenceId: stream.beginInference(), name: 'greet', input: { name: 3 } });
  assert.notEqual(bad.status, 'completed');
  assert.match(resultText(bad.result), /name/);
  await host.close();
});

test('a zod schema that is not an object is refused at registration', () => {
  const host = new ToolHost();
  assert.throws(() => host.registerTool({ name: 'n', description: 'd', inputSchema: z.string(), handler: async () => textResult('') }), /must describe an object/);
});
