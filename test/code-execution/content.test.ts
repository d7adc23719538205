/**
 * Content inside scripts, against real provider processes (server-everything and an SDK
 * McpServer returning each content type, both over stdio) and real script engines (QuickJS,
 * V8, Python): a script gets images, audio, resource links and embedded resources as content
 * objects, and a script that returns such objects passes them to the model as content blocks
 * of their type, checked (base64, mimeType, size) with a clear error otherwise.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { registerCodeExecution, type CodeExecution } from '../../src/code-execution/index.ts';
import type { CodeExecutionOptions } from '../../src/code-execution/options.ts';
import type { ToolResult } from '../../src/host/types.ts';
import { REPO_ROOT } from '../helpers/peers.ts';
import { binPath } from '../real-servers/servers.ts';
import { CONTENT, PNG, WAV } from './content/blocks.ts';
import { CONTENT_DECLARATION } from '../../src/code-execution/description-content.ts';
import { typeCheck } from '../runtime/declarations/helpers.ts';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { RESULT_ENVELOPE_SCHEMA } from '../../src/code-execution/output-schema.ts';

const validators = [new Ajv({ strict: false }).compile(RESULT_ENVELOPE_SCHEMA), new Ajv2020({ strict: false }).compile(RESULT_ENVELOPE_SCHEMA)];

const PROVIDER = join(REPO_ROOT, 'test', 'code-execution', 'content', 'provider.ts');
/** server-everything's get-tiny-image, read from the package so the test compares real bytes. */
const TINY = (await import(join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'tools', 'get-tiny-image.js'))).MCP_TINY_IMAGE as string;

interface Rig {
  host: ToolHost;
  ce: CodeExecution;
  run(code: string, language?: 'javascript' | 'python'): Promise<ToolResult>;
}

async function makeRig(options: CodeExecutionOptions, withProvider = true): Promise<Rig> {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  await host.connectServer({ id: 'ev', command: process.execPath, args: [binPath('everything')] });
  if (withProvider) await host.connectServer({ id: 'c', command: process.execPath, args: ['--import', 'tsx', PROVIDER], cwd: REPO_ROOT });
  const ce = registerCodeExecution(host, options);
  return {
    host,
    ce,
    async run(code, language = 'javascript') {
      const inferenceId = host.beginInference({ conversationId: `conv-${language}` });
      const outcome = await host.dispatch({ inferenceId, name: 'code_execution', input: { code, language } });
      return outcome.result;
    },
  };
}

const envelope = (r: ToolResult) => r.structuredContent as Record<string, any>;
const okValue = (r: ToolResult) => {
  assert.equal(envelope(r).ok, true, JSON.stringify(envelope(r)));
  return envelope(r).value;
};

/** Only the blocks the script returned: the first block is always the envelope's JSON. */
function returned(r: ToolResult) {
  for (const validate of validators) assert.ok(validate(r.structuredContent), `the envelope fits the outputSchema: ${JSON.stringify(validate.errors)}`);
  assert.equal(r.content[0]!.type, 'text');
  assert.deepEqual(JSON.parse(r.content[0]!.text as string), r.structuredContent, 'the first block is the envelope');
  return r.content.slice(1);
}

const TINY_OBJECTS = [
  { type: 'text', text: "Here's the image you requested:" },
  { type: 'image', mimeType: 'image/png', data: TINY },
  { type: 'text', text: 'The image above is the MCP logo.' },
];

