/**
 * SEP-2243's rules for a tool's `x-mcp-header` marks (paramHeaderProblem): a 2026 server's tool
 * breaking one is not used. The same rules are checked end to end by the 0.2.0 suite's
 * `http-invalid-tool-headers` scenario (npm run conformance:client-2026).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { paramHeaderProblem } from '../../src/mcpl/transports/param-headers.ts';

const schema = (properties: Record<string, unknown>) => ({ type: 'object', properties });

test('valid marks, and tools without any, pass', () => {
  assert.equal(paramHeaderProblem(schema({ region: { type: 'string', 'x-mcp-header': 'Region' }, n: { type: 'integer', 'x-mcp-header': 'N' }, b: { type: 'boolean', 'x-mcp-header': 'B' }, free: { type: 'number' } })), undefined);
  assert.equal(paramHeaderProblem(undefined), undefined);
  assert.equal(paramHeaderProblem(schema({})), undefined);
});

test('each broken rule is named', () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ v: { type: 'string', 'x-mcp-header': '' } }, /not a header name/],
    [{ v: { type: 'string', 'x-mcp-header': 'Two words' } }, /not a header name/],
    [{ v: { type: 'string', 'x-mcp-header': 'a:b' } }, /not a header name/],
    [{ v: { type: 'string', 'x-mcp-header': 'Régión' } }, /not a header name/],
    [{ v: { type: 'string', 'x-mcp-header': 'Tab\there' } }, /not a header name/],
    [{ v: { type: 'string', 'x-mcp-header': 42 } }, /not a header name/],
    [{ v: { type: 'object', 'x-mcp-header': 'V' } }, /its type is "object"/],
    [{ v: { type: 'array', 'x-mcp-header': 'V' } }, /its type is "array"/],
    [{ v: { type: 'null', 'x-mcp-header': 'V' } }, /its type is "null"/],
    [{ v: { type: 'number', 'x-mcp-header': 'V' } }, /its type is "number"/],
    [{ a: { type: 'string', 'x-mcp-header': 'Same' }, b: { type: 'string', 'x-mcp-header': 'same' } }, /a and b both name the header/],
  ];
  for (const [properties, pattern] of cases) assert.match(paramHeaderProblem(schema(properties)) ?? 'valid', pattern, JSON.stringify(properties));
});
