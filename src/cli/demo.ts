/**
 * `npm start`: one scripted turn on embedded defaults — no model, no API key. A fixture
 * provider serves tools of several classes, two observers connect with different grants and
 * filters, the "model" issues one response of several calls (one returns an error result,
 * one is held briefly), and each observer's view is printed as a timeline.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { ToolHost } from '../host/tool-host.ts';
import { resultText } from '../host/results.ts';
import type { ServerConfig } from '../mcpl/config.ts';
import type { OperatorPolicy } from '../lifecycle/grants.ts';
import { renderTimeline, TIMELINE_LEGEND, type Receipt } from './timeline.ts';
import { demoScript, registerDemoCodeExecution } from './demo-script.ts';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const PEER = join(ROOT, 'fixtures', 'peer.mjs');

const PROVIDER_TOOLS = [
  { name: 'bash', description: 'Run a shell command', classes: ['shell'] },
  { name: 'write_file', description: 'Write a file', classes: ['files'] },
  { name: 'fetch', description: 'Fetch a URL', classes: ['web'] },
  { name: 'send_message', description: 'Message a person', classes: ['comms'] },
  { name: 'recall', description: 'Search memory', classes: ['memory'] },
];

interface ObserverSpec {
  id: string;
  about: string;
  policy: OperatorPolicy;
  filter?: unknown;
}

const OBSERVERS: ObserverSpec[] = [
  {
    id: 'avatar',
    about: 'observe + inputs (the named default class policy); filter: comms suppressed, arguments for everything else',
    policy: {
      enabledCapabilities: ['toolLifecycle.observe', 'toolLifecycle.inputs'],
      toolLifecycle: { inputs: { classes: 'default' } },
    },
    filter: { rules: [{ match: { class: 'comms' }, report: false }, { match: {}, input: true }] },
  },
  {
    id: 'audit',
    about: 'observe only, no filter: every call, metadata only',
    policy: { enabledCapabilities: ['toolLifecycle.observe'] },
  },
];

function peerConfig(dir: string, id: string, body: Record<string, unknown>): ServerConfig {
  const path = join(dir, `${id}.json`);
  writeFileSync(path, JSON.stringify({ log: join(dir, `${id}.jsonl`), ...body }));
  return { id, command: process.execPath, args: [PEER], env: { TOOLCELL_PEER_CONFIG: path } };
}

function receipts(dir: string, id: string): Receipt[] {
  const path = join(dir, `${id}.jsonl`);
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.event === 'lifecycle')
    .map((e) => ({ params: e.params, t: e.t }));
}

export async function runDemo(options: { python: boolean; plain: boolean }): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'toolcell-demo-'));
  const host = new ToolHost({ logger: pino({ level: 'warn' }, pino.destination(2)) });
  const out = (line = '') => process.stdout.write(`${line}\n`);
  // What the demo is doing, on stderr (stdout is the result): each step can take seconds on a
  // first run or a busy machine, and a silent terminal looks like a hang.
  const started = Date.now();
  const step = (text: string) => process.stderr.write(`toolcell: ${text} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  try {
    step('starting a fixture tool server ("work") and two observer processes');
    await host.connectServer(peerConfig(dir, 'work', { tools: PROVIDER_TOOLS }));
    for (const o of OBSERVERS) {
      await host.connectServer({ ...peerConfig(dir, o.id, { observer: true, ...(o.filter ? { filter: o.filter } : {}) }), policy: o.policy });
    }
    step(`connected: work (${host.listTools().length} tools), observers ${OBSERVERS.map((o) => o.id).join(' and ')}`);
    const codeExecution = options.plain ? undefined : registerDemoCodeExecution(host);
    // Filters take effect when answered; wait for both answers before the turn starts.
    for (const o of OBSERVERS.filter((x) => x.filter)) {
      const deadline = Date.now() + 5000;
      while (host.server(o.id)!.filter === null) {
        if (Date.now() > deadline) throw new Error(`observer ${o.id} never sent its filter`);
        await new Promise((r) => setTimeout(r, 5));
      }
    }
    out('toolcell demo: one scripted turn, no model and no API key');
    out(`tools: ${host.listTools().map((t) => `${t.name} [${t.classes.join(',') || 'unclassed'}]`).join(', ')}`);
    out();
    const stream = host.openStream('conv_demo');
    const inferenceId = stream.beginInference();
    const calls = options.plain
      ? [
          { id: 'toolu_01DemoBashAaaaaaaaaaaaa', name: 'work--bash', input: { cmd: 'ls -la', delay_ms: 20 } },
          { id: 'toolu_01DemoWriteBbbbbbbbbbbb', name: 'work--write_file', input: { path: 'notes.md', content: '# hi', error: 'disk full' } },
          { id: 'toolu_01DemoFetchCccccccccccc', name: 'work--fetch', input: { url: 'https://example.org', delay_ms: 250 } },
          { id: 'toolu_01DemoSendDddddddddddddd', name: 'work--send_message', input: { to: 'alice', text: 'private words' } },
        ]
      : [{ id: 'toolu_01DemoScriptEeeeeeeeeeee', name: 'code_execution', input: demoScript(options.python) }];
    out(`model response: ${calls.map((c) => c.name).join(', ')}`);
    for (const call of calls.filter((c) => typeof c.input.code === 'string')) {
      // The whole script, as the model sent it: the observers' timelines below show each call it made.
      out(`the script it sends to ${call.name} (${options.python ? 'Python' : 'JavaScript'}):`);
      for (const line of String(call.input.code).split('\n')) out(`  | ${line}`);
    }
    step(options.plain ? 'dispatching the model\'s calls' : `running the script (the first run starts the ${options.python ? 'Python interpreter' : 'JavaScript sandbox'})`);
    const outcomes = await Promise.all(calls.map((c) => host.dispatch({ inferenceId, modelCallId: c.id, name: c.name, input: c.input })));
    stream.end('turn complete');
    for (const [i, outcome] of outcomes.entries()) {
      const summary = outcome.result.structuredContent as Record<string, any> | undefined;
      const shown = summary
        ? JSON.stringify({ ok: summary.ok, value: summary.value, error: summary.error, stdout: summary.stdout || undefined, logs: summary.logs, calls: summary.calls?.length })
        : resultText(outcome.result);
      out(`  ${calls[i]!.name} → ${outcome.status}${outcome.result.isError ? ' (error result)' : ''}: ${shown.length > 400 ? `${shown.slice(0, 400)}…` : shown}`);
    }
    await host.flush();
    for (const o of OBSERVERS) await host.server(o.id)!.request('fixture/barrier');
    step('done; what each observer received:');
    if (codeExecution) out('(calls made by the script are indented under their code_execution parent)');
    out(TIMELINE_LEGEND);
    for (const o of OBSERVERS) {
      out();
      out(`observer "${o.id}" — ${o.about}`);
      for (const line of renderTimeline(receipts(dir, o.id))) out(line);
    }
    await codeExecution?.close();
    return 0;
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
