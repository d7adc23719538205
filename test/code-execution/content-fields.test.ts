/**
 * Every field of returned content counts against `maxContentBytes` — a link's uri, name, title,
 * description and MIME type, a resource's uri and MIME type, a medium's MIME type — not only the
 * payloads: what is not counted could otherwise carry megabytes past the limit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { returnedContent, type ContentLimits } from '../../src/code-execution/returned-content.ts';
import { ToolHost } from '../../src/host/tool-host.ts';
import { registerCodeExecution } from '../../src/code-execution/index.ts';

const LIMITS: ContentLimits = { maxBytes: 1024, maxBlocks: 10 };
const BIG = 'a'.repeat(2000);

const OVER: Record<string, unknown> = {
  'a link uri': { type: 'resource_link', uri: `https://x/${BIG}` },
  'a link name': { type: 'resource_link', uri: 'https://x/', name: BIG },
  'a link title': { type: 'resource_link', uri: 'https://x/', title: BIG },
  'a link description': { type: 'resource_link', uri: 'https://x/', description: BIG },
  'a resource uri': { type: 'resource', uri: `file:///${BIG}`, text: 'hi' },
  'a nested resource uri': { type: 'resource', resource: { uri: `file:///${BIG}`, blob: 'AAAA' } },
  'a resource MIME type parameter': { type: 'resource', uri: 'file:///a', mimeType: `text/plain; x=${BIG}`, text: 'hi' },
  'an image MIME type parameter': { type: 'image', data: 'AAAA', mimeType: `image/png; x=${BIG}` },
};

for (const [name, item] of Object.entries(OVER)) {
  test(`${name} counts against maxContentBytes`, () => {
    const found = returnedContent([item], LIMITS);
    assert.equal(found.kind, 'error', JSON.stringify(found).slice(0, 200));
    assert.match((found as { message: string }).message, /over its limit of 1024 bytes/);
  });
}

test('many links with long fields cannot add up past the limit', () => {
  const links = Array.from({ length: 10 }, (_, i) => ({ type: 'resource_link', uri: `https://x/${i}/${'b'.repeat(200)}` }));
  assert.equal(returnedContent(links, LIMITS).kind, 'error');
  assert.equal(returnedContent(links.slice(0, 2), LIMITS).kind, 'content', 'two fit: ~2 × 2 × 212 bytes');
});

test('end to end: a script returning a megabyte of links under a 64 KiB maxContentBytes fails with a ContentError', async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const ce = registerCodeExecution(host, { languages: ['javascript'], maxContentBytes: 64 * 1024 });
  try {
    const stream = host.openStream('links');
    const code = 'const u = "https://x/" + "a".repeat(100000);\nreturn Array.from({ length: 10 }, () => ({ type: "resource_link", uri: u, name: "n", description: u }));';
    const out = await host.dispatch({ inferenceId: stream.beginInference(), name: 'code_execution', input: { code } });
    const envelope = out.result.structuredContent as { ok: boolean; error?: { name: string; message: string } };
    assert.equal(envelope.ok, false, JSON.stringify(envelope).slice(0, 300));
    assert.equal(envelope.error?.name, 'ContentError');
    assert.equal(out.result.content.length, 1, 'no content block went out');
    // The envelope's text stays within the result cap (structuredContent holds the same object).
    assert.ok((out.result.content[0] as unknown as { text: string }).text.length <= 64 * 1024);
  } finally {
    await ce.close();
    await host.close();
  }
});
