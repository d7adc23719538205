/**
 * Effect of learned result types (issue 44 item 2; `npm run bench:learned-shapes`): a catalog of
 * realistic tools that declare no `outputSchema` — the corpus's own two (test/code-execution/
 * corpus.test.ts: `get_user`, `list_ids`) and six shaped like common MCP servers' results (JSON
 * text, structured content, numbers in text, plain prose) — each called N times by a script.
 * Reported: code_execution's description size with and without learned shapes, how many tool
 * declarations go from `Promise<unknown>` to a concrete type, the extra characters per tool, and
 * the time to learn (observe) one result. The last line is JSON.
 */
import { loadavg } from 'node:os';
import pino from 'pino';
import { ToolHost } from '../src/host/tool-host.ts';
import { textResult } from '../src/host/results.ts';
import type { ToolResult } from '../src/host/types.ts';
import { registerCodeExecution } from '../src/code-execution/index.ts';
import { LEARNED_REFRESH_MS } from '../src/code-execution/learned-refresh.ts';
import { ShapeLearner } from '../src/code-execution/learned-shapes.ts';

const CALLS = Number(process.env.LEARNED_BENCH_CALLS ?? 5);
const json = (value: unknown): ToolResult => textResult(JSON.stringify(value));

/** name → result of call i (varied across calls, as real results are). */
const CATALOG: Record<string, (i: number) => ToolResult> = {
  get_user: (i) => ({ content: [{ type: 'text', text: JSON.stringify({ id: i, name: 'Ada' }) }], structuredContent: { id: i, name: 'Ada' } }),
  list_ids: () => ({ content: [{ type: 'text', text: '[1,2,3]' }] }),
  search_issues: (i) => json({ total_count: 40 + i, items: [{ number: i, title: `t${i}`, state: i % 2 ? 'open' : 'closed', labels: [{ name: 'bug' }], ...(i % 3 ? {} : { assignee: { login: 'x' } }) }] }),
  read_file: (i) => textResult(`line one\nline ${i}`),
  get_weather: (i) => json({ city: 'Paris', temperature: 12.5 + i, conditions: 'rain', forecast: [{ day: 'mon', high: 14, low: 8 }] }),
  count_rows: (i) => textResult(String(1000 + i)),
  list_directory: (i) => json({ entries: [{ name: `f${i}.txt`, type: 'file', size: 10 * i }, { name: 'dir', type: 'directory' }] }),
  query_db: (i) => ({ content: [{ type: 'text', text: 'rows' }], structuredContent: { rows: [{ id: i, email: 'a@b.c', created_at: '2026-01-01' }], rowCount: 1 } }),
};

function declarations(description: string): string {
  return /```ts\n([\s\S]*?)```/.exec(description)?.[1] ?? '';
}

/** Each tool's declaration, its doc comment included (name → text up to the next tool's). */
function perTool(decls: string): Map<string, string> {
  const starts = Object.keys(CATALOG)
    .map((name) => {
      const at = decls.search(new RegExp(`\\n  ${name}\\(`));
      const doc = decls.lastIndexOf('/**', at);
      return { name, at: at < 0 ? -1 : doc >= 0 && !decls.slice(doc, at).includes(');') ? doc : at };
    })
    .filter((s) => s.at >= 0)
    .sort((a, b) => a.at - b.at);
  const out = new Map<string, string>();
  starts.forEach((s, i) => out.set(s.name, decls.slice(s.at, starts[i + 1]?.at ?? decls.length)));
  return out;
}

async function main(): Promise<void> {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  for (const [name, result] of Object.entries(CATALOG)) {
    let i = 0;
    host.registerTool({ name, description: `The ${name.replace('_', ' ')} tool.`, inputSchema: { type: 'object' }, handler: async () => result(i++) });
  }
  const ce = registerCodeExecution(host, { languages: ['javascript'] });
  const description = () => host.listTools().find((t) => t.name === 'code_execution')!.description;
  const before = description();
  const calls = Object.keys(CATALOG).map((name) => `await tools.${name}({});`).join('\n');
  const inferenceId = host.beginInference({ conversationId: 'bench' });
  for (let n = 0; n < CALLS; n++) {
    const out = await host.dispatch({ inferenceId, name: 'code_execution', input: { code: `${calls}\nreturn 1;` } });
    if ((out.result?.structuredContent as { ok?: boolean } | undefined)?.ok !== true) throw new Error(`the bench script failed: ${JSON.stringify(out.result?.structuredContent)}`);
  }
  // The description follows learned types at most once per LEARNED_REFRESH_MS, after a run.
  await new Promise((r) => setTimeout(r, LEARNED_REFRESH_MS + 200));
  await host.dispatch({ inferenceId, name: 'code_execution', input: { code: 'return 1;' } });
  const after = description();
  const [d0, d1] = [perTool(declarations(before)), perTool(declarations(after))];
  const unknownBefore = [...d0.values()].filter((d) => /Promise<unknown>/.test(d)).length;
  const unknownAfter = [...d1.values()].filter((d) => /Promise<unknown>/.test(d)).length;
  const extra: Record<string, number> = {};
  for (const name of Object.keys(CATALOG)) extra[name] = (d1.get(name)?.length ?? 0) - (d0.get(name)?.length ?? 0);
  const sample = [...d1.entries()].filter(([name]) => name === 'search_issues' || name === 'count_rows').map(([, d]) => d.trim());
  await ce.close();
  await host.close();

  // Learning cost: observe() of one search_issues-like result, eager and settled.
  const learner = new ShapeLearner();
  const value = JSON.parse((CATALOG.search_issues!(1).content[0] as unknown as { text: string }).text) as unknown;
  const N = 20_000;
  let t = performance.now();
  for (let i = 0; i < N; i++) learner.observe(`t${i % 1000}`, value, false);
  const eagerUs = ((performance.now() - t) * 1000) / N;
  t = performance.now();
  for (let i = 0; i < N; i++) learner.observe('settled', value, false);
  const settledUs = ((performance.now() - t) * 1000) / N;

  const figures = {
    bench: 'learned-shapes',
    tools: Object.keys(CATALOG).length,
    callsPerTool: CALLS,
    descriptionChars: { without: before.length, with: after.length, extra: after.length - before.length },
    declarationsUnknown: { without: unknownBefore, with: unknownAfter },
    extraCharsPerTool: extra,
    meanExtraCharsPerTool: Math.round((after.length - before.length) / Object.keys(CATALOG).length),
    observeUs: { eager: Number(eagerUs.toFixed(2)), settled: Number(settledUs.toFixed(3)) },
    load: loadavg().map((l) => Number(l.toFixed(2))),
  };
  for (const s of sample) console.log(s);
  console.log(`description: ${before.length} → ${after.length} chars (+${after.length - before.length}); declarations with Promise<unknown>: ${unknownBefore} → ${unknownAfter} of ${Object.keys(CATALOG).length}`);
  console.log(JSON.stringify(figures));
}

await main();
