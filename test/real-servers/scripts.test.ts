/**
 * Model-written scripts that call official MCP servers from npm: a JavaScript and a Python
 * `code_execution` script read and write files through server-filesystem in a temp root, and
 * a script's inner call to everything's progress-emitting long-running operation completes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { registerCodeExecution, type CodeExecution } from '../../src/code-execution/index.ts';
import { resultText } from '../../src/host/results.ts';
import { scratchDir } from '../helpers/peers.ts';
import { officialServer } from './servers.ts';

describe('code_execution scripts calling official MCP servers', () => {
  let host: ToolHost;
  let codeExecution: CodeExecution;
  let root: string;
  const inner: { tool: string; phase: string; parent?: string }[] = [];

  before(async () => {
    root = realpathSync(mkdtempSync(join(scratchDir(), 'root-')));
    writeFileSync(join(root, 'notes.txt'), 'one\ntwo\nthree\n');
    host = new ToolHost({ logger: pino({ level: 'silent' }) });
    host.on('lifecycle', (e) => {
      if (e.origin === 'script') inner.push({ tool: e.tool, phase: e.phase, ...(e.parentToolCallId ? { parent: e.parentToolCallId } : {}) });
    });
    await host.connectServer(officialServer('filesystem', 'fs', { args: [root] }).config);
    await host.connectServer(officialServer('everything', 'ev').config);
    codeExecution = registerCodeExecution(host, { languages: ['javascript', 'python'] });
  });
  after(async () => {
    await codeExecution.close();
    await host.close();
  });

  const run = async (language: 'javascript' | 'python', code: string) => {
    const inferenceId = host.beginInference({ conversationId: `conv-${language}` });
    const outcome = await host.dispatch({ inferenceId, name: 'code_execution', input: { code, language } });
    assert.equal(outcome.status, 'completed', resultText(outcome.result));
    const summary = outcome.result.structuredContent as any;
    assert.equal(summary.ok, true, JSON.stringify(summary));
    return { summary, toolCallId: outcome.toolCallId! };
  };

  test('JavaScript reads a file, writes a derived one and lists the directory through server-filesystem', async () => {
    const { summary, toolCallId } = await run(
      'javascript',
      `const root = ${JSON.stringify(root)};
const read = await tools.fs__read_text_file({ path: root + '/notes.txt' });
const lines = read.content.trim().split('\\n');
await tools.fs__write_file({ path: root + '/upper-js.txt', content: lines.map((l) => l.toUpperCase()).join(',') });
const listing = await tools['fs--list_directory']({ path: root });
return { count: lines.length, listing: listing.content };`,
    );
    assert.equal(summary.value.count, 3);
    assert.match(summary.value.listing, /\[FILE\] upper-js\.txt/);
    assert.equal(readFileSync(join(root, 'upper-js.txt'), 'utf8'), 'ONE,TWO,THREE');
    assert.deepEqual(summary.calls.map((c: any) => [c.name, c.status]), [
      ['fs--read_text_file', 'ok'],
      ['fs--write_file', 'ok'],
      ['fs--list_directory', 'ok'],
    ]);
    const mine = inner.filter((e) => e.parent === toolCallId && e.phase === 'completed').map((e) => e.tool);
    assert.deepEqual(mine, ['fs--read_text_file', 'fs--write_file', 'fs--list_directory']);
  });

  test('Python reads a file, writes a derived one, and gets the server error for a path outside the root', async () => {
    const { summary } = await run(
      'python',
      `root = ${JSON.stringify(root)}
read = await tools.fs__read_text_file({"path": root + "/notes.txt"})
words = read["content"].split()
await tools.fs__write_file({"path": root + "/count-py.txt", "content": str(len(words))})
try:
    await tools.fs__read_text_file({"path": "/etc/hostname"})
    outside = "read"
except Exception as e:
    outside = type(e).__name__
info = await tools.fs__get_file_info({"path": root + "/count-py.txt"})
{"words": words, "outside": outside, "info": info["content"]}`,
    );
    assert.deepEqual(summary.value.words, ['one', 'two', 'three']);
    assert.equal(summary.value.outside, 'ToolError');
    assert.match(summary.value.info, /size: 1/);
    assert.equal(readFileSync(join(root, 'count-py.txt'), 'utf8'), '3');
  });

  test("a script's inner call to everything's progress-emitting long-running operation completes", async () => {
    const { summary } = await run(
      'javascript',
      `return await tools['ev--trigger-long-running-operation']({ duration: 0.3, steps: 3 });`,
    );
    assert.match(summary.value, /Long running operation completed\. Duration: 0\.3 seconds, Steps: 3\./);
  });
});
