/**
 * A change of the tool set rebuilds code_execution's description from what it kept of each
 * unchanged tool (issue 46 item 5): pinned by counting work, not by a clock — one tool added
 * to 5,000 derives one tool's pieces and looks up only a few, and the text is the one a build
 * from nothing gives.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeCodeExecution, fullLengthLowerBound, toolDescriptors } from '../../src/code-execution/description.ts';
import { DescriptionMemo } from '../../src/code-execution/description-memo.ts';
import { renderDeclarations } from '../../src/runtime/declarations/index.ts';
import type { RegisteredTool } from '../../src/host/types.ts';

function tool(name: string, description = `Reads ${name}. Then more.`): RegisteredTool {
  return {
    name,
    description,
    inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
    classes: ['files'],
    classSource: 'host',
    kind: 'host',
    handler: async () => ({ content: [] }),
  } as unknown as RegisteredTool;
}

const OPTIONS = { defaultMs: 1000, maxMs: 1000 };

for (const size of [30, 300, 5000]) {
  test(`${size} tools: a rebuild after one change derives one tool, and says what a fresh build says`, () => {
    const tools = Array.from({ length: size }, (_, i) => tool(`srv${i % 7}--tool_${(i * 7919) % size}`));
    const memo = new DescriptionMemo();
    describeCodeExecution(tools, ['javascript', 'python'], { ...OPTIONS, memo });
    assert.equal(memo.misses, size);
    // Added in the middle of the name order, removed, replaced: each derives only the new tool.
    const steps: Array<() => void> = [
      () => tools.push(tool('srv3--inserted')),
      () => tools.splice(size >> 1, 1),
      () => (tools[3] = tool(tools[3]!.name, 'Changed text.')),
    ];
    for (const [k, change] of steps.entries()) {
      const before = memo.misses;
      change();
      const text = describeCodeExecution(tools, ['javascript', 'python'], { ...OPTIONS, memo });
      assert.equal(memo.misses - before, k === 1 ? 0 : 1, `change ${k}`);
      // Looked up, derived or re-sorted beyond walking the list: a few, whatever the size.
      assert.ok(memo.lastWork <= 6, `change ${k}: work ${memo.lastWork} at ${size} tools`);
      assert.equal(text, describeCodeExecution(tools, ['javascript', 'python'], OPTIONS), `change ${k}: same text as a build from nothing`);
    }
  });
}

test('the lower bound with descriptions never exceeds the TypeScript declarations alone', () => {
  const texts = ['', 'plain', '  spaced \n\n lines\r\n end  ', 'has */ a comment end', 'tabs\tand\u00a0nbsp', 'Ünïcode — text…'];
  const list = toolDescriptors(['x--y', 'a.b-c', 'ns.inner.deep', '7up', 'then', 'a..b'].map((name, i) => tool(name, texts[i % texts.length])));
  for (let size = 1; size <= list.length; size++) {
    const some = list.slice(0, size);
    assert.ok(fullLengthLowerBound(some, ['javascript']) <= renderDeclarations(some).length);
  }
});

test('1,000 tools whose descriptions cannot fit are not rendered in full (the bound counts descriptions)', () => {
  // Names alone (~15 KB) fit 24,000 characters; with their descriptions they do not.
  const list = toolDescriptors(Array.from({ length: 1000 }, (_, i) => tool(`srv${i % 10}_tool_${i}`, `Tool ${i}: reads, filters and summarizes records of a kind, with paging and a time window.`)));
  assert.ok(fullLengthLowerBound(list) <= 24_000);
  assert.ok(fullLengthLowerBound(list, ['javascript']) > 24_000);
});
