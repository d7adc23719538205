/**
 * The description skips rendering full declarations for a tool list whose names alone already
 * exceed `maxDescriptionChars` (issue 13: the first description at 1,000 tools cost ~0.3 s of
 * rendering that was then thrown away). That shortcut is only sound if the bound it uses is a
 * true lower bound of the full description in every language: checked here on names of every
 * shape the renderers treat differently.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeCodeExecution, fullLengthLowerBound, toolDescriptors } from '../../src/code-execution/description.ts';
import { renderDeclarations, renderPythonStubs } from '../../src/runtime/declarations/index.ts';
import type { RegisteredTool } from '../../src/host/types.ts';

const SHAPES = ['plain', 'x--y', 'a.b-c', 'a.d', 'ns', 'ns.inner.deep', 'ns.top', 'c-d', 'c_d', '7up', 'a..b', 'models.list', 'Ünïcode', 'then', 'constructor', 'srv3_tool_3'];

function tools(names: readonly string[]): RegisteredTool[] {
  return names.map((name) => ({
    name,
    description: '',
    inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
    classes: ['files'],
    source: 'host',
    handler: async () => ({ content: [] }),
  })) as unknown as RegisteredTool[];
}

test('the names bound never exceeds either language\'s declarations alone', () => {
  for (let size = 1; size <= SHAPES.length; size++) {
    const list = toolDescriptors(tools(SHAPES.slice(0, size)));
    const bound = fullLengthLowerBound(list);
    for (const [language, text] of [['TypeScript', renderDeclarations(list)], ['Python', renderPythonStubs(list)]] as const) {
      assert.ok(bound <= text.length, `${language}, ${size} tools: bound ${bound} > ${text.length}`);
      // Each tool is declared under (at least) the last segment of its path.
      for (const t of list) assert.ok(text.includes(t.name.split('.').at(-1)!.replace(/[^A-Za-z0-9_]/g, '_').replace(/^(?=[0-9])/, '_')) || text.includes(t.name), `${language} declares ${t.name}`);
    }
  }
});

test('a list whose names exceed the limit gets the same compact description as before', () => {
  const list = tools(Array.from({ length: 1000 }, (_, i) => `srv${i % 10}_tool_${i}`));
  const bound = fullLengthLowerBound(toolDescriptors(list));
  assert.ok(bound > 8192, 'the shortcut applies');
  const text = describeCodeExecution(list, ['javascript', 'python'], { defaultMs: 1000, maxMs: 1000, maxChars: 8192 });
  assert.ok(text.length <= 8192);
  assert.match(text, /1000 tools, too many to declare here/);
});
