/**
 * Golden tests of what the model reads: the code_execution description rendered for the tool
 * sets of the official servers (server-everything, server-filesystem, server-memory, connected
 * for real over stdio), in both languages. The TypeScript declarations type-check with the
 * TypeScript compiler, the Python stubs execute under python3, and the text is compared with
 * a snapshot in test/code-execution/golden/, so any change in rendering shows up in review.
 *
 * A changed rendering fails with a diff; `UPDATE_GOLDEN=1` rewrites the snapshots.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, realpathSync, mkdtempSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { DEFAULT_DESCRIPTION_CHARS, describeCodeExecution } from '../../src/code-execution/description.ts';
import { registerCodeExecution, type CodeExecution } from '../../src/code-execution/index.ts';
import type { RegisteredTool } from '../../src/host/types.ts';
import { scratchDir } from '../helpers/peers.ts';
import { officialServer, type OfficialServer } from '../real-servers/servers.ts';
import { runPython, typeCheck } from '../runtime/declarations/helpers.ts';

const GOLDEN = join(dirname(fileURLToPath(import.meta.url)), 'golden');
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const LIMITS = { defaultMs: 30_000, maxMs: 120_000 };

/** The first differing lines of two texts, with a little context. */
function lineDiff(expected: string, actual: string): string {
  const a = expected.split('\n');
  const b = actual.split('\n');
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 3);
  const show = (lines: string[], sign: string) => lines.slice(from, i + 6).map((l, k) => `${from + k === i ? sign : ' '} ${from + k + 1}: ${l}`).join('\n');
  return `first difference at line ${i + 1}\n--- snapshot\n${show(a, '-')}\n+++ rendered\n${show(b, '+')}`;
}

/** Compares `text` with the snapshot `name`, or writes it under UPDATE_GOLDEN=1. */
function matchGolden(name: string, text: string): void {
  const file = join(GOLDEN, name);
  if (UPDATE) {
    mkdirSync(GOLDEN, { recursive: true });
    writeFileSync(file, text);
    return;
  }
  assert.ok(existsSync(file), `no snapshot ${name}: run with UPDATE_GOLDEN=1 to create it`);
  const expected = readFileSync(file, 'utf8');
  if (expected !== text) assert.fail(`${name} changed (UPDATE_GOLDEN=1 rewrites it after review)\n${lineDiff(expected, text)}`);
}

const block = (text: string, fence: string) => {
  const match = new RegExp('```' + fence + '\\n([\\s\\S]*?)\\n```').exec(text);
  assert.ok(match, `no ${fence} block`);
  return match[1]!;
};

describe('golden descriptions of the official servers', () => {
  const hosts: ToolHost[] = [];
  const sets = new Map<OfficialServer, RegisteredTool[]>();
  let all: ToolHost;
  let ce: CodeExecution;

  before(async () => {
    // A fixed root path: server-filesystem's descriptions do not name it, but a snapshot must not depend on it.
    const root = realpathSync(mkdtempSync(join(scratchDir(), 'golden-')));
    const configs = {
      everything: officialServer('everything', 'ev').config,
      filesystem: officialServer('filesystem', 'fs', { args: [root] }).config,
      memory: officialServer('memory', 'mem', { env: { MEMORY_FILE_PATH: join(root, 'memory.jsonl') } }).config,
    };
    all = new ToolHost({ logger: pino({ level: 'silent' }) });
    hosts.push(all);
    for (const [server, config] of Object.entries(configs) as [OfficialServer, (typeof configs)['everything']][]) {
      const host = new ToolHost({ logger: pino({ level: 'silent' }) });
      hosts.push(host);
      await host.connectServer(config);
      sets.set(server, host.registry.all().filter((t) => t.kind === 'server'));
      await all.connectServer({ ...config });
    }
    ce = registerCodeExecution(all, { languages: ['javascript', 'python'] });
  });
  after(async () => {
    await ce.close();
    for (const host of hosts) await host.close();
  });

  for (const server of ['everything', 'filesystem', 'memory'] as const) {
    test(`server-${server}: full declarations in both languages type-check, import, and match the snapshot`, () => {
      const tools = sets.get(server)!;
      assert.ok(tools.length >= 3, `server-${server} listed ${tools.length} tools`);
      const text = describeCodeExecution(tools, ['javascript', 'python'], { ...LIMITS, maxChars: Infinity });
      const ts = block(text, 'ts');
      const use = `async function use() { const hits = await searchTools('x'); return [hits.length, await describe(hits[0]!.name), tools]; }\nexport {};`;
      assert.deepEqual(typeCheck({ 'decl.d.ts': ts, 'use.ts': `/// <reference path="decl.d.ts" />\n${use}` }), { 'decl.d.ts': [], 'use.ts': [] });
      const py = block(text, 'python');
      const names = tools.map((t) => t.name.replace(/[^A-Za-z0-9_]/g, '_'));
      const [r] = runPython([{ source: py, probe: `result = sorted(n for n in ${JSON.stringify(names)} if not callable(getattr(tools, n, None)))` }]);
      assert.equal(r!.executed, true, r!.error ?? '');
      assert.deepEqual(r!.output, [], 'every tool is a method of the stub class');
      for (const t of tools) assert.ok(ts.includes(JSON.stringify(t.name)) || ts.includes(`${t.name}(`), `${t.name} is not declared`);
      matchGolden(`${server}.txt`, text);
    });
  }

  test('all three servers behind one code_execution: as many full declarations as fit the default budget, summaries for the rest; type-checks, imports, matches the snapshot', () => {
    const listing = all.listTools().find((t) => t.name === 'code_execution')!;
    const text = listing.description;
    assert.ok(text.length <= DEFAULT_DESCRIPTION_CHARS, `${text.length} characters`);
    const ts = block(text, 'ts');
    assert.deepEqual(typeCheck({ 'decl.d.ts': ts, 'use.ts': `/// <reference path="decl.d.ts" />\nasync function use() { return [await describe('x'), tools]; }\nexport {};` }), { 'decl.d.ts': [], 'use.ts': [] });
    const [r] = runPython([{ source: block(text, 'python'), probe: 'result = [describe.__name__]' }]);
    assert.equal(r!.executed, true, r!.error ?? '');
    const tools = [...sets.values()].flat();
    const declared = tools.filter((t) => ts.includes(`${JSON.stringify(t.name)}(`));
    // Measured when the default was chosen: 21 of the 36 tools fit in both languages.
    assert.ok(declared.length >= 15, `${declared.length} of ${tools.length} declared in full`);
    for (const t of tools) assert.ok(declared.includes(t) !== text.includes(`\n${t.name}: `), `${t.name} is declared or summarized, once`);
    matchGolden('all-three.txt', text);
  });
});
