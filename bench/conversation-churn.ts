/**
 * Conversations opened and closed in sequence (issue 13: "10,000 conversations leave memory
 * flat, ±10%"), part of `npm run bench:scale`.
 *
 * One host with code_execution (QuickJS, the default engine) and a no-op tool. Each
 * conversation opens a stream, runs one short JavaScript script that makes one inner tool
 * call, and — every `pythonEvery`-th conversation — one short Python script doing the same
 * (a new conversation's first Python run starts an interpreter, ~50–250 ms, so 10,000 of them
 * would take most of an hour; one in 50 gives 200 interpreters started and ended), then ends
 * as an embedder ends it: the stream ends and `host.endConversation(id)`.
 *
 * At every checkpoint (each 1,000 conversations) after a full GC: the host's V8 heap, its RSS,
 * the RSS of the whole process tree and of the sandbox processes alone, and what the host and
 * its pools still hold for conversations. The figure is last / first checkpoint (target 0.9–1.1).
 * The control run (`end: false`) ends only the streams, as an embedder could before.
 */
import { registerCodeExecution } from '../src/code-execution/index.ts';
import { descendants, rssBytes, sandboxPids, treeRss } from './proc.ts';
import { noopHost } from './rig.ts';

export interface ChurnCheckpoint {
  conversations: number;
  /** Wall time of the last 1,000 conversations. */
  msPerThousand: number;
  heapMb: number;
  hostRssMb: number;
  treeRssMb: number;
  sandboxRssMb: number;
  processes: number;
  /** What is still held for conversations: host inferences, VM slots, Python runners. */
  held: { inferences: number; hostConversations: number; vmConversations: number; pythonRunners: number };
}

export interface ChurnFigures {
  conversations: number;
  /** Runs that did not end `ok` (counted, the first one's error kept; the churn goes on). */
  failures: { count: number; first?: string };
  /** Whether each conversation was ended with host.endConversation (false: the control, stream end only). */
  ended: boolean;
  pythonEvery: number;
  checkpoints: ChurnCheckpoint[];
  /** Last checkpoint / first, for each memory figure. */
  ratios: { heap: number; hostRss: number; treeRss: number; sandboxRss: number };
  /**
   * Lowest and highest checkpoint / first: a sandbox process's RSS rises and falls by ±15%
   * with its own collector's timing (its V8 heap after a collection stays flat), so one
   * checkpoint against another says less than the range over all of them.
   */
  ranges: { treeRss: [number, number]; sandboxRss: [number, number] };
  withinTenPercent: boolean;
}

const mb = (bytes: number) => Number((bytes / 2 ** 20).toFixed(1));

function fullGc(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with node --expose-gc (npm run bench:scale does)');
  gc();
  gc();
}

/**
 * `end: false` is the control: conversations only end their streams, as before endConversation
 * existed, so what they leave is reclaimed only by idle timeouts and caps.
 */
export async function churn(total = 10_000, pythonEvery = 50, checkpointEvery = 1_000, end = true): Promise<ChurnFigures> {
  const every = Math.max(1, Math.min(checkpointEvery, total));
  const host = noopHost();
  const codeExecution = registerCodeExecution(host, { languages: ['javascript', 'python'] });
  const js = 'const r = await tools.noop({ i: 1 }); return r;';
  const py = 'r = await tools.noop({"i": 1})\nr';
  const checkpoints: ChurnCheckpoint[] = [];
  const failures: ChurnFigures['failures'] = { count: 0 };
  try {
    let t = performance.now();
    for (let n = 1; n <= total; n++) {
      const id = `churn-${n}`;
      const stream = host.openStream(id);
      const inferenceId = stream.beginInference();
      const runs = [js, ...(n % pythonEvery === 0 ? [py] : [])];
      for (const code of runs) {
        const outcome = await host.dispatch({ inferenceId, name: 'code_execution', input: { code, language: code === js ? 'javascript' : 'python' } });
        const summary = outcome.result.structuredContent as { ok?: boolean } | undefined;
        if (!summary?.ok) {
          failures.count++;
          failures.first ??= `conversation ${n}: ${JSON.stringify(outcome.result).slice(0, 400)}`;
          console.log(`  conversation ${n} failed: ${JSON.stringify(outcome.result).slice(0, 400)}`);
        }
      }
      stream.end();
      if (end) await host.endConversation(id);
      if (n % every === 0) {
        const msPerThousand = ((performance.now() - t) * 1000) / every;
        fullGc();
        const runtime = await codeExecution.runners.javascript();
        const sandboxes = sandboxPids();
        checkpoints.push({
          conversations: n,
          msPerThousand: Math.round(msPerThousand),
          heapMb: mb(process.memoryUsage().heapUsed),
          hostRssMb: mb(process.memoryUsage().rss),
          treeRssMb: mb(treeRss()),
          sandboxRssMb: mb(sandboxes.reduce((sum, pid) => sum + rssBytes(pid), 0)),
          processes: descendants().length,
          held: {
            inferences: host.remembered.inferences,
            hostConversations: host.remembered.conversations,
            vmConversations: runtime.stats().conversations,
            pythonRunners: codeExecution.runners.pythonConversations,
          },
        });
        const c = checkpoints.at(-1)!;
        console.log(
          `  ${String(n).padStart(6)} conversations: ${c.msPerThousand} ms per 1,000, heap ${c.heapMb} MB, host RSS ${c.hostRssMb} MB, ` +
            `tree RSS ${c.treeRssMb} MB (sandboxes ${c.sandboxRssMb} MB, ${c.processes} processes), held ${JSON.stringify(c.held)}`,
        );
        t = performance.now();
      }
    }
  } finally {
    await codeExecution.close();
    await host.close();
  }
  const first = checkpoints[0]!;
  const last = checkpoints.at(-1)!;
  const ratio = (a: number, b: number) => Number((b / a).toFixed(3));
  const ratios = {
    heap: ratio(first.heapMb, last.heapMb),
    hostRss: ratio(first.hostRssMb, last.hostRssMb),
    treeRss: ratio(first.treeRssMb, last.treeRssMb),
    sandboxRss: ratio(first.sandboxRssMb, last.sandboxRssMb),
  };
  const range = (pick: (c: ChurnCheckpoint) => number): [number, number] => {
    const values = checkpoints.map((c) => pick(c) / pick(first));
    return [Number(Math.min(...values).toFixed(3)), Number(Math.max(...values).toFixed(3))];
  };
  const ranges = { treeRss: range((c) => c.treeRssMb), sandboxRss: range((c) => c.sandboxRssMb) };
  const withinTenPercent = Object.values(ratios).every((r) => r >= 0.9 && r <= 1.1);
  return { conversations: total, failures, ended: end, pythonEvery, checkpoints, ratios, ranges, withinTenPercent };
}
