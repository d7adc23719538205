/**
 * The description's content section (description-content.ts): present in the full and the
 * compact description, naming Python's form only when Python is offered, with a Content
 * declaration that type-checks. content.test.ts checks that what scripts really receive
 * matches that declaration.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RegisteredTool } from '../../src/host/types.ts';
import { DEFAULT_DESCRIPTION_CHARS, describeCodeExecution } from '../../src/code-execution/description.ts';
import { CONTENT_DECLARATION } from '../../src/code-execution/description-content.ts';
import { typeCheck } from '../runtime/declarations/helpers.ts';

const tool = (name: string): RegisteredTool =>
  ({ name, description: `Does ${name}.`, inputSchema: { type: 'object', properties: { id: { type: 'string' } } }, kind: 'server', classes: [] }) as unknown as RegisteredTool;
const LIMITS = { defaultMs: 30_000, maxMs: 120_000 };

test('the full, the partial and the compact description declare content objects and how to return them', () => {
  const tools = Array.from({ length: 400 }, (_, i) => tool(`srv--tool_${i}`));
  // Two tools: the full description; 400 within the default budget: the partial one (some tools
  // declared, the rest summarized); 400 within 8,192 characters: the compact one.
  for (const [list, maxChars] of [[tools.slice(0, 2), DEFAULT_DESCRIPTION_CHARS], [tools, DEFAULT_DESCRIPTION_CHARS], [tools, 8192]] as const) {
    const text = describeCodeExecution(list, ['javascript', 'python'], { ...LIMITS, maxChars });
    assert.ok(text.length <= maxChars, `${list.length} tools: ${text.length} characters`);
    assert.ok(text.includes(CONTENT_DECLARATION), `${list.length} tools: the Content type is declared`);
    assert.match(text, /Return a Content, or an array of them and strings, and you receive it as content/);
    assert.match(text, /Python: the same dicts/);
  }
  assert.doesNotMatch(describeCodeExecution(tools.slice(0, 2), ['javascript'], LIMITS), /Python/);
});

test('the Content declaration type-checks and admits every content object', () => {
  const use = `const all: Content[] = [
  { type: "text", text: "a" },
  { type: "image", mimeType: "image/png", data: "AAAA" },
  { type: "audio", mimeType: "audio/wav", data: "AAAA" },
  { type: "resource_link", uri: "test://a", name: "a" },
  { type: "resource", uri: "test://b", text: "b" },
  { type: "resource", uri: "test://c", mimeType: "application/octet-stream", blob: "AAEC" },
];
// @ts-expect-error an image needs its data
const bad: Content = { type: "image", mimeType: "image/png" };
export { all, bad };`;
  assert.deepEqual(typeCheck({ 'content.d.ts': CONTENT_DECLARATION, 'use.ts': `/// <reference path="content.d.ts" />\n${use}` }), { 'content.d.ts': [], 'use.ts': [] });
});
