/**
 * The rule that decides whether a script's return value is content, and the checks on it
 * (returned-content.ts), on the cases the end-to-end tests in content.test.ts leave out: MCP's
 * own block shapes, defaults, the block count, and values that must stay JSON.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { returnedContent, type ContentLimits } from '../../src/code-execution/returned-content.ts';

const LIMITS: ContentLimits = { maxBytes: 1024, maxBlocks: 3 };
const PNG = 'iVBORw0KGgo=';

test('MCP block shapes are accepted: a nested embedded resource, annotations and _meta (dropped)', () => {
  const found = returnedContent([
    { type: 'image', data: PNG, mimeType: 'image/png', annotations: { audience: ['user'] }, _meta: { a: 1 } },
    { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain; charset=utf-8', text: 'hi' } },
  ], LIMITS);
  assert.deepEqual(found, {
    kind: 'content',
    blocks: [{ type: 'image', data: PNG, mimeType: 'image/png' }, { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain; charset=utf-8', text: 'hi' } }],
    summary: [{ type: 'image', mimeType: 'image/png', bytes: 8 }, { type: 'resource', uri: 'file:///a.txt', mimeType: 'text/plain; charset=utf-8', bytes: 2 }],
  });
});

test('a resource link without a name is named by its uri', () => {
  const found = returnedContent({ type: 'resource_link', uri: 'test://x', size: 3 }, LIMITS);
  assert.deepEqual(found.kind === 'content' && found.blocks, [{ type: 'resource_link', uri: 'test://x', name: 'test://x', size: 3 }]);
});

test('values that stay JSON: no media object at the top level or in the top-level array', () => {
  for (const value of [null, 1, 'text', { type: 'text', text: 'a' }, [{ type: 'text', text: 'a' }, 'b'], { type: 'image', src: 'x.png' }, { type: 'resource', uri: 'test://a', name: 'a' }, [[{ type: 'image', data: PNG, mimeType: 'image/png' }]], { wrapped: { type: 'image', data: PNG, mimeType: 'image/png' } }]) {
    assert.deepEqual(returnedContent(value, LIMITS), { kind: 'none' }, JSON.stringify(value));
  }
});

test('errors name the item and the rule', () => {
  const cases: [unknown, RegExp][] = [
    [{ type: 'image', data: PNG, mimeType: 'png' }, /^the returned content object: image mimeType must be a MIME type like image\/png/],
    [{ type: 'image', data: PNG, mimeType: 'image/png;' }, /image mimeType must be a MIME type/],
    [{ type: 'image', data: 'abc', mimeType: 'image/png' }, /its length 3 is not a multiple of 4/],
    [{ type: 'image', data: '', mimeType: 'image/png' }, /image data is empty/],
    [{ type: 'audio', data: 'AB=C', mimeType: 'audio/wav' }, /audio data is not valid base64: "=" may only pad its end/],
    [{ type: 'resource', uri: 'test://a', resource: { uri: 'test://a', text: 'x' } }, /at the top or under `resource`, not both/],
    [{ type: 'resource', uri: 'test://a', text: 'x', blob: 'AAAA' }, /exactly one of `text`/],
    [['a', { type: 'audio', data: PNG, mimeType: 'audio/wav' }, { type: 'video', data: PNG }], /^item 2 of the returned content array: type "video" is not a content type/],
    [['a', 'b', 'c', { type: 'audio', data: PNG, mimeType: 'audio/wav' }], /4 items, over the limit of 3/],
    [{ type: 'resource', uri: 'test://a', text: 'x'.repeat(2000) }, /over its limit of 1024 bytes \(reached at item 0\)/],
  ];
  for (const [value, message] of cases) {
    const found = returnedContent(value, LIMITS);
    assert.equal(found.kind, 'error', JSON.stringify(value).slice(0, 80));
    assert.match((found as { message: string }).message, message);
  }
});
