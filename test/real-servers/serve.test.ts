/**
 * `toolcell serve` as a real process with the official servers as its providers —
 * server-filesystem (a temp root), server-everything and server-memory — driven by the SDK
 * client over stdio and over Streamable HTTP: listing, direct calls, JavaScript and Python
 * scripts that touch the disk through server-filesystem, everything's progress reaching the
 * client, and a client's cancellation reaching server-everything. serve's config cannot carry
 * a wire log (it is a function), so everything is started behind a small tee that copies what
 * serve writes to it into a file: that file is the proof the cancellation crossed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { REPO_ROOT, scratchDir, waitUntil } from '../helpers/peers.ts';
import { connectClient } from '../serve/fixture-host.ts';
import { binPath } from './servers.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');

/**
 * Spawns argv[3..] and copies every line its stdin receives into argv[2], in order; writes the
 * child's pid to argv[2].pid. Like a careless wrapper (npx, a shell script), it does not pass on
 * a SIGTERM: its child lives on, holding serve's pipes, as long as it has work.
 */
const TEE = `import { spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
const [log, ...command] = process.argv.slice(2);
const child = spawn(process.execPath, command, { stdio: ['pipe', 'inherit', 'inherit'] });
writeFileSync(log + '.pid', String(child.pid));
process.stdin.on('data', (chunk) => { appendFileSync(log, chunk); child.stdin.write(chunk); });
// stdin's end is not passed on: server-everything would exit on it, racing the SIGTERM test's
// orphan; it outlives the tee until a test kills it.
child.on('exit', (code) => process.exit(code ?? 1));
`;

interface Setup {
  dir: string;
  root: string;
  memoryFile: string;
  /** Every line serve wrote to server-everything. */
  everythingInbound: () => { method?: string; id?: unknown; params?: any }[];
  /** The pid of server-everything itself (behind the tee). */
  everythingPid: () => number;
  configPath: string;
}

