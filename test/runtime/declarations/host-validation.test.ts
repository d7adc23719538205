/**
 * Argument validation at the host's refusal site: a schema ajv enforces refuses bad calls
 * with the path of each mistake; a schema it cannot compile leaves its tool usable and is
 * reported once, as an `input-schema` diagnostic, however often the tool is called.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { ToolHost } from '../../../src/host/tool-host.ts';
import { textResult } from '../../../src/host/results.ts';

function hostWith(inputSchema: Record<string, unknown>) {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  let runs = 0;
  host.registerTool({ name: 'act', description: 'Acts', inputSchema, classes: ['notes'], handler: async () => textResult(`run ${++runs}`) });
  const diagnostics: Array<{ code: string; message: string }> = [];
  host.on('diagnostic', (d) => diagnostics.push(d));
  const inferenceId = host.openStream('c').beginInference();
  const call = (input: unknown) => host.dispatch({ inferenceId, name: 'act', input });
  return { host, call, diagnostics, runs: () => runs };
}

describe('argument validation in dispatch', () => {
  it('refuses a call its 2020-12 schema rejects, naming each mistake, and never runs the tool', async () => {
    const { host, call, runs, diagnostics } = hostWith({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { to: { $ref: '#/$defs/Email' }, cc: { type: 'array', items: { $ref: '#/$defs/Email' } } },
      required: ['to'],
      $defs: { Email: { type: 'string', format: 'email' } },
    });
    const bad = await call({ to: 'ann', cc: ['bob@example.org', 3] });
    assert.equal(bad.status, 'refused');
    assert.equal(bad.refusal?.code, 'invalid_arguments');
    assert.equal(bad.refusal?.message, 'Invalid arguments for "act": args.to: expected format "email", got "ann"; args.cc[1]: expected string, got number');
    const good = await call({ to: 'ann@example.org' });
    assert.equal(good.status, 'completed');
    assert.equal(runs(), 1);
    assert.deepEqual(diagnostics, []);
    await host.close();
  });

  it('keeps a tool whose schema cannot be compiled usable, and reports that once', async () => {
    const { host, call, runs, diagnostics } = hostWith({ type: 'object', properties: { a: { $ref: '#/$defs/Missing' } } });
    for (let i = 0; i < 3; i++) assert.equal((await call({ a: i })).status, 'completed');
    assert.equal(runs(), 3);
    assert.equal(diagnostics.length, 1);
    assert.equal(diagnostics[0]!.code, 'input-schema');
    assert.match(diagnostics[0]!.message, /^act: the input schema could not be compiled \(can't resolve reference #\/\$defs\/Missing.*\); arguments are not validated$/);
    await host.close();
  });

  it('reports an unknown format once and still checks the rest of the schema', async () => {
    const { host, call, runs, diagnostics } = hostWith({ type: 'object', properties: { size: { type: 'string', format: 'shoe-size' } } });
    assert.equal((await call({ size: '42' })).status, 'completed');
    assert.equal((await call({ size: 42 })).status, 'refused');
    assert.equal(runs(), 1);
    assert.deepEqual(diagnostics.map((d) => d.message), ['act: unknown format "shoe-size" is not checked']);
    await host.close();
  });
});