describe('content objects: what a script gets from a tool result', () => {
  let rig: Rig;
  before(async () => {
    rig = await makeRig({ languages: ['javascript', 'python'] });
  });
  after(async () => {
    await rig.ce.close();
    await rig.host.close();
  });

  test('JavaScript: server-everything\'s image result is an array of content objects, the image typed with its base64 data', async () => {
    const value = okValue(await rig.run(`const r = await tools.ev__get_tiny_image();
const img = r.find((b) => b.type === 'image');
return { all: r, mime: img.mimeType, length: img.data.length };`));
    assert.deepEqual(value.all, TINY_OBJECTS);
    assert.equal(value.mime, 'image/png');
    assert.equal(value.length, TINY.length);
  });

  test('Python: the same objects as dicts', async () => {
    const value = okValue(await rig.run(`r = await tools.ev__get_tiny_image()
img = next(b for b in r if b["type"] == "image")
import base64
{"all": r, "png": base64.b64decode(img["data"])[:4] == b"\\x89PNG"}`, 'python'));
    assert.deepEqual(value.all, TINY_OBJECTS);
    assert.equal(value.png, true);
  });

  test('audio, resource links and embedded resources (text and blob): typed, annotations and _meta dropped, resources lifted', async () => {
    for (const language of ['javascript', 'python'] as const) {
      const code = language === 'javascript'
        ? 'return [await tools.c__audio(), await tools.c__link(), await tools.c__embedded(), await tools.ev__get_resource_links({ count: 1 })];'
        : '[await tools.c__audio(), await tools.c__link(), await tools.c__embedded(), await tools.ev__get_resource_links({"count": 1})]';
      const [audio, link, embedded, links] = okValue(await rig.run(code, language));
      assert.deepEqual(audio, [{ type: 'audio', mimeType: 'audio/wav', data: WAV }], language);
      assert.deepEqual(link, [{ type: 'resource_link', uri: 'test://static', name: 'static', description: 'a link', mimeType: 'text/plain' }], language);
      assert.deepEqual(embedded, [
        { type: 'text', text: 'two resources:' },
        { type: 'resource', uri: 'test://notes.txt', mimeType: 'text/plain', text: 'embedded text' },
        { type: 'resource', uri: 'test://bytes.bin', mimeType: 'application/octet-stream', blob: 'AAEC' },
      ], language);
      assert.equal(links.at(-1).type, 'resource_link', JSON.stringify(links));
      assert.match(links.at(-1).uri, /^demo:\/\//);
      // What scripts really receive is what the description declares (`Content[]`).
      const use = `const received: Content[][] = ${JSON.stringify([audio, link, embedded, links])};\nexport { received };`;
      assert.deepEqual(typeCheck({ 'content.d.ts': CONTENT_DECLARATION, 'use.ts': `/// <reference path="content.d.ts" />\n${use}` }), { 'content.d.ts': [], 'use.ts': [] }, language);
    }
  });

  test('text and JSON stay as before: a lone text block is its text (parsed when JSON); several are text objects', async () => {
    const value = okValue(await rig.run('return [await tools.ev__echo({ message: "hi" }), await tools.ev__get_sum({ a: 1, b: 2 }), await tools.c__texts()];'));
    assert.equal(value[0], 'Echo: hi');
    assert.match(String(value[1]), /3/);
    assert.deepEqual(value[2], CONTENT.texts);
  });
});

describe('returned content: what reaches the model', () => {
  let rig: Rig;
  before(async () => {
    rig = await makeRig({ languages: ['javascript', 'python'], maxContentBytes: 1024 * 1024 });
  });
  after(async () => {
    await rig.ce.close();
    await rig.host.close();
  });

  test('JavaScript returns the image it fetched: an image block with the same bytes, after the envelope', async () => {
    const r = await rig.run(`const r = await tools.ev__get_tiny_image();
return r.find((b) => b.type === 'image');`);
    assert.notEqual(r.isError, true, JSON.stringify(r));
    assert.deepEqual(returned(r), [{ type: 'image', data: TINY, mimeType: 'image/png' }]);
    const env = envelope(r);
    assert.equal(env.value, undefined, 'the value is the content, not repeated as JSON');
    assert.deepEqual(env.content, [{ type: 'image', mimeType: 'image/png', bytes: Buffer.from(TINY, 'base64').length }]);
  });

  test('Python returns a whole mixed result (text, image, text) and its own caption: blocks in order', async () => {
    const r = await rig.run(`r = await tools.ev__get_tiny_image()
["My caption", *r]`, 'python');
    assert.deepEqual(returned(r), [
      { type: 'text', text: 'My caption' },
      { type: 'text', text: "Here's the image you requested:" },
      { type: 'image', data: TINY, mimeType: 'image/png' },
      { type: 'text', text: 'The image above is the MCP logo.' },
    ]);
    assert.deepEqual(envelope(r).content.map((c: { type: string }) => c.type), ['text', 'text', 'image', 'text']);
  });

  test('audio, links and embedded resources go back as MCP blocks (resources nested again)', async () => {
    const r = await rig.run('return [...await tools.c__audio(), ...await tools.c__link(), ...(await tools.c__embedded()).slice(1)];');
    assert.deepEqual(returned(r), [
      { type: 'audio', data: WAV, mimeType: 'audio/wav' },
      { type: 'resource_link', uri: 'test://static', name: 'static', description: 'a link', mimeType: 'text/plain' },
      { type: 'resource', resource: { uri: 'test://notes.txt', mimeType: 'text/plain', text: 'embedded text' } },
      { type: 'resource', resource: { uri: 'test://bytes.bin', mimeType: 'application/octet-stream', blob: 'AAEC' } },
    ]);
  });

  test('Python may give bytes for data: sent as base64', async () => {
    const r = await rig.run(`import base64
{"type": "image", "mimeType": "image/png", "data": base64.b64decode(${JSON.stringify(PNG)})}`, 'python');
    assert.deepEqual(returned(r), [{ type: 'image', data: PNG, mimeType: 'image/png' }]);
  });

  test('Python content past the interpreter\'s 256 KiB value cap still arrives whole', async () => {
    const r = await rig.run(`import base64
{"type": "image", "mimeType": "image/png", "data": base64.b64decode(${JSON.stringify(PNG)}) + bytes(400 * 1024)}`, 'python');
    const [block] = returned(r);
    assert.equal(block!.type, 'image');
    assert.equal(Buffer.from(block!.data as string, 'base64').length, Buffer.from(PNG, 'base64').length + 400 * 1024);
    assert.equal(envelope(r).truncated, undefined);
  });

  test('plain data that has a `type` field, and text-only arrays, stay JSON values', async () => {
    for (const value of [{ type: 'image', url: 'https://example.com/a.png' }, [{ type: 'text', text: 'a' }], ['a', 'b'], { items: [{ type: 'image', mimeType: 'image/png', data: PNG }] }]) {
      const r = await rig.run(`return ${JSON.stringify(value)};`);
      assert.deepEqual(okValue(r), value);
      assert.equal(r.content.length, 1);
    }
  });

  test('bad content fails the run with a ContentError that says what is wrong, keeping the value', async () => {
    const cases: [string, RegExp][] = [
      [`{ type: 'image', mimeType: 'image/png', data: 'not base64!' }`, /image data is not valid base64: character 4 is " "/],
      [`{ type: 'image', mimeType: 'text/html', data: ${JSON.stringify(PNG)} }`, /image mimeType must be an image\/\* type/],
      [`{ type: 'audio', data: ${JSON.stringify(WAV)} }`, /audio mimeType must be a MIME type like audio\/wav/],
      [`['caption', { type: 'image', mimeType: 'image/png', data: ${JSON.stringify(PNG)} }, 42]`, /item 2 of the returned content array: it is number, not a string or a content object/],
      [`{ type: 'image', mimeType: 'image/png', data: ${JSON.stringify(PNG)}, alt: 'x' }`, /a image object has no field "alt"/],
      [`{ type: 'resource', uri: 'test://a', text: 'a', blob: 'AAAA' }`, /exactly one of `text`/],
      [`{ type: 'resource_link', uri: 'no scheme' }`, /resource_link uri must be a URI with a scheme/],
      [`{ type: 'image', mimeType: 'image/png', data: 'A'.repeat(1400 * 1024) }`, /over its limit of 1048576 bytes/],
    ];
    for (const [value, message] of cases) {
      const r = await rig.run(`return ${value};`);
      const env = envelope(r);
      assert.equal(r.isError, true, value);
      assert.equal(env.ok, false);
      assert.equal(env.error.name, 'ContentError');
      for (const validate of validators) assert.ok(validate(env), JSON.stringify(validate.errors));
      assert.equal(env.error.kind, 'script');
      assert.match(env.error.message, message);
      assert.equal(r.content.length, 1, 'nothing is sent as content');
      if (!value.includes('repeat')) assert.notEqual(env.value, undefined, 'the value is kept');
    }
  });
});

describe('V8 engine: the same content objects in and out', () => {
  let rig: Rig;
  before(async () => {
    rig = await makeRig({ engine: 'v8', languages: ['javascript'] }, false);
  });
  after(async () => {
    await rig.ce.close();
    await rig.host.close();
  });

  test('gets the image as a content object and returns it as an image block', async () => {
    const r = await rig.run(`const r = await tools.ev__get_tiny_image();
const img = r.find((b) => b.type === 'image');
return ['got ' + img.mimeType, img];`);
    assert.deepEqual(returned(r), [{ type: 'text', text: 'got image/png' }, { type: 'image', data: TINY, mimeType: 'image/png' }]);
  });
});