function setup(): Setup {
  const dir = scratchDir();
  const root = realpathSync(mkdtempSync(join(dir, 'root-')));
  writeFileSync(join(root, 'notes.txt'), 'one\ntwo\nthree\n');
  const memoryFile = join(dir, 'memory.jsonl');
  const tee = join(dir, 'tee.mjs');
  writeFileSync(tee, TEE);
  const teeLog = join(dir, 'everything-in.jsonl');
  writeFileSync(teeLog, '');
  const configPath = join(dir, 'toolcell.json');
  writeFileSync(configPath, JSON.stringify({
    servers: [
      { id: 'fs', command: process.execPath, args: [binPath('filesystem'), root] },
      { id: 'ev', command: process.execPath, args: [tee, teeLog, binPath('everything')] },
      { id: 'mem', command: process.execPath, args: [binPath('memory')], env: { MEMORY_FILE_PATH: memoryFile } },
    ],
    codeExecution: { languages: ['javascript', 'python'] },
  }));
  const everythingInbound = () => readFileSync(teeLog, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
  const everythingPid = () => Number(readFileSync(`${teeLog}.pid`, 'utf8'));
  return { dir, root, memoryFile, everythingInbound, everythingPid, configPath };
}

/** Whether `pid` is a live process; an orphan nobody reaped lingers as a zombie (state Z). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

const text = (result: any): string => (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');

async function assertToolsListed(client: Client): Promise<void> {
  const names = (await client.listTools()).tools.map((t) => t.name);
  for (const name of ['code_execution', 'fs--read_text_file', 'fs--write_file', 'fs--list_directory', 'ev--echo', 'ev--trigger-long-running-operation', 'mem--create_entities', 'mem--read_graph']) {
    assert.ok(names.includes(name), `${name} listed (got ${names.join(', ')})`);
  }
  // code_execution and its result_page are the host's own; every other tool is a provider's.
  assert.ok(names.every((n) => n === 'code_execution' || n === 'result_page' || /^(fs|ev|mem)--/.test(n)), `every other tool carries its server prefix (got ${names.join(', ')})`);
}

describe('serve over stdio with the official servers as providers', () => {
  let s: Setup;
  let client: Client;
  before(async () => {
    s = setup();
    client = new Client({ name: 'real-serve-stdio', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', CLI, 'serve', '--config', s.configPath], cwd: REPO_ROOT, stderr: 'ignore' }));
  });
  after(async () => {
    await client.close();
  });

  test('tools/list: the three servers\' tools, prefixed, and code_execution', async () => {
    await assertToolsListed(client);
  });

  test('direct calls write and read a file through server-filesystem', async () => {
    const write = await client.callTool({ name: 'fs--write_file', arguments: { path: join(s.root, 'direct.txt'), content: 'written directly' } });
    assert.notEqual(write.isError, true, text(write));
    assert.equal(readFileSync(join(s.root, 'direct.txt'), 'utf8'), 'written directly');
    const read = await client.callTool({ name: 'fs--read_text_file', arguments: { path: join(s.root, 'notes.txt') } });
    assert.equal(text(read), 'one\ntwo\nthree\n');
    const outside = await client.callTool({ name: 'fs--read_text_file', arguments: { path: '/etc/hostname' } });
    assert.equal(outside.isError, true, 'the server refuses a path outside its root');
  });

  test('a JavaScript script reads and writes files through server-filesystem', async () => {
    const result = await client.callTool({ name: 'code_execution', arguments: { language: 'javascript', code: `const root = ${JSON.stringify(s.root)};
const read = await tools.fs__read_text_file({ path: root + '/notes.txt' });
const lines = read.content.trim().split('\\n');
await tools.fs__write_file({ path: root + '/upper-js.txt', content: lines.map((l) => l.toUpperCase()).join(',') });
return lines.length;` } });
    assert.equal((result.structuredContent as any)?.value, 3, JSON.stringify(result));
    assert.equal(readFileSync(join(s.root, 'upper-js.txt'), 'utf8'), 'ONE,TWO,THREE');
  });

  test('a Python script reads and writes files through server-filesystem', async () => {
    const result = await client.callTool({ name: 'code_execution', arguments: { language: 'python', code: `root = ${JSON.stringify(s.root)}
read = await tools.fs__read_text_file({"path": root + "/notes.txt"})
words = read["content"].split()
await tools.fs__write_file({"path": root + "/count-py.txt", "content": "-".join(reversed(words))})
len(words)` } });
    assert.equal((result.structuredContent as any)?.value, 3, JSON.stringify(result));
    assert.equal(readFileSync(join(s.root, 'count-py.txt'), 'utf8'), 'three-two-one');
  });

  test('server-memory: create_entities then read_graph, persisted in MEMORY_FILE_PATH', async () => {
    const created = await client.callTool({ name: 'mem--create_entities', arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] } });
    assert.notEqual(created.isError, true, text(created));
    const graph = await client.callTool({ name: 'mem--read_graph', arguments: {} });
    assert.deepEqual((graph.structuredContent as any)?.entities?.map((e: any) => [e.name, e.observations]), [['Ada', ['wrote the first program']]], JSON.stringify(graph));
    assert.match(readFileSync(s.memoryFile, 'utf8'), /"Ada"/);
  });
});

describe('serve over Streamable HTTP with the official servers as providers', () => {
  let s: Setup;
  let child: ChildProcess;
  let url: string;
  before(async () => {
    s = setup();
    child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', `--config=${s.configPath}`, '--http', '127.0.0.1:0'], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
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
    try {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = await exited;
      assert.equal(code, 0, 'serve ends cleanly on SIGTERM');
    } finally {
      // The tee never ends server-everything (see TEE): it is always left to kill here.
      try {
        process.kill(s.everythingPid(), 'SIGKILL');
      } catch {
        // Already gone: the SIGTERM test killed it.
      }
    }
  });

  test('list, a direct call and a code_execution', async () => {
    const { client } = await connectClient(url);
    try {
      await assertToolsListed(client);
      const echo = await client.callTool({ name: 'ev--echo', arguments: { message: 'over http' } });
      assert.equal(text(echo), 'Echo: over http');
      const script = await client.callTool({ name: 'code_execution', arguments: { code: `const root = ${JSON.stringify(s.root)};
await tools.fs__write_file({ path: root + '/http.txt', content: 'from a script over http' });
return (await tools.fs__read_text_file({ path: root + '/http.txt' })).content;` } });
      assert.equal((script.structuredContent as any)?.value, 'from a script over http', JSON.stringify(script));
      assert.equal(readFileSync(join(s.root, 'http.txt'), 'utf8'), 'from a script over http');
    } finally {
      await client.close();
    }
  });

  test("everything's long-running operation: each step's notifications/progress reaches the client", async () => {
    const { client, progress } = await connectClient(url);
    try {
      const result = await client.callTool({ name: 'ev--trigger-long-running-operation', arguments: { duration: 0.4, steps: 4 } }, undefined, { onprogress: () => {} });
      assert.match(text(result), /Long running operation completed/);
      // The last step may arrive in the same read as the response; the transport saw it.
      await waitUntil(() => progress.length >= 4 || undefined, 'four steps');
      assert.deepEqual(progress.map((p) => [p.progress, p.total]), [[1, 4], [2, 4], [3, 4], [4, 4]]);
    } finally {
      await client.close();
    }
  });

  test("a client's cancellation reaches server-everything, and the server goes on serving", async () => {
    const { client } = await connectClient(url);
    try {
      const controller = new AbortController();
      let stepped!: () => void;
      const firstStep = new Promise<void>((resolve) => (stepped = resolve));
      const call = client.callTool({ name: 'ev--trigger-long-running-operation', arguments: { duration: 30, steps: 300 } }, undefined, { signal: controller.signal, onprogress: () => stepped() });
      await firstStep;
      controller.abort('the user stopped it');
      await assert.rejects(call, /stopped it|abort/i);
      const request = s.everythingInbound().find((m) => m.method === 'tools/call' && m.params?.name === 'trigger-long-running-operation' && m.params?.arguments?.duration === 30);
      assert.ok(request, 'the long call reached server-everything');
      await waitUntil(() => s.everythingInbound().some((m) => m.method === 'notifications/cancelled' && m.params?.requestId === request.id) || undefined, 'notifications/cancelled for that request at server-everything', 15_000);
      const echo = await client.callTool({ name: 'ev--echo', arguments: { message: 'still here' } });
      assert.equal(text(echo), 'Echo: still here');
    } finally {
      await client.close();
    }
  });

  test("serve's SIGTERM is not held by a provider's orphan that keeps serve's pipes open", async () => {
    // A minute-long call the client abandons keeps server-everything busy (its steps go on
    // after the cancellation) while the tee in front of it is stopped on shutdown.
    const { client } = await connectClient(url);
    const controller = new AbortController();
    let stepped!: () => void;
    const firstStep = new Promise<void>((resolve) => (stepped = resolve));
    const call = client.callTool({ name: 'ev--trigger-long-running-operation', arguments: { duration: 60, steps: 600 } }, undefined, { signal: controller.signal, onprogress: () => stepped() });
    await firstStep;
    controller.abort('done with it');
    await assert.rejects(call);
    await client.close();
    const orphan = s.everythingPid();
    assert.ok(running(orphan), 'server-everything runs before the SIGTERM');
    try {
      const exited = once(child, 'exit');
      const sent = performance.now();
      child.kill('SIGTERM');
      const [code] = await exited;
      const tookMs = performance.now() - sent;
      assert.equal(code, 0, 'serve ends cleanly on SIGTERM');
      // Had serve waited for the orphan to let go of its pipes, it would have ended with the
      // minute-long operation. Whether the orphan is still alive now is not serve's to decide:
      // its next progress write into serve's closed pipe may end it (EPIPE) at any moment.
      assert.ok(tookMs < 30_000, `serve took ${Math.round(tookMs)} ms to end: it waited for the orphan`);
    } finally {
      try {
        process.kill(orphan, 'SIGKILL');
      } catch {
        // Already gone: its write into serve's closed pipe ended it.
      }
    }
  });
});
