/**
 * Content a script returns, through `toolcell serve` as a real process with server-everything
 * as its provider: the SDK's own Client (over stdio and over Streamable HTTP) calls
 * code_execution with a script that calls everything's `get-tiny-image` and returns the
 * image, and receives an `image` content block with the same bytes and MIME type. The SDK
 * client, having listed the tools, checks `structuredContent` against code_execution's
 * outputSchema, so the envelope's `content` summary is checked against the schema too.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { REPO_ROOT, scratchDir } from '../helpers/peers.ts';
import { connectClient } from '../serve/fixture-host.ts';
import { binPath } from './servers.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');
const TINY = (await import(join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'tools', 'get-tiny-image.js'))).MCP_TINY_IMAGE as string;

/** serve's config for these tests: maxContentBytes proves the key reaches code_execution. */
function config(): string {
  const path = join(scratchDir(), 'toolcell.json');
  writeFileSync(path, JSON.stringify({
    servers: [{ id: 'ev', command: process.execPath, args: [binPath('everything')] }],
    codeExecution: { languages: ['javascript', 'python'], maxContentBytes: 1024 * 1024 },
  }));
  return path;
}

const SCRIPTS = {
  javascript: `const r = await tools.ev__get_tiny_image();
return ['The MCP logo:', r.find((b) => b.type === 'image')];`,
  python: `r = await tools.ev__get_tiny_image()
["The MCP logo:", next(b for b in r if b["type"] == "image")]`,
};

/** Calls code_execution with each language's script; the client gets the caption and the image as blocks. */
async function assertImageArrives(client: Client): Promise<void> {
  // Listing first: the SDK client checks results against the outputSchemas it has listed.
  const listed = (await client.listTools()).tools.find((t) => t.name === 'code_execution');
  assert.ok(listed?.outputSchema, 'code_execution declares its outputSchema');
  for (const [language, code] of Object.entries(SCRIPTS)) {
    const result = await client.callTool({ name: 'code_execution', arguments: { language, code } });
    const content = result.content as { type: string; text?: string; data?: string; mimeType?: string }[];
    assert.notEqual(result.isError, true, JSON.stringify(result));
    assert.equal(content.length, 3, JSON.stringify(content.map((c) => c.type)));
    assert.deepEqual(JSON.parse(content[0]!.text!), result.structuredContent, `${language}: the envelope comes first`);
    assert.deepEqual(content[1], { type: 'text', text: 'The MCP logo:' });
    assert.equal(content[2]!.type, 'image', language);
    assert.equal(content[2]!.mimeType, 'image/png');
    assert.ok(Buffer.from(content[2]!.data!, 'base64').equals(Buffer.from(TINY, 'base64')), `${language}: the same bytes`);
    const envelope = result.structuredContent as { value?: unknown; content?: unknown };
    assert.equal(envelope.value, undefined);
    assert.deepEqual(envelope.content, [{ type: 'text', bytes: 13 }, { type: 'image', mimeType: 'image/png', bytes: Buffer.from(TINY, 'base64').length }]);
  }
}

describe('serve over stdio: a script returns server-everything\'s image', () => {
  let client: Client;
  before(async () => {
    client = new Client({ name: 'content-stdio', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', CLI, 'serve', '--config', config()], cwd: REPO_ROOT, stderr: 'ignore' }));
  });
  after(async () => {
    await client.close();
  });

  test('the client receives an image content block with the same bytes and MIME type (JavaScript and Python)', async () => {
    await assertImageArrives(client);
  });

  test('content over the configured maxContentBytes is refused with a ContentError', async () => {
    const result = await client.callTool({ name: 'code_execution', arguments: { code: "return { type: 'image', mimeType: 'image/png', data: 'A'.repeat(1400 * 1024) };" } });
    assert.equal(result.isError, true);
    const envelope = result.structuredContent as { error?: { name?: string; message?: string } };
    assert.equal(envelope.error?.name, 'ContentError');
    assert.match(envelope.error?.message ?? '', /over its limit of 1048576 bytes/);
    assert.equal((result.content as unknown[]).length, 1);
  });
});

describe('serve over Streamable HTTP: a script returns server-everything\'s image', () => {
  let child: ChildProcess;
  let url: string;
  before(async () => {
    child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', `--config=${config()}`, '--http', '127.0.0.1:0'], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stderr! }).on('line', (line) => {
        try {
          const entry = JSON.parse(line) as { msg?: string; url?: string };
          if (entry.msg === 'toolcell serving MCP over Streamable HTTP' && entry.url) resolve(entry.url);
        } catch {
          // Not a log line; an early exit is reported below.
        }
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code} before serving`)));
    });
  });
  after(async () => {
    if (child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  });

  test('the client receives an image content block with the same bytes and MIME type (JavaScript and Python)', async () => {
    const { client } = await connectClient(url);
    try {
      await assertImageArrives(client);
    } finally {
      await client.close();
    }
  });
});
